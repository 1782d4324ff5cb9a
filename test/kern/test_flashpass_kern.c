// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_flashpass's TC roles in the kernel, on crafted packets
 * (BPF_PROG_TEST_RUN): the receiver's reflection (IPv4, IPv6, checksums),
 * the sender's credit intake (secret, unknown flow, full ring) and data
 * tagging (scheduled under a usable credit, unscheduled without), every
 * malformed case, a fuzz run that must not move any ledger or counter it
 * should not, and credit_ack: a credit becoming its flow's last pure ACK
 * (IPv4, IPv6, checksums, which ACK is kept, no bad credit becoming one).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <time.h>
#include <criterion/criterion.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "csum.h"
#include "flashpass.h"
#include "obj.h"
#include "registry.h"
#include "util.h"

struct emu4 {
	struct ethhdr eth;
	struct iphdr ip;
	struct udphdr udp;
	struct fp_wire w;
} __attribute__((packed));

struct emu6 {
	struct ethhdr eth;
	struct ipv6hdr ip6;
	struct udphdr udp;
	struct fp_wire w;
} __attribute__((packed));

struct data4 {
	struct ethhdr eth;
	struct iphdr ip;
	struct tcphdr tcp;
	uint8_t payload[1000];
} __attribute__((packed));

#define A_SND  0x0a000001U /* the data sender */
#define A_RCV  0x0a000002U
#define P_SND  40000 /* the flow's ports */
#define P_RCV  5001
#define SECRET 0x5eC4e7U

static struct bpf_object *obj;
static int fd_recv, fd_in, fd_out, fd_ledgers, fd_stats;
static uint16_t port;

static void wire(struct fp_wire *w, enum fp_type t, uint32_t seq, uint32_t t_us)
{
	memset(w, 0, sizeof(*w));
	w->magic = FP_MAGIC;
	w->ver_type = FP_VERSION << 4 | t;
	w->dport = htons(P_RCV);
	w->seq = htonl(seq);
	w->t_us = htonl(t_us);
	w->secret = SECRET;
	w->count = 1;
}

/* An emulation packet of the flow, sender to receiver, ECT(0).
 * BPF_PROG_TEST_RUN receives it on the loopback device (ifindex 1,
 * address zero, no forwarding): a frame to the zero address is to this
 * host (fp_for_this_host()). */
static void emu4(struct emu4 *p)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->eth.h_source, "\x02\0\0\0\0\x01", 6);
	p->eth.h_proto = htons(ETH_P_IP);
	p->ip.version = 4;
	p->ip.ihl = 5;
	p->ip.tos = 2;
	p->ip.tot_len = htons(sizeof(*p) - sizeof(p->eth));
	p->ip.ttl = 64;
	p->ip.protocol = IPPROTO_UDP;
	p->ip.saddr = htonl(A_SND);
	p->ip.daddr = htonl(A_RCV);
	p->ip.check = csum_fold(csum_add(0, &p->ip, sizeof(p->ip)));
	p->udp.source = htons(P_SND);
	p->udp.dest = htons(port);
	p->udp.len = htons(sizeof(p->udp) + sizeof(p->w));
	wire(&p->w, FP_EMULATION, 7, 123456);
	p->udp.check =
		udp_csum(&p->ip.saddr, &p->ip.daddr, 4, &p->udp, sizeof(p->udp) + FP_WIRE_LEN);
}

/* A wire stamp (T, low 32 bits of us) a millisecond ago: a T is read
 * against now, within 2^31 us either way, and one ahead is refused. */
#define T_PAST ((uint32_t)(mono_ns() / 1000) - 1000U)

/* Its credit, as the receiver makes it: receiver to sender. */
static void credit4(struct emu4 *p, uint32_t t_us, uint32_t secret)
{
	emu4(p);
	p->ip.tos = 0;
	p->ip.saddr = htonl(A_RCV);
	p->ip.daddr = htonl(A_SND);
	p->ip.check = 0;
	p->ip.check = csum_fold(csum_add(0, &p->ip, sizeof(p->ip)));
	p->udp.source = htons(port);
	p->udp.dest = htons(P_SND);
	wire(&p->w, FP_CREDIT, 7, t_us);
	p->w.secret = secret;
	p->udp.check = 0;
}

static void data4(struct data4 *p, size_t payload)
{
	memset(p, 0, sizeof(*p));
	p->eth.h_proto = htons(ETH_P_IP);
	p->ip.version = 4;
	p->ip.ihl = 5;
	p->ip.tot_len = htons((uint16_t)(sizeof(p->ip) + sizeof(p->tcp) + payload));
	p->ip.ttl = 64;
	p->ip.protocol = IPPROTO_TCP;
	p->ip.saddr = htonl(A_SND);
	p->ip.daddr = htonl(A_RCV);
	p->ip.check = csum_fold(csum_add(0, &p->ip, sizeof(p->ip)));
	p->tcp.source = htons(P_SND);
	p->tcp.dest = htons(P_RCV);
	p->tcp.doff = 5;
	p->tcp.ack = 1;
}

/* The object loaded with the @n tunables @names at @values, the rest at
 * their defaults. */
static void setup_with(size_t n, const char *const *names, const uint64_t *values)
{
	const struct algo *a = algo_find("bpf_flashpass");
	struct bpf_map *ro;
	uint64_t v;
	size_t sz;

	cr_assert_not_null(a);
	obj = obj_open_algo(a);
	cr_assert_not_null(obj, "open bpf_flashpass");
	ro = obj_rodata(obj);
	cr_assert_not_null(ro);
	/* writable until load (libbpf: the map's mmap-ed initial value) */
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(rodata_set(obj, (void *)bpf_map__initial_value(ro, &sz), names[i],
					values[i]),
			     0);
	cr_assert_eq(bpf_object__load(obj), 0, "load bpf_flashpass (are we root?)");
	fd_recv = bpf_program__fd(bpf_object__find_program_by_name(obj, "fp_receiver"));
	fd_in = bpf_program__fd(bpf_object__find_program_by_name(obj, "fp_sender_in"));
	fd_out = bpf_program__fd(bpf_object__find_program_by_name(obj, "fp_sender_out"));
	fd_ledgers = bpf_map__fd(bpf_object__find_map_by_name(obj, "fp_ledgers"));
	fd_stats = bpf_map__fd(bpf_object__find_map_by_name(obj, "ccs_stats"));
	cr_assert_eq(rodata_get(obj, bpf_map__initial_value(ro, &sz), "port", &v), 0);
	port = (uint16_t)v;
}

static void setup(void)
{
	setup_with(0, NULL, NULL);
}

static void setup_tuned(const char *name, uint64_t value)
{
	setup_with(1, &name, &value);
}

/* the receiver's credit_batch at 3 */
static void setup_batch(void)
{
	setup_tuned("credit_batch", 3);
}

static void teardown(void)
{
	bpf_object__close(obj);
	obj = NULL;
}

static uint64_t stat_of(uint32_t idx)
{
	int n = libbpf_num_possible_cpus();
	struct ccs_stats *s = calloc((size_t)n, sizeof(*s));
	uint32_t zero = 0;
	uint64_t sum = 0;

	cr_assert_not_null(s);
	cr_assert_eq(bpf_map_lookup_elem(fd_stats, &zero, s), 0);
	for (int i = 0; i < n; i++)
		sum += s[i].v[idx];
	free(s);
	return sum;
}

struct run {
	int ret;
	uint32_t len;
	uint64_t tstamp;
};

/* Run one packet through @fd; the rewritten packet comes back in @out. */
static struct run run(int fd, const void *in, size_t len, void *out, uint32_t gso_segs)
{
	struct __sk_buff ctx = { .gso_segs = gso_segs, .ingress_ifindex = 1 }, ctx_out = {};
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in, .data_size_in = (uint32_t)len,
		    .data_out = out, .data_size_out = out ? (uint32_t)len + 64 : 0, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .ctx_out = &ctx_out,
		    .ctx_size_out = sizeof(ctx_out));

	cr_assert_eq(bpf_prog_test_run_opts(fd, &o), 0, "test_run (%zu bytes): %s", len,
		     strerror(errno));
	return (struct run){ (int)o.retval, o.data_size_out, ctx_out.tstamp };
}

/* The cookie of this process's network namespace: BPF_PROG_TEST_RUN
 * runs a TC program on this namespace's loopback, so the namespace its
 * keys name (fp_skb_netns()). */
static uint64_t this_netns(void)
{
	static uint64_t cookie;
	socklen_t len = sizeof(cookie);
	int fd;

	if (cookie)
		return cookie;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	cr_assert(fd >= 0);
	cr_assert_eq(getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len), 0);
	close(fd);
	cr_assert_neq(cookie, 0);
	return cookie;
}

static void key_of_flow(struct fp_key *k)
{
	memset(k, 0, sizeof(*k));
	k->netns = this_netns();
	k->saddr[2] = k->daddr[2] = htonl(0xffff);
	k->saddr[3] = htonl(A_SND);
	k->daddr[3] = htonl(A_RCV);
	k->sport = htons(P_SND);
	k->dport = htons(P_RCV);
}

#define ACK_SEQ	  0x11223344U /* the receiver's sequence number */
#define ACK_ACK	  0xfffffff0U /* what it acknowledges: near the wrap */
#define ACK_WIN	  0x1f5
#define ACK_TSVAL 0xa1b2c3d4U
#define ACK_TSECR 0x01020304U

/* The sequence state the CC records at each ACK (fp_ledger_seq()): the
 * sender has 2000 bytes out around ACK_ACK, and takes ACK_SEQ next; the
 * peer's window ACK_WIN, its timestamp ACK_TSVAL. */
static void ledger_seq(struct fp_ledger *l)
{
	l->snd_una = ACK_ACK - 1000;
	l->snd_nxt = ACK_ACK + 1000; /* across the wrap */
	l->rcv_nxt = ACK_SEQ;
	l->wnd_raw = ACK_WIN;
	l->ts_recent = ACK_TSVAL;
	l->ts_ok = 1;
	l->seq_out = ACK_ACK + 1000;
}

static struct fp_ledger *ledger_new(uint32_t phase)
{
	static struct fp_ledger l;
	struct fp_key k;

	memset(&l, 0, sizeof(l));
	l.secret = SECRET;
	l.phase = phase;
	l.sack_ok = 1;		   /* as Linux negotiates by default */
	l.t_wait_ns = 40000000ULL; /* 40 ms */
	ledger_seq(&l);
	key_of_flow(&k);
	cr_assert_eq(bpf_map_update_elem(fd_ledgers, &k, &l, BPF_ANY), 0);
	return &l;
}

static struct fp_ledger *ledger(void)
{
	static struct fp_ledger l;
	struct fp_key k;

	key_of_flow(&k);
	cr_assert_eq(bpf_map_lookup_elem(fd_ledgers, &k, &l), 0, "the flow's ledger");
	return &l;
}

TestSuite(flashpass_kern, .init = setup, .fini = teardown);

/* A frame for another host's address (seen on a bridge or promiscuous),
 * well formed or not, or to an address that is no one host's, passes
 * untouched: the receiver answers only what is addressed to its host. */
Test(flashpass_kern, receiver_passes_a_frame_for_another_host)
{
	struct emu4 in, out;
	uint64_t transit = stat_of(FP_STAT_RX_TRANSIT), reflected = stat_of(FP_STAT_REFLECTED);
	struct run r;

	emu4(&in);
	memcpy(in.eth.h_dest, "\x02\0\0\0\0\x02", 6);
	r = run(fd_recv, &in, sizeof(in), &out, 0);
	cr_assert_eq(r.ret, TC_ACT_OK, "passed on: %d", r.ret);
	cr_assert_arr_eq(&out, &in, sizeof(in), "unchanged");
	in.w.magic = 0; /* not a FlashPass packet: still not this host's to drop */
	cr_assert_eq(run(fd_recv, &in, sizeof(in), &out, 0).ret, TC_ACT_OK);
	/* to this host's MAC, but to a multicast or the broadcast address */
	emu4(&in);
	in.ip.daddr = htonl(0xe0000001);
	cr_assert_eq(run(fd_recv, &in, sizeof(in), &out, 0).ret, TC_ACT_OK, "224.0.0.1");
	in.ip.daddr = htonl(0xffffffff);
	cr_assert_eq(run(fd_recv, &in, sizeof(in), &out, 0).ret, TC_ACT_OK, "255.255.255.255");
	cr_assert_eq(stat_of(FP_STAT_RX_TRANSIT) - transit, 4);
	cr_assert_eq(stat_of(FP_STAT_REFLECTED) - reflected, 0);
}

Test(flashpass_kern, receiver_returns_an_emulation_packet_as_its_credit)
{
	struct emu4 in, out;
	struct run r;

	emu4(&in);
	r = run(fd_recv, &in, sizeof(in), &out, 0);
	cr_assert_eq(r.ret, TC_ACT_REDIRECT, "sent back out: %d", r.ret);
	cr_assert_eq(r.len, sizeof(in));
	cr_assert_arr_eq(out.eth.h_dest, in.eth.h_source, 6, "MACs swapped");
	cr_assert_arr_eq(out.eth.h_source, in.eth.h_dest, 6);
	cr_assert_eq(out.ip.saddr, in.ip.daddr, "addresses swapped");
	cr_assert_eq(out.ip.daddr, in.ip.saddr);
	cr_assert_eq(out.ip.tos, 0, "a credit is Not-ECT, DSCP 0");
	cr_assert_eq(csum_fold(csum_add(0, &out.ip, sizeof(out.ip))), 0, "IP checksum valid");
	cr_assert_eq(out.udp.source, in.udp.dest, "ports swapped");
	cr_assert_eq(out.udp.dest, in.udp.source);
	cr_assert_eq(out.w.ver_type, FP_VERSION << 4 | FP_CREDIT, "type changed");
	cr_assert_eq(out.w.seq, in.w.seq, "sequence, time and secret echoed");
	cr_assert_eq(out.w.t_us, in.w.t_us);
	cr_assert_eq(out.w.secret, in.w.secret);
	cr_assert_eq(out.w.dport, in.w.dport);
	cr_assert_eq(udp_csum(&out.ip.saddr, &out.ip.daddr, 4, &out.udp,
			      sizeof(out.udp) + FP_WIRE_LEN),
		     0, "UDP checksum valid");
	cr_assert_eq(stat_of(FP_STAT_REFLECTED), 1);
}

Test(flashpass_kern, receiver_keeps_a_zero_udp_checksum_zero)
{
	struct emu4 in, out;

	emu4(&in);
	in.udp.check = 0; /* IPv4: no checksum */
	cr_assert_eq(run(fd_recv, &in, sizeof(in), &out, 0).ret, TC_ACT_REDIRECT);
	cr_assert_eq(out.udp.check, 0);
}

Test(flashpass_kern, receiver_reflects_ipv6)
{
	struct emu6 in, out;
	struct emu4 v4;

	emu4(&v4);
	memset(&in, 0, sizeof(in));
	in.eth = v4.eth;
	in.eth.h_proto = htons(ETH_P_IPV6);
	in.ip6.version = 6;
	/* traffic class 0x2a (DSCP 10, ECT(0)), flow label 0x12345 */
	in.ip6.priority = 0x2;
	in.ip6.flow_lbl[0] = 0xa1;
	in.ip6.flow_lbl[1] = 0x23;
	in.ip6.flow_lbl[2] = 0x45;
	in.ip6.payload_len = htons(sizeof(in.udp) + FP_WIRE_LEN);
	in.ip6.nexthdr = IPPROTO_UDP;
	in.ip6.hop_limit = 64;
	inet_pton(AF_INET6, "fd00::1", &in.ip6.saddr);
	inet_pton(AF_INET6, "fd00::2", &in.ip6.daddr);
	in.udp = v4.udp;
	in.w = v4.w;
	in.udp.check = 0;
	in.udp.check =
		udp_csum(&in.ip6.saddr, &in.ip6.daddr, 16, &in.udp, sizeof(in.udp) + FP_WIRE_LEN);
	cr_assert_eq(run(fd_recv, &in, sizeof(in), &out, 0).ret, TC_ACT_REDIRECT);
	cr_assert_arr_eq(&out.ip6.saddr, &in.ip6.daddr, 16);
	cr_assert_arr_eq(&out.ip6.daddr, &in.ip6.saddr, 16);
	cr_assert_eq(out.w.ver_type, FP_VERSION << 4 | FP_CREDIT);
	cr_assert_eq(out.ip6.version, 6);
	cr_assert_eq(out.ip6.priority, 0, "a credit is Not-ECT, DSCP 0 (traffic class)");
	cr_assert_eq(out.ip6.flow_lbl[0], 0x01, "traffic class 0, flow label kept");
	cr_assert_eq(out.ip6.flow_lbl[1], 0x23, "flow label kept");
	cr_assert_eq(out.ip6.flow_lbl[2], 0x45, "flow label kept");
	cr_assert_eq(udp_csum(&out.ip6.saddr, &out.ip6.daddr, 16, &out.udp,
			      sizeof(out.udp) + FP_WIRE_LEN),
		     0, "UDP checksum valid (mandatory on IPv6)");
}

/* Each malformed emulation packet is dropped and counted under @idx. */
static void refused(const struct emu4 *p, size_t len, uint32_t idx, const char *what)
{
	uint64_t before = stat_of(idx), refl = stat_of(FP_STAT_REFLECTED);

	cr_assert_eq(run(fd_recv, p, len, NULL, 0).ret, TC_ACT_SHOT, "%s: dropped", what);
	cr_assert_eq(stat_of(idx), before + 1, "%s: counted", what);
	cr_assert_eq(stat_of(FP_STAT_REFLECTED), refl, "%s: not reflected", what);
}

Test(flashpass_kern, receiver_drops_and_counts_every_malformed_case)
{
	struct emu4 p;
	uint8_t big[sizeof(p) + 1];

	emu4(&p);
	p.udp.len = htons(sizeof(p.udp) + FP_WIRE_LEN - 1);
	refused(&p, sizeof(p), FP_STAT_WIRE_SHORT, "UDP payload one byte short");
	emu4(&p);
	p.udp.len = htons(4);
	refused(&p, sizeof(p), FP_STAT_WIRE_SHORT, "UDP length below its header");
	emu4(&p);
	p.udp.len = htons(sizeof(p.udp) + FP_WIRE_LEN + 1);
	refused(&p, sizeof(p), FP_STAT_WIRE_SHORT, "UDP length beyond the IP packet");
	emu4(&p);
	memcpy(big, &p, sizeof(p));
	big[sizeof(p)] = 0;
	((struct emu4 *)big)->ip.tot_len = htons(sizeof(p) - sizeof(p.eth) + 1);
	((struct emu4 *)big)->udp.len = htons(sizeof(p.udp) + FP_WIRE_LEN + 1);
	refused((struct emu4 *)big, sizeof(big), FP_STAT_WIRE_LONG, "one byte too long");
	emu4(&p);
	p.w.magic ^= 1;
	refused(&p, sizeof(p), FP_STAT_WIRE_BAD, "bad magic");
	emu4(&p);
	p.w.ver_type = (FP_VERSION + 1) << 4 | FP_EMULATION;
	refused(&p, sizeof(p), FP_STAT_WIRE_BAD, "another version");
	emu4(&p);
	p.w.ver_type = FP_VERSION << 4 | FP_CREDIT;
	refused(&p, sizeof(p), FP_STAT_WIRE_BAD, "a credit sent to the receiver role");
	emu4(&p);
	p.w.count = 0;
	refused(&p, sizeof(p), FP_STAT_WIRE_BAD, "count 0");
}

Test(flashpass_kern, other_traffic_passes_untouched)
{
	struct emu4 in, out;
	struct data4 d, dout;

	emu4(&in);
	in.udp.dest = htons(port + 1);
	cr_assert_eq(run(fd_recv, &in, sizeof(in), &out, 0).ret, TC_ACT_OK, "another UDP port");
	cr_assert_arr_eq(&out, &in, sizeof(in), "unchanged");
	emu4(&in);
	in.ip.frag_off = htons(0x2000); /* a first fragment: no L4 header to trust */
	cr_assert_eq(run(fd_recv, &in, sizeof(in), NULL, 0).ret, TC_ACT_OK, "a fragment");
	emu4(&in);
	cr_assert_eq(run(fd_recv, &in, 38, NULL, 0).ret, TC_ACT_OK, "cut in the UDP header");
	data4(&d, 100);
	cr_assert_eq(run(fd_recv, &d, sizeof(d) - 900, &dout, 0).ret, TC_ACT_OK, "TCP");
	cr_assert_eq(run(fd_out, &d, sizeof(d) - 900, &dout, 0).ret, TC_ACT_OK,
		     "sender egress: a flow without a ledger");
	cr_assert_arr_eq(&dout, &d, sizeof(d) - 900, "unchanged");
	cr_assert_eq(stat_of(FP_STAT_WIRE_SHORT) + stat_of(FP_STAT_WIRE_LONG) +
			     stat_of(FP_STAT_WIRE_BAD),
		     0);
}

Test(flashpass_kern, credits_of_the_flow_go_to_its_ledger_usable_at_t_plus_t_wait)
{
	uint64_t now = mono_ns();
	uint32_t t_us = (uint32_t)(now / 1000) - 5000; /* sent 5 ms ago */
	struct emu4 c;
	struct fp_ledger *l;

	ledger_new(FP_PHASE_CREDIT);
	credit4(&c, t_us, SECRET);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT, "credits end here");
	l = ledger();
	cr_assert_eq(l->credits_recv, 1);
	cr_assert_eq(l->ring.head, 1);
	cr_assert_eq(l->ring.at[0], t_us + 40000, "usable at T + 40 ms");
	cr_assert_eq(l->last_seq, 7);
	cr_assert_eq(stat_of(FP_STAT_CREDITS), 1);
}

Test(flashpass_kern, a_forged_or_unknown_credit_changes_nothing)
{
	struct emu4 c;
	struct fp_ledger *l;

	ledger_new(FP_PHASE_CREDIT);
	credit4(&c, T_PAST, SECRET ^ 1);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(stat_of(FP_STAT_CREDIT_FORGED), 1);
	credit4(&c, T_PAST, SECRET);
	c.udp.dest = htons(P_SND + 1); /* another flow's port */
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(stat_of(FP_STAT_CREDIT_UNKNOWN), 1);
	credit4(&c, T_PAST, SECRET);
	c.w.dport = htons(P_RCV + 1);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(stat_of(FP_STAT_CREDIT_UNKNOWN), 2);
	l = ledger();
	cr_assert_eq(l->credits_recv, 0, "no credit taken");
	cr_assert_eq(l->ring.head, 0);
	cr_assert_eq(stat_of(FP_STAT_CREDITS), 0);
}

/* Ledgers are keyed by the flow's network namespace: a credit that
 * arrives in this one finds no ledger another namespace's flow of the
 * same 4-tuple holds, and leaves it as it was. */
Test(flashpass_kern, a_credit_finds_no_ledger_of_another_namespace)
{
	struct fp_ledger other = { .secret = SECRET,
				   .phase = FP_PHASE_CREDIT,
				   .t_wait_ns = 40000000ULL };
	struct fp_ledger got;
	struct fp_key k;
	struct emu4 c;

	key_of_flow(&k);
	k.netns = this_netns() + 1; /* another namespace's cookie, or none */
	cr_assert_eq(bpf_map_update_elem(fd_ledgers, &k, &other, BPF_ANY), 0);
	credit4(&c, T_PAST, SECRET);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(stat_of(FP_STAT_CREDIT_UNKNOWN), 1, "no ledger in this namespace");
	ledger_new(FP_PHASE_CREDIT);
	credit4(&c, T_PAST, SECRET);
	c.w.seq = htonl(8);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(ledger()->credits_recv, 1, "this namespace's ledger credited");
	cr_assert_eq(bpf_map_lookup_elem(fd_ledgers, &k, &got), 0);
	cr_assert_eq(got.credits_recv, 0, "the other namespace's untouched");
	cr_assert_eq(got.ring.head, 0);
	cr_assert_eq(bpf_map_delete_elem(fd_ledgers, &k), 0);
}

/* A credit of the flow between link-local addresses @snd and @rcv. */
static void credit6(struct emu6 *p, const char *snd, const char *rcv, uint32_t t_us)
{
	struct emu4 v4;

	credit4(&v4, t_us, SECRET);
	memset(p, 0, sizeof(*p));
	p->eth = v4.eth;
	p->eth.h_proto = htons(ETH_P_IPV6);
	p->ip6.version = 6;
	p->ip6.payload_len = htons(sizeof(p->udp) + FP_WIRE_LEN);
	p->ip6.nexthdr = IPPROTO_UDP;
	p->ip6.hop_limit = 64;
	inet_pton(AF_INET6, rcv, &p->ip6.saddr);
	inet_pton(AF_INET6, snd, &p->ip6.daddr);
	p->udp = v4.udp;
	p->w = v4.w;
	p->udp.check = 0;
	p->udp.check =
		udp_csum(&p->ip6.saddr, &p->ip6.daddr, 16, &p->udp, sizeof(p->udp) + FP_WIRE_LEN);
}

/* A link-local flow's ledger is keyed by its interface too: the same
 * addresses on another link are another flow.  BPF_PROG_TEST_RUN runs
 * the packet on the loopback device, ifindex 1. */
Test(flashpass_kern, a_link_local_credit_goes_to_the_ledger_of_its_interface)
{
	struct fp_ledger l = { .secret = SECRET,
			       .phase = FP_PHASE_CREDIT,
			       .t_wait_ns = 40000000ULL };
	const char *snd = "fe80::1", *rcv = "fe80::2";
	uint32_t scopes[] = { 2, 0, 1 };
	struct fp_key k = { .sport = htons(P_SND), .dport = htons(P_RCV), .netns = this_netns() };
	struct fp_ledger got;
	struct emu6 c;

	inet_pton(AF_INET6, snd, k.saddr);
	inet_pton(AF_INET6, rcv, k.daddr);
	for (size_t i = 0; i < 3; i++) {
		k.scope = scopes[i];
		cr_assert_eq(bpf_map_update_elem(fd_ledgers, &k, &l, BPF_ANY), 0);
		credit6(&c, snd, rcv, T_PAST + (uint32_t)i);
		c.w.seq = htonl(7 + (uint32_t)i);
		c.udp.check = 0;
		c.udp.check = udp_csum(&c.ip6.saddr, &c.ip6.daddr, 16, &c.udp,
				       sizeof(c.udp) + FP_WIRE_LEN);
		cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
		cr_assert_eq(bpf_map_lookup_elem(fd_ledgers, &k, &got), 0);
		cr_assert_eq(got.credits_recv, scopes[i] == 1,
			     "scope %u: credited only on ifindex 1", scopes[i]);
		cr_assert_eq(bpf_map_delete_elem(fd_ledgers, &k), 0);
	}
	cr_assert_eq(stat_of(FP_STAT_CREDIT_UNKNOWN), 2, "the other links' ledgers: unknown");
	cr_assert_eq(stat_of(FP_STAT_CREDITS), 1);
}

/* A credit's T is this host's pacer's clock: one ahead of it is not its
 * own, and would sit in the ring ahead of every later credit. */
Test(flashpass_kern, a_credit_from_the_future_is_refused)
{
	uint32_t t_us = (uint32_t)(mono_ns() / 1000);
	struct emu4 c;

	ledger_new(FP_PHASE_CREDIT);
	credit4(&c, t_us + 2000000, SECRET); /* 2 s ahead */
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(ledger()->credits_recv, 0);
	cr_assert_eq(ledger()->ring.head, 0, "nothing banked");
	cr_assert_eq(stat_of(FP_STAT_CREDIT_FUTURE), 1);
	credit4(&c, t_us, SECRET);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(ledger()->credits_recv, 1, "its sequence number was not taken");
}

Test(flashpass_kern, a_batch_credit_is_refused_without_batching)
{
	struct emu4 c;

	ledger_new(FP_PHASE_CREDIT);
	credit4(&c, (uint32_t)(mono_ns() / 1000), SECRET);
	c.w.count = 2; /* with this end's credit_batch 1 */
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(stat_of(FP_STAT_WIRE_BAD), 1);
	cr_assert_eq(ledger()->credits_recv, 0);
}

Test(flashpass_kern, a_replayed_credit_is_taken_once)
{
	uint32_t t_us = (uint32_t)(mono_ns() / 1000);
	struct emu4 c;

	ledger_new(FP_PHASE_CREDIT);
	credit4(&c, t_us, SECRET); /* seq 7 */
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT, "the same again");
	cr_assert_eq(ledger()->credits_recv, 1, "taken once");
	cr_assert_eq(stat_of(FP_STAT_CREDIT_REPLAYED), 1);
	c.w.seq = htonl(9); /* 8 comes late */
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	c.w.seq = htonl(8);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(ledger()->credits_recv, 3, "reordered credits are taken");
	cr_assert_eq(ledger()->last_seq, 9, "the highest credited");
	c.w.seq = htonl(9 - FP_REPLAY_WIN); /* older than the window */
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(ledger()->credits_recv, 3);
	cr_assert_eq(stat_of(FP_STAT_CREDIT_REPLAYED), 2);
	cr_assert_eq(ledger()->ring.head, 3, "only the taken ones banked");
}

Test(flashpass_kern, a_full_ring_refuses_the_credit_as_wasted)
{
	static struct fp_ledger l;
	struct fp_key k;
	struct emu4 c;

	ledger_new(FP_PHASE_CREDIT);
	l = *ledger();
	l.ring.head = FP_RING - FP_RING_SLACK; /* full */
	key_of_flow(&k);
	cr_assert_eq(bpf_map_update_elem(fd_ledgers, &k, &l, BPF_ANY), 0);
	credit4(&c, T_PAST, SECRET);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(ledger()->ring.head, FP_RING - FP_RING_SLACK, "nothing overwritten");
	cr_assert_eq(ledger()->ring_wasted, 1);
	cr_assert_eq(ledger()->credits_recv, 1, "received, though");
	cr_assert_eq(stat_of(FP_STAT_CREDITS_WASTED), 1);
}

/* A ledger in @phase with @usable credits usable, @used spent. */
static void ledger_usable(uint32_t phase, uint64_t usable, uint64_t used)
{
	struct fp_ledger *l = ledger_new(phase);
	struct fp_key k;

	l->usable = usable;
	l->credits_used = used;
	key_of_flow(&k);
	cr_assert_eq(bpf_map_update_elem(fd_ledgers, &k, l, BPF_ANY), 0);
}

Test(flashpass_kern, data_under_a_usable_credit_is_scheduled_and_spends_it)
{
	struct data4 d, out;

	ledger_usable(FP_PHASE_CREDIT, 5, 3);
	data4(&d, 1000);
	d.ip.tos = 8 << 2; /* left by another tagger: rewritten */
	d.ip.check = 0;
	d.ip.check = csum_fold(csum_add(0, &d.ip, sizeof(d.ip)));
	cr_assert_eq(run(fd_out, &d, sizeof(d), &out, 0).ret, TC_ACT_OK);
	cr_assert_eq(out.ip.tos >> 2, 0, "scheduled: DSCP 0");
	cr_assert_eq(csum_fold(csum_add(0, &out.ip, sizeof(out.ip))), 0, "IP checksum valid");
	cr_assert_eq(ledger()->credits_used, 4, "one credit spent");
	cr_assert_eq(run(fd_out, &d, sizeof(d), &out, 2).ret, TC_ACT_OK);
	cr_assert_eq(out.ip.tos >> 2, 8, "a GSO frame of 2 with 1 credit left: unscheduled");
	cr_assert_eq(ledger()->credits_used, 4, "and it spends none");
	cr_assert_eq(stat_of(FP_STAT_DATA_SCHED), 1);
	cr_assert_eq(stat_of(FP_STAT_DATA_UNSCHED), 2);
	cr_assert_eq(stat_of(FP_STAT_CREDITS_USED), 1);
}

Test(flashpass_kern, data_without_a_credit_is_unscheduled)
{
	struct data4 d, out;

	data4(&d, 1000);
	ledger_usable(FP_PHASE_PRECREDIT, 0, 0);
	cr_assert_eq(run(fd_out, &d, sizeof(d), &out, 0).ret, TC_ACT_OK);
	cr_assert_eq(out.ip.tos >> 2, 8, "pre-credit data: unscheduled DSCP (CS1)");
	cr_assert_eq(out.ip.tos & 3, 0, "ECN bits kept");
	cr_assert_eq(csum_fold(csum_add(0, &out.ip, sizeof(out.ip))), 0);
	ledger_usable(FP_PHASE_CREDIT, 7, 7);
	cr_assert_eq(run(fd_out, &d, sizeof(d), &out, 0).ret, TC_ACT_OK);
	cr_assert_eq(out.ip.tos >> 2, 8, "every usable credit spent: unscheduled");
	cr_assert_eq(ledger()->credits_used, 7);
	ledger_usable(FP_PHASE_FALLBACK, 9, 0);
	d.ip.tos = 2;
	d.ip.check = 0;
	d.ip.check = csum_fold(csum_add(0, &d.ip, sizeof(d.ip)));
	cr_assert_eq(run(fd_out, &d, sizeof(d), &out, 0).ret, TC_ACT_OK);
	cr_assert_arr_eq(&out, &d, sizeof(d), "a fallen-back flow is left alone");
	data4(&d, 0);
	ledger_usable(FP_PHASE_PRECREDIT, 0, 0);
	cr_assert_eq(run(fd_out, &d, sizeof(d) - 1000, &out, 0).ret, TC_ACT_OK);
	cr_assert_eq(out.ip.tos, 0, "a pure ACK is no data");
	cr_assert_eq(stat_of(FP_STAT_DATA_UNSCHED), 2);
}

/*
 * Random and cut packets at every role: each ends dropped, passed or (the
 * receiver) reflected; the sender's ledger takes no credit, since none has
 * the secret, and every packet to the port is counted exactly once.
 */
Test(flashpass_kern, fuzz_no_packet_mis_accounts)
{
	uint64_t seen = 0, counted;
	struct emu4 base, p;
	uint8_t out[sizeof(p) + 64];
	unsigned seed = (unsigned)time(NULL);

	srand(seed);
	ledger_new(FP_PHASE_CREDIT);
	for (int i = 0; i < 20000; i++) {
		size_t len = sizeof(p);
		uint8_t *b = (uint8_t *)&p;
		int role = i % 2, ret;

		if (role)
			credit4(&base, (uint32_t)rand(), SECRET ^ 0x01010101U);
		else
			emu4(&base);
		p = base;
		/* flip 1-4 random bytes from the UDP header on, or cut the frame */
		for (int f = rand() % 4; f >= 0; f--)
			b[offsetof(struct emu4, udp) +
			  (size_t)rand() % (sizeof(p) - offsetof(struct emu4, udp))] =
				(uint8_t)rand();
		if (rand() % 4 == 0)
			len = 34 + (size_t)rand() % (sizeof(p) - 34); /* IP header whole: the
								      * kernel's test_run minimum */
		if (role ? p.udp.source == htons(port) : p.udp.dest == htons(port))
			seen += len == sizeof(p); /* a whole IP packet to/from the port */
		ret = run(role ? fd_in : fd_recv, &p, len, out, 0).ret;
		cr_assert(ret == TC_ACT_OK || ret == TC_ACT_SHOT || ret == TC_ACT_REDIRECT,
			  "seed %u, packet %d: verdict %d", seed, i, ret);
		cr_assert(role == 0 || ret != TC_ACT_REDIRECT,
			  "seed %u: the sender reflects nothing", seed);
	}
	counted = stat_of(FP_STAT_REFLECTED) + stat_of(FP_STAT_WIRE_SHORT) +
		  stat_of(FP_STAT_WIRE_LONG) + stat_of(FP_STAT_WIRE_BAD) +
		  stat_of(FP_STAT_CREDIT_FORGED) + stat_of(FP_STAT_CREDIT_UNKNOWN) +
		  stat_of(FP_STAT_CREDIT_REPLAYED);
	cr_assert_eq(counted, seen, "seed %u: each whole packet of the port counted once", seed);
	cr_assert_eq(ledger()->credits_recv, 0, "seed %u: no credit without the secret", seed);
	cr_assert_eq(stat_of(FP_STAT_CREDITS), 0);
}

TestSuite(flashpass_batch, .init = setup_batch, .fini = teardown);

Test(flashpass_batch, every_third_emulation_packet_comes_back_for_three)
{
	struct emu4 in, out;
	struct run r;

	for (uint32_t seq = 7; seq < 9; seq++) {
		emu4(&in);
		in.w.seq = htonl(seq);
		in.udp.check = 0;
		cr_assert_eq(run(fd_recv, &in, sizeof(in), NULL, 0).ret, TC_ACT_SHOT,
			     "packet %u is left to the batch's credit", seq);
	}
	emu4(&in); /* seq 7 again: a third packet, whatever its number */
	r = run(fd_recv, &in, sizeof(in), &out, 0);
	cr_assert_eq(r.ret, TC_ACT_REDIRECT, "the third comes back: %d", r.ret);
	cr_assert_eq(out.w.ver_type, FP_VERSION << 4 | FP_CREDIT);
	cr_assert_eq(out.w.count, 3, "standing for the three");
	cr_assert_eq(out.w.seq, in.w.seq, "with the last one's number");
	cr_assert_eq(udp_csum(&out.ip.saddr, &out.ip.daddr, 4, &out.udp,
			      sizeof(out.udp) + FP_WIRE_LEN),
		     0, "UDP checksum valid");
	cr_assert_eq(stat_of(FP_STAT_BATCHED), 2);
	cr_assert_eq(stat_of(FP_STAT_REFLECTED), 1);
	/* another flow's packets are another batch */
	emu4(&in);
	in.udp.source = htons(P_SND + 1);
	in.udp.check = 0;
	cr_assert_eq(run(fd_recv, &in, sizeof(in), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(stat_of(FP_STAT_BATCHED), 3);
}

Test(flashpass_batch, a_batch_credit_banks_its_count)
{
	uint32_t t_us = (uint32_t)(mono_ns() / 1000);
	struct emu4 c;

	ledger_new(FP_PHASE_CREDIT);
	credit4(&c, t_us, SECRET);
	c.w.count = 3;
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(ledger()->credits_recv, 3);
	cr_assert_eq(ledger()->ring.head, 3, "three credits banked");
	cr_assert_eq(stat_of(FP_STAT_CREDITS), 3);
	c.w.seq = htonl(10);
	c.w.count = 4; /* more than this end's batch */
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(stat_of(FP_STAT_WIRE_BAD), 1, "refused");
	cr_assert_eq(ledger()->credits_recv, 3);
}

/* A batch takes the sequence numbers of all its packets: one that claims
 * numbers an earlier credit took is a replay of them. */
Test(flashpass_batch, a_batch_credit_takes_its_packets_numbers)
{
	uint32_t t_us = (uint32_t)(mono_ns() / 1000);
	struct emu4 c;

	ledger_new(FP_PHASE_CREDIT);
	credit4(&c, t_us, SECRET);
	c.w.count = 3;
	c.w.seq = htonl(9); /* packets 7..9 */
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(ledger()->credits_recv, 3);
	c.w.seq = htonl(11); /* 9..11: 9 was taken */
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(ledger()->credits_recv, 3, "refused whole");
	cr_assert_eq(stat_of(FP_STAT_CREDIT_REPLAYED), 1);
	c.w.seq = htonl(12); /* 10..12 */
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(ledger()->credits_recv, 6);
	c.w.count = 1;
	c.w.seq = htonl(10);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(stat_of(FP_STAT_CREDIT_REPLAYED), 2, "10 was the last batch's");
}

/* A batch's credits keep their emulation packets' spacing (the pacer's
 * rate for the flow, 1 ms here): usable 2, 1 and 0 ms before the last. */
Test(flashpass_batch, a_batch_credit_keeps_its_packets_spacing)
{
	uint32_t t_us = (uint32_t)(mono_ns() / 1000);
	struct fp_emu e = { .rate = 1000 };
	struct fp_ledger *l;
	struct fp_key k;
	struct emu4 c;
	int fd_emu = bpf_map__fd(bpf_object__find_map_by_name(obj, "fp_emu"));

	ledger_new(FP_PHASE_CREDIT);
	key_of_flow(&k);
	cr_assert_eq(bpf_map_update_elem(fd_emu, &k, &e, BPF_ANY), 0);
	credit4(&c, t_us, SECRET);
	c.w.count = 3;
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	l = ledger();
	cr_assert_eq(l->ring.head, 3);
	for (uint32_t i = 0; i < 3; i++)
		cr_assert_eq(l->ring.at[i], t_us + 40000 - (2 - i) * 1000,
			     "credit %u usable at T + 40 ms - %u ms: %u", i, 2 - i,
			     l->ring.at[i] - t_us);
	/* no rate known for the flow (no pacer's entry): all at the last's time */
	cr_assert_eq(bpf_map_delete_elem(fd_emu, &k), 0);
	c.w.seq = htonl(10);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	l = ledger();
	cr_assert_eq(l->ring.head, 6);
	for (uint32_t i = 3; i < 6; i++)
		cr_assert_eq(l->ring.at[i], t_us + 40000);
}

Test(flashpass_batch, packets_without_the_secret_count_apart)
{
	struct emu4 in, out;

	for (int i = 0; i < 2; i++) {
		emu4(&in);
		in.w.secret = SECRET ^ 1; /* made up: not the flow's */
		cr_assert_eq(run(fd_recv, &in, sizeof(in), NULL, 0).ret, TC_ACT_SHOT);
	}
	emu4(&in);
	cr_assert_eq(run(fd_recv, &in, sizeof(in), &out, 0).ret, TC_ACT_SHOT,
		     "the flow's own first packet starts its own batch");
	emu4(&in);
	in.w.secret = SECRET ^ 1;
	cr_assert_eq(run(fd_recv, &in, sizeof(in), &out, 0).ret, TC_ACT_REDIRECT,
		     "the made-up batch comes back (and its sender refuses it as forged)");
	cr_assert_eq(out.w.secret, SECRET ^ 1);
}

/*
 * credit_ack: the sender's ingress keeps each flow's last pure ACK and
 * hands every credit it banked to the flow's socket as that ACK.
 */
static void setup_ack(void)
{
	/* (credit_ack applies without release only) */
	setup_with(2, (const char *[]){ "credit_ack", "release" }, (const uint64_t[]){ 1, 0 });
}

TestSuite(flashpass_ack, .init = setup_ack, .fini = teardown);

struct ack4 {
	struct ethhdr eth;
	struct iphdr ip;
	struct tcphdr tcp;
	uint8_t opt[12];
} __attribute__((packed));

struct ack6 {
	struct ethhdr eth;
	struct ipv6hdr ip6;
	struct tcphdr tcp;
	uint8_t opt[12];
} __attribute__((packed));

/* The timestamp echo of the receiver's pure ACK of @ack: which ACK was
 * kept shows in the ACKs credits become by it alone (fp_ack_now()). */
static uint32_t ack_tsecr(uint32_t ack)
{
	return ACK_TSECR + (ack - ACK_ACK);
}

/* The receiver's pure ACK of the flow, timestamps first as Linux sends
 * them, acknowledging @ack. */
static void ack4(struct ack4 *p, uint32_t ack)
{
	struct data4 d;
	uint32_t ts[2] = { htonl(ACK_TSVAL), htonl(ack_tsecr(ack)) };

	data4(&d, 0);
	memset(p, 0, sizeof(*p));
	p->eth = d.eth;
	p->ip = d.ip;
	p->ip.saddr = htonl(A_RCV);
	p->ip.daddr = htonl(A_SND);
	p->ip.tot_len = htons(sizeof(*p) - sizeof(p->eth));
	p->ip.check = 0;
	p->ip.check = csum_fold(csum_add(0, &p->ip, sizeof(p->ip)));
	p->tcp.source = htons(P_RCV);
	p->tcp.dest = htons(P_SND);
	p->tcp.seq = htonl(ACK_SEQ);
	p->tcp.ack_seq = htonl(ack);
	p->tcp.doff = 8;
	p->tcp.ack = 1;
	p->tcp.window = htons(ACK_WIN);
	memcpy(p->opt, "\x01\x01\x08\x0a", 4);
	memcpy(p->opt + 4, ts, 8);
	p->tcp.check = l4_csum(&p->ip.saddr, &p->ip.daddr, 4, IPPROTO_TCP, &p->tcp,
			       sizeof(p->tcp) + sizeof(p->opt));
}

/* @c's TCP header and options are a duplicate of what the flow's socket
 * holds (ledger_seq()) with the timestamp echo of the kept ACK (ack4(),
 * acknowledging @ack), in a whole, checksummed segment of the flow. */
static void assert_is_the_ack(struct tcphdr th, const uint8_t *opt, uint32_t ack)
{
	const struct tcphdr *t = &th;
	uint32_t ts[2] = { htonl(ACK_TSVAL), htonl(ack_tsecr(ack)) };

	cr_assert_eq(ntohs(t->source), P_RCV, "from the flow's remote port");
	cr_assert_eq(ntohs(t->dest), P_SND, "to its local one");
	cr_assert_eq(ntohl(t->seq), ACK_SEQ, "the socket's rcv_nxt");
	cr_assert_eq(ntohl(t->ack_seq), ACK_ACK - 1000, "the socket's snd_una");
	cr_assert_eq(ntohs(t->window), ACK_WIN, "the window the socket holds");
	cr_assert_eq(t->doff, 8);
	cr_assert(t->ack && !t->syn && !t->fin && !t->rst && !t->psh && !t->urg);
	cr_assert_arr_eq(opt, "\x01\x01\x08\x0a", 4, "NOP NOP timestamps");
	cr_assert_arr_eq(opt + 4, ts, 8, "the socket's timestamp, the kept ACK's echo");
}

Test(flashpass_ack, a_credit_becomes_the_flows_last_pure_ack)
{
	uint32_t t_us = (uint32_t)(mono_ns() / 1000);
	struct ack4 a, out;
	struct emu4 c;
	struct run r;

	ledger_new(FP_PHASE_CREDIT);
	credit4(&c, t_us, SECRET);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT,
		     "no ACK kept yet: the credit ends here");
	cr_assert_eq(stat_of(FP_STAT_CREDIT_ACKS), 0);
	ack4(&a, ACK_ACK);
	cr_assert_eq(run(fd_in, &a, sizeof(a), &out, 0).ret, TC_ACT_OK, "ACKs pass");
	cr_assert_arr_eq(&out, &a, sizeof(a), "untouched");
	credit4(&c, t_us, SECRET);
	c.w.seq = htonl(8);
	r = run(fd_in, &c, sizeof(c), &out, 0);
	cr_assert_eq(r.ret, TC_ACT_OK, "the credit goes up the stack");
	cr_assert_eq(r.len, sizeof(out), "as a whole ACK: %u bytes", r.len);
	cr_assert_arr_eq(&out.eth, &c.eth, sizeof(c.eth), "on the credit's link header");
	cr_assert_eq(out.ip.version, 4);
	cr_assert_eq(out.ip.ihl, 5);
	cr_assert_eq(ntohs(out.ip.tot_len), sizeof(out) - sizeof(out.eth));
	cr_assert_eq(out.ip.protocol, IPPROTO_TCP);
	cr_assert_eq(out.ip.saddr, htonl(A_RCV));
	cr_assert_eq(out.ip.daddr, htonl(A_SND));
	cr_assert_eq(csum_fold(csum_add(0, &out.ip, sizeof(out.ip))), 0, "IP checksum valid");
	cr_assert_eq(l4_csum(&out.ip.saddr, &out.ip.daddr, 4, IPPROTO_TCP, &out.tcp,
			     sizeof(out.tcp) + sizeof(out.opt)),
		     0, "TCP checksum valid");
	assert_is_the_ack(out.tcp, out.opt, ACK_ACK);
	cr_assert_eq(ledger()->credits_recv, 2, "both credits banked");
	cr_assert_eq(stat_of(FP_STAT_CREDIT_ACKS), 1);
}

Test(flashpass_ack, no_credit_becomes_an_ack_of_a_flow_without_sack)
{
	uint32_t t_us = (uint32_t)(mono_ns() / 1000);
	struct fp_ledger *l = ledger_new(FP_PHASE_CREDIT);
	struct ack4 a, out;
	struct emu4 c;
	struct fp_key k;

	l->sack_ok = 0;
	key_of_flow(&k);
	cr_assert_eq(bpf_map_update_elem(fd_ledgers, &k, l, BPF_ANY), 0);
	ack4(&a, ACK_ACK);
	cr_assert_eq(run(fd_in, &a, sizeof(a), &out, 0).ret, TC_ACT_OK, "ACKs pass");
	credit4(&c, t_us, SECRET);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT,
		     "without SACK three duplicate ACKs resend a segment: the credit ends here");
	cr_assert_eq(ledger()->credits_recv, 1, "banked all the same");
	cr_assert_eq(stat_of(FP_STAT_CREDIT_ACKS), 0);
}

Test(flashpass_ack, only_a_newer_pure_ack_replaces_the_kept_one)
{
	struct ack4 a, out;
	struct data4 d;
	struct emu4 c;

	ledger_new(FP_PHASE_CREDIT);
	ack4(&a, ACK_ACK);
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK);
	ack4(&a, ACK_ACK - 100); /* older: reordered */
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK);
	ack4(&a, ACK_ACK + 100); /* newer, across the wrap */
	a.tcp.fin = 1;
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK);
	data4(&d, 10); /* a segment with data from the receiver */
	d.ip.saddr = htonl(A_RCV);
	d.ip.daddr = htonl(A_SND);
	d.tcp.source = htons(P_RCV);
	d.tcp.dest = htons(P_SND);
	d.tcp.ack_seq = htonl(ACK_ACK + 200);
	cr_assert_eq(run(fd_in, &d, sizeof(d) - 990, NULL, 0).ret, TC_ACT_OK);
	credit4(&c, (uint32_t)(mono_ns() / 1000), SECRET);
	cr_assert_eq(run(fd_in, &c, sizeof(c), &out, 0).ret, TC_ACT_OK);
	assert_is_the_ack(out.tcp, out.opt, ACK_ACK);
	ack4(&a, ACK_ACK + 100);
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK);
	credit4(&c, (uint32_t)(mono_ns() / 1000), SECRET);
	c.w.seq = htonl(8);
	cr_assert_eq(run(fd_in, &c, sizeof(c), &out, 0).ret, TC_ACT_OK);
	assert_is_the_ack(out.tcp, out.opt, ACK_ACK + 100);
}

/*
 * The ingress sees an ACK before TCP has checked it: one "from the peer"
 * with numbers TCP would not take (an off-path host that guessed the
 * ports; its checksum need not even be right) is not kept, or every
 * later credit would be an ACK that TCP discards while the genuine ones,
 * older than it, never replace it.
 */
Test(flashpass_ack, an_ack_tcp_would_not_take_is_not_kept)
{
	static const struct {
		uint32_t seq, ack;
		const char *what;
	} bad[] = {
		{ ACK_SEQ, ACK_ACK + (1U << 30), "acknowledging 2^30 beyond what was sent" },
		{ ACK_SEQ, ACK_ACK + (1U << 31) - 2000, "acknowledging nearly 2^31 beyond" },
		{ ACK_SEQ, ACK_ACK + 1001, "acknowledging one byte beyond snd_nxt" },
	};
	struct ack4 a, out;
	struct emu4 c;
	uint32_t i;

	ledger_new(FP_PHASE_CREDIT);
	ack4(&a, ACK_ACK);
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ack4(&a, bad[i].ack);
		a.tcp.seq = htonl(bad[i].seq);
		a.tcp.check ^= 0x5555; /* wrong, as the tried attack's was */
		cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK,
			     "%s: passes, for TCP to judge", bad[i].what);
		cr_assert_eq(stat_of(FP_STAT_ACK_IMPLAUSIBLE), i + 1, "%s: counted", bad[i].what);
	}
	/* older than TCP has (a reordered genuine ACK; 2^31 away is older in
	 * serial arithmetic): not kept either, and not counted as forged */
	ack4(&a, ACK_ACK - 1001);
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK);
	ack4(&a, ACK_ACK + (1U << 31));
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK);
	cr_assert_eq(stat_of(FP_STAT_ACK_IMPLAUSIBLE), i, "old, not counted as forged");
	credit4(&c, (uint32_t)(mono_ns() / 1000), SECRET);
	cr_assert_eq(run(fd_in, &c, sizeof(c), &out, 0).ret, TC_ACT_OK);
	assert_is_the_ack(out.tcp, out.opt, ACK_ACK);
	/* the edge TCP takes: the whole of what was sent */
	ack4(&a, ACK_ACK + 1000);
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK);
	cr_assert_eq(stat_of(FP_STAT_ACK_IMPLAUSIBLE), i, "kept");
	credit4(&c, (uint32_t)(mono_ns() / 1000), SECRET);
	c.w.seq = htonl(8);
	cr_assert_eq(run(fd_in, &c, sizeof(c), &out, 0).ret, TC_ACT_OK);
	assert_is_the_ack(out.tcp, out.opt, ACK_ACK + 1000);
}

/* The sender's FIN takes a sequence number: the ACK of it is one TCP
 * takes, kept, not counted as forged. */
Test(flashpass_ack, the_ack_of_the_senders_fin_is_plausible)
{
	struct data4 fin, dout;
	struct ack4 a;

	ledger_new(FP_PHASE_CREDIT);
	ack4(&a, ACK_ACK + 1001);
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK);
	cr_assert_eq(stat_of(FP_STAT_ACK_IMPLAUSIBLE), 1, "before the FIN: one beyond");
	data4(&fin, 0);
	fin.tcp.seq = htonl(ACK_ACK + 1000);
	fin.tcp.fin = 1;
	cr_assert_eq(run(fd_out, &fin, sizeof(fin) - sizeof(fin.payload), &dout, 0).ret, TC_ACT_OK);
	cr_assert_eq(ledger()->seq_out, ACK_ACK + 1001, "the FIN's number sent");
	cr_assert_eq(stat_of(FP_STAT_DATA_SCHED) + stat_of(FP_STAT_DATA_UNSCHED), 0,
		     "a FIN alone is no data");
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK);
	cr_assert_eq(stat_of(FP_STAT_ACK_IMPLAUSIBLE), 1, "after it: taken");
	cr_assert_eq(ledger()->ack.ack, htonl(ACK_ACK + 1001), "and kept");
}

/* A ledger whose flow has sent nothing since init(): the egress's mark is
 * its snd_nxt then, and a ledger without one (0) widens nothing, whatever
 * half of the sequence space snd_nxt is in. */
Test(flashpass_ack, a_flow_that_sent_nothing_yet_takes_no_forged_ack)
{
	struct fp_ledger *l = ledger_new(FP_PHASE_CREDIT);
	struct ack4 a, out;
	struct emu4 c;
	struct fp_key k;

	l->snd_una = l->snd_nxt = ACK_ACK;
	l->seq_out = 0;
	key_of_flow(&k);
	cr_assert_eq(bpf_map_update_elem(fd_ledgers, &k, l, BPF_ANY), 0);
	ack4(&a, ACK_ACK);
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK);
	ack4(&a, ACK_ACK + (1U << 30));
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK);
	cr_assert_eq(stat_of(FP_STAT_ACK_IMPLAUSIBLE), 1, "2^30 ahead of snd_nxt: refused");
	credit4(&c, (uint32_t)(mono_ns() / 1000), SECRET);
	cr_assert_eq(run(fd_in, &c, sizeof(c), &out, 0).ret, TC_ACT_OK);
	cr_assert_eq(ntohl(out.tcp.ack_seq), ACK_ACK, "the socket's snd_una");
	cr_assert_eq(ntohl(*(uint32_t *)(out.opt + 8)), ack_tsecr(ACK_ACK), "the kept ACK's echo");
}

/*
 * The peer sent data since its last pure ACK (request/response, or both
 * ways at once): TCP moved rcv_nxt, ts_recent, snd_una and the window
 * past the kept ACK, and takes only an ACK at or after them.  The credit
 * becomes the socket's state as the CC recorded it.  The egress notes
 * what the socket's own segments acknowledge and echo (its rcv_wup and
 * ts_recent since), and nothing of a segment of no socket, as here
 * (BPF_PROG_TEST_RUN's has none: a raw socket's or another namespace's
 * is as foreign); t_flashpass_rpc runs the socket's own.
 */
Test(flashpass_ack, a_peer_that_sent_data_gets_the_sockets_sequence_and_timestamp)
{
	struct fp_ledger *l = ledger_new(FP_PHASE_CREDIT);
	struct data4 d, dout;
	struct ack4 a, out;
	struct emu4 c;
	struct fp_key k;

	ack4(&a, ACK_ACK);
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK, "kept");
	/* the CC at the peer's data segment: 3000 more of ours acknowledged,
	 * a window of 0x300, a later timestamp; the socket has a cookie */
	*l = *ledger();
	l->snd_una = ACK_ACK - 1000 + 3000;
	l->rcv_nxt = ACK_SEQ + 1448;
	l->wnd_raw = 0x300;
	l->ts_recent = ACK_TSVAL + 7;
	l->sk_cookie = 12345;
	key_of_flow(&k);
	cr_assert_eq(bpf_map_update_elem(fd_ledgers, &k, l, BPF_ANY), 0);
	credit4(&c, (uint32_t)(mono_ns() / 1000), SECRET);
	cr_assert_eq(run(fd_in, &c, sizeof(c), &out, 0).ret, TC_ACT_OK);
	cr_assert_eq(ntohl(out.tcp.seq), ACK_SEQ + 1448, "rcv_nxt as the CC saw it");
	cr_assert_eq(ntohl(out.tcp.ack_seq), ACK_ACK + 2000, "snd_una: not an old ACK");
	cr_assert_eq(ntohs(out.tcp.window), 0x300, "the window TCP holds");
	cr_assert_eq(ntohl(*(uint32_t *)(out.opt + 4)), ACK_TSVAL + 7, "ts_recent: PAWS passes");
	cr_assert_eq(ntohl(*(uint32_t *)(out.opt + 8)), ack_tsecr(ACK_ACK), "the kept ACK's echo");
	/* a pure ACK of the flow's addresses from no socket of its own */
	data4(&d, 0);
	d.tcp.seq = htonl(ACK_ACK + 1000);
	d.tcp.ack_seq = htonl(ACK_SEQ + 100000);
	cr_assert_eq(run(fd_out, &d, sizeof(d) - sizeof(d.payload), &dout, 0).ret, TC_ACT_OK);
	cr_assert_eq(ledger()->out_ok, 0, "not the socket's: noted nothing");
	cr_assert_eq(stat_of(FP_STAT_DATA_SCHED) + stat_of(FP_STAT_DATA_UNSCHED), 0, "no data");
	/* the CC writing (sock_ver odd): no ACK of a half-written state */
	l->sock_ver = 1;
	cr_assert_eq(bpf_map_update_elem(fd_ledgers, &k, l, BPF_ANY), 0);
	credit4(&c, (uint32_t)(mono_ns() / 1000), SECRET);
	c.w.seq = htonl(8);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT, "the credit ends here");
}

/* No window known yet (0 at init, or a zero window): an ACK would set
 * it; and a flow in fallback (its CC records nothing): no credit ACK. */
Test(flashpass_ack, no_ack_without_a_window_or_in_fallback)
{
	struct fp_ledger *l = ledger_new(FP_PHASE_CREDIT);
	struct ack4 a;
	struct emu4 c;
	struct fp_key k;

	ack4(&a, ACK_ACK);
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK, "kept");
	*l = *ledger();
	l->wnd_raw = 0;
	key_of_flow(&k);
	cr_assert_eq(bpf_map_update_elem(fd_ledgers, &k, l, BPF_ANY), 0);
	credit4(&c, (uint32_t)(mono_ns() / 1000), SECRET);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT, "window 0: no ACK");
	l->wnd_raw = ACK_WIN;
	l->phase = FP_PHASE_FALLBACK;
	cr_assert_eq(bpf_map_update_elem(fd_ledgers, &k, l, BPF_ANY), 0);
	credit4(&c, (uint32_t)(mono_ns() / 1000), SECRET);
	c.w.seq = htonl(8);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT, "fallback: no ACK");
	cr_assert_eq(stat_of(FP_STAT_CREDIT_ACKS), 0);
}

Test(flashpass_ack, a_bad_credit_never_becomes_an_ack)
{
	struct ack4 a;
	struct emu4 c;

	ledger_new(FP_PHASE_CREDIT);
	ack4(&a, ACK_ACK);
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK);
	credit4(&c, T_PAST, SECRET ^ 1);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT, "forged");
	credit4(&c, T_PAST, SECRET);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_OK);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT, "replayed");
	credit4(&c, T_PAST, SECRET);
	c.udp.dest = htons(P_SND + 1);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT, "another flow's");
	credit4(&c, T_PAST, SECRET);
	c.w.seq = htonl(9);
	c.udp.len = htons(sizeof(c.udp) + FP_WIRE_LEN - 1);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT, "cut short");
	cr_assert_eq(stat_of(FP_STAT_CREDIT_ACKS), 1, "only the one good credit");
}

Test(flashpass_ack, an_ipv6_credit_becomes_an_ipv6_ack)
{
	const char *snd = "2001:db8::1", *rcv = "2001:db8::2";
	struct fp_ledger l = { .secret = SECRET, .phase = FP_PHASE_CREDIT, .sack_ok = 1 };
	struct fp_key k = { .sport = htons(P_SND), .dport = htons(P_RCV), .netns = this_netns() };
	struct ack6 a, out;
	struct ack4 a4;
	struct emu6 c;
	struct run r;

	inet_pton(AF_INET6, snd, k.saddr);
	inet_pton(AF_INET6, rcv, k.daddr);
	ledger_seq(&l);
	cr_assert_eq(bpf_map_update_elem(fd_ledgers, &k, &l, BPF_ANY), 0);
	ack4(&a4, ACK_ACK);
	memset(&a, 0, sizeof(a));
	a.eth = a4.eth;
	a.eth.h_proto = htons(ETH_P_IPV6);
	a.ip6.version = 6;
	a.ip6.payload_len = htons(sizeof(a.tcp) + sizeof(a.opt));
	a.ip6.nexthdr = IPPROTO_TCP;
	a.ip6.hop_limit = 64;
	inet_pton(AF_INET6, rcv, &a.ip6.saddr);
	inet_pton(AF_INET6, snd, &a.ip6.daddr);
	a.tcp = a4.tcp;
	memcpy(a.opt, a4.opt, sizeof(a.opt));
	a.tcp.check = 0;
	a.tcp.check = l4_csum(&a.ip6.saddr, &a.ip6.daddr, 16, IPPROTO_TCP, &a.tcp,
			      sizeof(a.tcp) + sizeof(a.opt));
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK);
	credit6(&c, snd, rcv, (uint32_t)(mono_ns() / 1000));
	r = run(fd_in, &c, sizeof(c), &out, 0);
	cr_assert_eq(r.ret, TC_ACT_OK);
	cr_assert_eq(r.len, sizeof(out), "%u bytes", r.len);
	cr_assert_eq(out.ip6.version, 6);
	cr_assert_eq(out.ip6.nexthdr, IPPROTO_TCP);
	cr_assert_eq(ntohs(out.ip6.payload_len), sizeof(out.tcp) + sizeof(out.opt));
	cr_assert_arr_eq(&out.ip6.saddr, &a.ip6.saddr, 16);
	cr_assert_arr_eq(&out.ip6.daddr, &a.ip6.daddr, 16);
	cr_assert_eq(l4_csum(&out.ip6.saddr, &out.ip6.daddr, 16, IPPROTO_TCP, &out.tcp,
			     sizeof(out.tcp) + sizeof(out.opt)),
		     0, "TCP checksum valid");
	assert_is_the_ack(out.tcp, out.opt, ACK_ACK);
}

/* Releases (release, the default): the pacer's release of a flow, to its
 * sender's own egress, stamped with its credit's usable time. */
TestSuite(flashpass_release, .init = setup, .fini = teardown);

static void release4(struct emu4 *p, uint32_t stamp)
{
	emu4(p);
	p->ip.tos = 0;
	p->ip.check = 0;
	p->ip.check = csum_fold(csum_add(0, &p->ip, sizeof(p->ip)));
	wire(&p->w, FP_RELEASE, 7, stamp);
	p->udp.check = 0;
}

Test(flashpass_release, a_due_release_grants_and_stamps_the_ledger)
{
	uint32_t now_us = (uint32_t)(mono_ns() / 1000), old = now_us - 5000, own = now_us - 1000;
	struct fp_ledger *l = ledger_new(FP_PHASE_CREDIT);
	struct fp_key k;
	struct ack4 a;
	struct emu4 rel;

	ack4(&a, ACK_ACK);
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK,
		     "the ACK a release becomes");
	l = ledger();
	cr_assert(fp_ring_put(&l->ring, old), "a credit whose release never came");
	cr_assert(fp_ring_put(&l->ring, own), "the release's own");
	l->last_credit_ns = mono_ns(); /* no drought (fp_credit_drought()) */
	key_of_flow(&k);
	cr_assert_eq(bpf_map_update_elem(fd_ledgers, &k, l, BPF_EXIST), 0);

	release4(&rel, own);
	cr_assert_eq(run(fd_out, &rel, sizeof(rel), NULL, 0).ret, TC_ACT_REDIRECT,
		     "into the host, as the flow's ACK");
	l = ledger();
	cr_assert_eq(l->grants, 1);
	cr_assert_eq(l->rel_stamp, own, "the CC expires what is usable before it");
	cr_assert_eq(stat_of(FP_STAT_RELEASES), 1);
	/* what the CC then does (fp_release_grants()): the older credit
	 * expires, the release's own is left to take */
	cr_assert_eq(fp_ring_take(&l->ring, fp_expire_before(l->rel_stamp), FP_RING), 1);
	cr_assert_eq(fp_ring_oldest(&l->ring), own);

	release4(&rel, own);
	rel.w.secret = SECRET + 1;
	cr_assert_eq(run(fd_out, &rel, sizeof(rel), NULL, 0).ret, TC_ACT_SHOT, "a forged one");
	cr_assert_eq(stat_of(FP_STAT_CREDIT_FORGED), 1);
	key_of_flow(&k);
	l->ring.tail = l->ring.head; /* no credit left */
	cr_assert_eq(bpf_map_update_elem(fd_ledgers, &k, l, BPF_EXIST), 0);
	release4(&rel, now_us + 1000000);
	cr_assert_eq(run(fd_out, &rel, sizeof(rel), NULL, 0).ret, TC_ACT_SHOT,
		     "nothing due: dropped");
	l = ledger();
	cr_assert_eq(l->grants, 1, "no grant");
	cr_assert_eq(l->rel_stamp, own, "nor stamp");
	cr_assert_eq(stat_of(FP_STAT_RELEASES_IDLE), 1);
}

/*
 * The credit loop (loop=1): a credit becomes its flow's next emulation
 * packet at the sender's ingress, numbered in the flow's loop; the
 * egress numbers the pacer's first packets (FP_WIRE_SEED) once.  (A
 * clone is a real transmission, on the loopback device here.)
 */
static void loop_cfg(uint64_t r_max)
{
	struct fp_loop_cfg c = {
		.r_max = r_max,
		.host_pps = r_max,
		.rc = { .max_loss = 128, .min_loss = 32, .w_min = 16, .w_max = 64, .start = 256 }
	};
	uint32_t zero = 0;
	int fd = bpf_map__fd(bpf_object__find_map_by_name(obj, "fp_loop_cfg"));

	cr_assert_eq(bpf_map_update_elem(fd, &zero, &c, BPF_ANY), 0);
}

static void setup_loop(void)
{
	setup_tuned("loop", 1);
	loop_cfg(7706);
}

/* as it runs: credits as ACKs, no release */
static void setup_loop_ack(void)
{
	setup_with(3, (const char *[]){ "loop", "credit_ack", "release" },
		   (const uint64_t[]){ 1, 1, 0 });
	loop_cfg(7706);
}

TestSuite(flashpass_loop, .init = setup_loop, .fini = teardown);

/* The loop of a flow @l (its ledger, written) in its credit phase with
 * data to send: 5 packets out (numbers 7..11, 12 next), a window of 5 at
 * its rate over the credit's 10 ms: the credit of 7 leaves 4 out and
 * becomes 1. */
static void loop_of(struct fp_ledger *l, const struct fp_key *k)
{
	l->demand_segs = 100;
	l->last_seq = 6;
	l->seen = 1;
	l->loop.seq = 12;
	l->loop.rc.rate = 500; /* pps: 5 over 10 ms */
	l->loop.rtt_ns = 10000000ULL;
	l->loop.iv_end_ns = mono_ns() + 1000000000ULL; /* no rate decision now */
	cr_assert_eq(bpf_map_update_elem(fd_ledgers, k, l, BPF_ANY), 0);
}

static void ledger_loop(void)
{
	struct fp_key k;

	key_of_flow(&k);
	loop_of(ledger_new(FP_PHASE_CREDIT), &k);
}

static void ledger_loop_set(uint32_t seq, uint64_t demand, uint64_t tat)
{
	struct fp_ledger *l;
	struct fp_key k;

	ledger_loop();
	l = ledger();
	l->loop.seq = seq;
	l->demand_segs = demand;
	l->loop.tat = tat;
	key_of_flow(&k);
	cr_assert_eq(bpf_map_update_elem(fd_ledgers, &k, l, BPF_EXIST), 0);
}

static void credit4_summed(struct emu4 *c, uint32_t seq)
{
	credit4(c, (uint32_t)(mono_ns() / 1000) - 10000, SECRET);
	memcpy(c->eth.h_dest, "\x02\0\0\0\0\x01", 6);	/* this host */
	memcpy(c->eth.h_source, "\x02\0\0\0\0\x09", 6); /* the next hop */
	c->w.seq = htonl(seq);
	c->ip.ttl = 61; /* three hops back */
	c->ip.check = 0;
	c->ip.check = csum_fold(csum_add(0, &c->ip, sizeof(c->ip)));
	c->udp.check =
		udp_csum(&c->ip.saddr, &c->ip.daddr, 4, &c->udp, sizeof(c->udp) + FP_WIRE_LEN);
}

static void assert_emu4(const struct emu4 *out, const struct emu4 *c, uint32_t seq)
{
	cr_assert_arr_eq(out->eth.h_dest, c->eth.h_source, 6, "to the neighbour it came from");
	cr_assert_arr_eq(out->eth.h_source, c->eth.h_dest, 6);
	cr_assert_eq(out->ip.saddr, htonl(A_SND), "from the flow's sender");
	cr_assert_eq(out->ip.daddr, htonl(A_RCV), "to its receiver");
	cr_assert_eq(out->ip.tos, 2, "ECT(0), DSCP 0");
	cr_assert_eq(out->ip.ttl, 64);
	cr_assert_eq(csum_fold(csum_add(0, &out->ip, sizeof(out->ip))), 0, "IP checksum valid");
	cr_assert_eq(out->udp.source, htons(P_SND));
	cr_assert_eq(out->udp.dest, htons(port));
	cr_assert_eq(out->w.ver_type, FP_VERSION << 4 | FP_EMULATION);
	cr_assert_eq(out->w.count, 1);
	cr_assert_eq(out->w.flags, 0);
	cr_assert_eq(out->w.secret, SECRET);
	cr_assert_eq(out->w.dport, htons(P_RCV));
	cr_assert_eq(ntohl(out->w.seq), seq, "numbered %u in the loop", ntohl(out->w.seq));
	cr_assert_leq((uint32_t)(mono_ns() / 1000) - ntohl(out->w.t_us), 1000000, "T is now");
	cr_assert_eq(udp_csum(&out->ip.saddr, &out->ip.daddr, 4, &out->udp,
			      sizeof(out->udp) + FP_WIRE_LEN),
		     0, "UDP checksum valid");
}

Test(flashpass_loop, a_credit_becomes_the_flows_next_emulation_packet)
{
	struct emu4 c, out;
	struct fp_ledger *l;
	struct run r;

	ledger_loop();
	credit4_summed(&c, 7);
	r = run(fd_in, &c, sizeof(c), &out, 0);
	cr_assert_eq(r.ret, TC_ACT_REDIRECT, "out again: %d", r.ret);
	cr_assert_eq(r.len, sizeof(c));
	assert_emu4(&out, &c, 12);
	l = ledger();
	cr_assert_eq(l->credits_recv, 1, "banked as any credit");
	cr_assert_eq(l->loop.seq, 13);
	cr_assert_eq(l->loop.sent, 1);
	cr_assert_eq(stat_of(FP_STAT_LOOP_SENT), 1);
	cr_assert_eq(stat_of(FP_STAT_LOOP_GROWN), 0);
	cr_assert_gt(l->loop.rtt_ns, 0);
	/* the egress leaves it as it is: it was numbered */
	r = run(fd_out, &out, sizeof(out), &c, 0);
	cr_assert_eq(r.ret, TC_ACT_OK);
	cr_assert_arr_eq(&c, &out, sizeof(c), "not numbered again");
	cr_assert_eq(ledger()->loop.seq, 13);
}

/* Below its window a credit becomes two: a clone (sent on the loopback
 * device) and the credit itself, numbered one after the other. */
Test(flashpass_loop, below_its_window_a_credit_becomes_two)
{
	struct emu4 c, out;

	ledger_loop_set(11, 100, 0); /* 3 out after the credit of 7 */
	credit4_summed(&c, 7);
	cr_assert_eq(run(fd_in, &c, sizeof(c), &out, 0).ret, TC_ACT_REDIRECT);
	assert_emu4(&out, &c, 12);
	cr_assert_eq(ledger()->loop.seq, 13, "11 the clone's, 12 the credit's");
	cr_assert_eq(ledger()->loop.sent, 2);
	cr_assert_eq(stat_of(FP_STAT_LOOP_GROWN), 1);
}

/* The pacer's first packets of a loop: the egress numbers each once. */
Test(flashpass_loop, the_egress_numbers_a_seed_once)
{
	struct emu4 e, out, again;

	ledger_loop();
	emu4(&e);
	e.w.secret = SECRET;
	e.w.flags = FP_WIRE_SEED;
	e.udp.check = 0;
	e.udp.check = udp_csum(&e.ip.saddr, &e.ip.daddr, 4, &e.udp, sizeof(e.udp) + FP_WIRE_LEN);
	cr_assert_eq(run(fd_out, &e, sizeof(e), &out, 0).ret, TC_ACT_OK);
	cr_assert_eq(ntohl(out.w.seq), 12);
	cr_assert_eq(out.w.flags, 0, "no longer a seed");
	cr_assert_eq(udp_csum(&out.ip.saddr, &out.ip.daddr, 4, &out.udp,
			      sizeof(out.udp) + FP_WIRE_LEN),
		     0, "UDP checksum valid");
	cr_assert_eq(run(fd_out, &out, sizeof(out), &again, 0).ret, TC_ACT_OK);
	cr_assert_arr_eq(&again, &out, sizeof(out), "a second hook leaves it");
	cr_assert_eq(ledger()->loop.seq, 13);
}

Test(flashpass_loop, a_credit_above_the_window_or_without_demand_ends)
{
	struct emu4 c;

	ledger_loop_set(20, 100, 0); /* 12 out after the credit of 7: above 5 */
	credit4_summed(&c, 7);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(ledger()->loop.ended, 1);
	ledger_loop_set(12, 0, 0);
	credit4_summed(&c, 7);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT, "nothing to send");
	cr_assert_eq(stat_of(FP_STAT_LOOP_ENDED), 2);
	cr_assert_eq(stat_of(FP_STAT_LOOP_SENT), 0);
}

/* Expected credits that cover the demand: the packet a credit becomes is
 * over-provisioned (Not-ECT, flagged), or with no over-provisioning
 * there is none. */
Test(flashpass_loop, a_covered_demand_sends_over_provisioned_or_none)
{
	int fd = bpf_map__fd(bpf_object__find_map_by_name(obj, "fp_loop_cfg"));
	struct fp_loop_cfg cfg;
	struct emu4 c, out;
	uint32_t zero = 0;

	/* 4 out after the credit of 7 (8..11), 3.5 of them expected (max_loss
	 * 128/1024): 3 segments are covered, 4 are not */
	ledger_loop_set(12, 4, 0);
	credit4_summed(&c, 7);
	cr_assert_eq(run(fd_in, &c, sizeof(c), &out, 0).ret, TC_ACT_REDIRECT);
	cr_assert_eq(out.ip.tos, 2, "4 segments: normal, ECT(0)");
	ledger_loop_set(12, 3, 0);
	credit4_summed(&c, 7);
	cr_assert_eq(run(fd_in, &c, sizeof(c), &out, 0).ret, TC_ACT_REDIRECT);
	cr_assert_eq(out.ip.tos, 0, "3 segments: over-provisioned, Not-ECT");
	cr_assert_eq(out.w.flags, FP_WIRE_OVER);
	cr_assert_eq(bpf_map_lookup_elem(fd, &zero, &cfg), 0);
	cfg.rc.no_over = 1;
	cr_assert_eq(bpf_map_update_elem(fd, &zero, &cfg, BPF_ANY), 0);
	ledger_loop_set(12, 3, 0);
	credit4_summed(&c, 7);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT,
		     "no over-provisioning: no packet");
	cr_assert_eq(ledger()->loop.ended, 1);
	ledger_loop_set(12, 4, 0);
	credit4_summed(&c, 7);
	cr_assert_eq(run(fd_in, &c, sizeof(c), &out, 0).ret, TC_ACT_REDIRECT,
		     "a normal one still leaves");
	cr_assert_eq(out.ip.tos, 2);
	cr_assert_eq(stat_of(FP_STAT_LOOP_SENT), 3);
}

/* Untrusted as any credit: a forged, replayed or future one, or one of a
 * packet the loop has not sent, makes no packet. */
Test(flashpass_loop, a_bad_credit_makes_no_packet)
{
	struct emu4 c;

	ledger_loop();
	credit4_summed(&c, 7);
	c.w.secret = SECRET + 1;
	c.udp.check = 0;
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT, "forged");
	credit4_summed(&c, 7);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_REDIRECT);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT, "replayed");
	credit4_summed(&c, 8);
	c.w.t_us = htonl((uint32_t)(mono_ns() / 1000) + 5000000);
	c.udp.check = 0;
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT, "from the future");
	credit4_summed(&c, 13);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT,
		     "of a packet not sent yet (13 is the next)");
	cr_assert_eq(stat_of(FP_STAT_LOOP_SENT), 1);
	cr_assert_eq(stat_of(FP_STAT_CREDIT_REPLAYED), 2);
	/* a loop that sent one packet: numbers 2^31 away are not its own */
	ledger_loop_set(1, 100, 0);
	credit4_summed(&c, 0x80000001U);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT, "half the space away");
	cr_assert_eq(ledger()->credits_recv, 0);
}

/* An IPv4 header with options would be rewritten wrong: the loop ends. */
Test(flashpass_loop, a_credit_with_ip_options_ends_its_loop)
{
	struct {
		struct ethhdr eth;
		struct iphdr ip;
		uint8_t opt[4];
		struct udphdr udp;
		struct fp_wire w;
	} __attribute__((packed)) o;
	struct emu4 c;

	ledger_loop();
	credit4_summed(&c, 7);
	memcpy(&o.eth, &c.eth, sizeof(o.eth) + sizeof(o.ip));
	memset(o.opt, IPOPT_NOP, sizeof(o.opt));
	o.ip.ihl = 6;
	o.ip.tot_len = htons(ntohs(c.ip.tot_len) + 4);
	o.ip.check = 0;
	o.ip.check = csum_fold(csum_add(0, &o.ip, sizeof(o.ip) + sizeof(o.opt)));
	memcpy(&o.udp, &c.udp, sizeof(o.udp) + sizeof(o.w));
	cr_assert_eq(run(fd_in, &o, sizeof(o), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(ledger()->credits_recv, 1, "banked");
	cr_assert_eq(stat_of(FP_STAT_LOOP_ENDED), 1);
}

Test(flashpass_loop, an_ipv6_credit_becomes_an_ipv6_emulation_packet)
{
	const char *snd = "2001:db8::1", *rcv = "2001:db8::2";
	struct fp_key k = { .sport = htons(P_SND), .dport = htons(P_RCV), .netns = this_netns() };
	struct fp_ledger l = { .secret = SECRET,
			       .phase = FP_PHASE_CREDIT,
			       .t_wait_ns = 40000000ULL };
	struct emu6 c, out;

	inet_pton(AF_INET6, snd, k.saddr);
	inet_pton(AF_INET6, rcv, k.daddr);
	loop_of(&l, &k);
	credit6(&c, snd, rcv, (uint32_t)(mono_ns() / 1000) - 10000);
	c.ip6.hop_limit = 61;
	cr_assert_eq(run(fd_in, &c, sizeof(c), &out, 0).ret, TC_ACT_REDIRECT);
	cr_assert_arr_eq(&out.ip6.saddr, &c.ip6.daddr, 16, "from the flow's sender");
	cr_assert_arr_eq(&out.ip6.daddr, &c.ip6.saddr, 16);
	cr_assert_eq(out.ip6.hop_limit, 64);
	cr_assert_eq(ntohl(*(uint32_t *)&out.ip6) >> 20 & 0xff, 2, "traffic class ECT(0)");
	cr_assert_eq(out.w.ver_type, FP_VERSION << 4 | FP_EMULATION);
	cr_assert_eq(ntohl(out.w.seq), 12);
	cr_assert_eq(udp_csum(&out.ip6.saddr, &out.ip6.daddr, 16, &out.udp,
			      sizeof(out.udp) + FP_WIRE_LEN),
		     0, "UDP checksum valid");
	/* IPv6 wants a UDP checksum: a credit without one carries nothing */
	loop_of(&l, &k);
	credit6(&c, snd, rcv, (uint32_t)(mono_ns() / 1000) - 10000);
	c.w.seq = htonl(8);
	c.udp.check = 0;
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
}

/* However fast good credits come, a loop sends at most r_max after a
 * burst: a flow whose next packet is due later than a burst's time. */
Test(flashpass_loop, a_loop_sends_at_most_r_max)
{
	uint64_t gap = NSEC_PER_SEC / 7706;
	struct emu4 c;

	ledger_loop_set(12, 100, mono_ns() + FP_RX_BURST * gap + 50000000ULL);
	credit4_summed(&c, 7);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(ledger()->credits_recv, 1, "banked all the same");
	cr_assert_eq(stat_of(FP_STAT_LOOP_ENDED), 1);
	/* just inside the burst: one more goes */
	ledger_loop_set(12, 100, mono_ns() + (FP_RX_BURST - 2) * gap);
	credit4_summed(&c, 7);
	cr_assert_eq(run(fd_in, &c, sizeof(c), NULL, 0).ret, TC_ACT_REDIRECT);
}

/* Without the pacer's options (fp_loop_cfg: cleared when it stops) no
 * loop runs. */
Test(flashpass_loop, no_loop_without_the_pacer)
{
	struct emu4 in;

	loop_cfg(0);
	ledger_loop();
	credit4_summed(&in, 7);
	cr_assert_eq(run(fd_in, &in, sizeof(in), NULL, 0).ret, TC_ACT_SHOT);
	cr_assert_eq(stat_of(FP_STAT_LOOP_SENT), 0);
}

TestSuite(flashpass_loop_ack, .init = setup_loop_ack, .fini = teardown);

/* As it runs (credit_ack): the credit's packet is a clone, and the credit
 * becomes the flow's ACK, with the MAC addresses it came with. */
Test(flashpass_loop_ack, a_credit_becomes_a_packet_and_the_flows_ack)
{
	struct ack4 a, out;
	struct emu4 c;
	struct run r;

	ledger_loop();
	ack4(&a, ACK_ACK);
	cr_assert_eq(run(fd_in, &a, sizeof(a), NULL, 0).ret, TC_ACT_OK, "the kept ACK");
	credit4_summed(&c, 7);
	r = run(fd_in, &c, sizeof(c), &out, 0);
	cr_assert_eq(r.ret, TC_ACT_OK, "up the stack: %d", r.ret);
	cr_assert_eq(r.len, sizeof(out));
	cr_assert_arr_eq(&out.eth, &c.eth, sizeof(out.eth), "the MACs it came with");
	cr_assert_eq(out.ip.protocol, IPPROTO_TCP);
	assert_is_the_ack(out.tcp, out.opt, ACK_ACK);
	cr_assert_eq(ledger()->loop.sent, 1, "its packet: a clone");
	cr_assert_eq(ledger()->loop.seq, 13);
	cr_assert_eq(stat_of(FP_STAT_CREDIT_ACKS), 1);
}
