// SPDX-License-Identifier: GPL-2.0
/*
 * The switch program's decisions, in the kernel, on crafted packets
 * (BPF_PROG_TEST_RUN): ECT vs Not-ECT under and over K, over the buffer,
 * class limits, bursts, arrivals at a given rate, malformed packets.
 *
 * The virtual queue runs on the real clock, so each case sets the queue
 * state (backlog, clock) just before the packet, on a slow link where the
 * microseconds between the two drain a negligible number of bytes.
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
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "switch.h"
#include "switch.skel.h"
#include "util.h"

#define LEN_MSS 1448

struct pkt4 {
	struct ethhdr eth;
	struct iphdr ip;
	struct tcphdr tcp;
	uint8_t payload[LEN_MSS];
} __attribute__((packed));

struct pkt6 {
	struct ethhdr eth;
	struct ipv6hdr ip6;
	struct tcphdr tcp;
	uint8_t payload[LEN_MSS];
} __attribute__((packed));

static struct switch_bpf *skel;
static int prog_fd, state_fd;

static uint16_t ip_csum(const void *hdr, size_t len)
{
	const uint16_t *p = hdr;
	uint32_t sum = 0;

	for (; len > 1; len -= 2)
		sum += *p++;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void make4(struct pkt4 *p, uint8_t tos)
{
	memset(p, 0, sizeof(*p));
	p->eth.h_proto = htons(ETH_P_IP);
	p->ip.version = 4;
	p->ip.ihl = 5;
	p->ip.tos = tos;
	p->ip.tot_len = htons(sizeof(*p) - sizeof(p->eth));
	p->ip.ttl = 64;
	p->ip.protocol = IPPROTO_TCP;
	p->ip.saddr = htonl(0x0a000001);
	p->ip.daddr = htonl(0x0a000002);
	p->ip.check = ip_csum(&p->ip, sizeof(p->ip));
	p->tcp.doff = 5;
}

static uint32_t load_queue = SW_QUEUE_VIRTUAL; /* the next load()'s --queue */

static void load(uint64_t rate, uint32_t buffer, uint32_t k, const uint32_t *limits, int dscp,
		 int dscp_cls)
{
	skel = switch_bpf__open();
	cr_assert_not_null(skel, "open switch: %s", strerror(errno));
	skel->rodata->cfg.rate_bps = rate;
	skel->rodata->cfg.buffer = buffer;
	skel->rodata->cfg.ecn_k = k;
	skel->rodata->cfg.queue = load_queue;
	load_queue = SW_QUEUE_VIRTUAL;
	if (limits)
		memcpy((void *)skel->rodata->cfg.class_limit, limits,
		       sizeof(uint32_t) * SW_CLASSES);
	if (dscp >= 0)
		skel->rodata->cfg.dscp_class[dscp] = (uint8_t)dscp_cls;
	cr_assert_eq(switch_bpf__load(skel), 0, "load switch (are we root?)");
	prog_fd = bpf_program__fd(skel->progs.ccs_switch);
	state_fd = bpf_map__fd(skel->maps.sw_state);
}

static void teardown(void)
{
	switch_bpf__destroy(skel);
	skel = NULL;
}

static struct sw_state get_state(void)
{
	struct sw_state s;
	uint32_t zero = 0;

	cr_assert_eq(bpf_map_lookup_elem_flags(state_fd, &zero, &s, BPF_F_LOCK), 0);
	return s;
}

/* Set the queue, keep the counters. */
static void set_backlog(uint64_t backlog)
{
	struct sw_state s = get_state();
	uint32_t zero = 0;

	s.backlog = backlog;
	s.max_backlog = backlog;
	s.last_ns = mono_ns();
	cr_assert_eq(bpf_map_update_elem(state_fd, &zero, &s, BPF_F_LOCK), 0);
}

/* Run one packet; the (possibly rewritten) packet comes back in @out. */
static int run(const void *in, size_t len, void *out, int repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in, .data_size_in = (uint32_t)len,
		    .data_out = out, .data_size_out = (uint32_t)len, .repeat = repeat);

	cr_assert_eq(bpf_prog_test_run_opts(prog_fd, &o), 0, "test_run: %s", strerror(errno));
	return (int)o.retval;
}

/* 1 Mbit/s drains 125 bytes per ms: the gap between set_backlog() and the
 * packet cannot move the queue across a threshold 10 kB away. */
#define SLOW 1000000ULL

Test(switch_kern, ect_under_k_passes_unmarked, .fini = teardown)
{
	struct pkt4 in, out;

	load(SLOW, 100000, 30000, NULL, -1, 0);
	make4(&in, 0x02); /* ECT(0) */
	set_backlog(10000);
	cr_assert_eq(run(&in, sizeof(in), &out, 1), TC_ACT_OK);
	cr_assert_eq(out.ip.tos, 0x02, "not marked below K");
	cr_assert_eq(get_state().cls[0].marked, 0);
	cr_assert_eq(get_state().cls[0].pkts, 1);
}

Test(switch_kern, ect_over_k_is_marked_with_valid_checksum, .fini = teardown)
{
	struct pkt4 in, out;

	load(SLOW, 100000, 30000, NULL, -1, 0);
	make4(&in, 0x02 | (10 << 2)); /* ECT(0), DSCP 10 kept */
	set_backlog(40000);
	cr_assert_eq(run(&in, sizeof(in), &out, 1), TC_ACT_OK);
	cr_assert_eq(out.ip.tos, 0x03 | (10 << 2), "CE set, DSCP kept: tos %#x", out.ip.tos);
	cr_assert_eq(ip_csum(&out.ip, sizeof(out.ip)), 0, "IPv4 header checksum still valid");
	cr_assert_eq(get_state().cls[0].marked, 1);
	cr_assert_eq(get_state().cls[0].dropped, 0);
}

Test(switch_kern, not_ect_over_k_passes_unmarked, .fini = teardown)
{
	struct pkt4 in, out;
	struct sw_state s;

	load(SLOW, 100000, 30000, NULL, -1, 0);
	make4(&in, 0x00);
	set_backlog(40000);
	cr_assert_eq(run(&in, sizeof(in), &out, 1), TC_ACT_OK);
	cr_assert_eq(out.ip.tos, 0x00);
	s = get_state();
	cr_assert_eq(s.cls[0].marked, 0);
	cr_assert_eq(s.cls[0].not_ect_over_k, 1);
}

Test(switch_kern, over_buffer_is_dropped_ect_or_not, .fini = teardown)
{
	struct pkt4 in, out;

	load(SLOW, 100000, 30000, NULL, -1, 0);
	make4(&in, 0x02);
	set_backlog(100000 - 100); /* the packet does not fit */
	cr_assert_eq(run(&in, sizeof(in), &out, 1), TC_ACT_SHOT);
	make4(&in, 0x00);
	set_backlog(100000 - 100);
	cr_assert_eq(run(&in, sizeof(in), &out, 1), TC_ACT_SHOT);
	cr_assert_eq(get_state().cls[0].dropped, 2);
	cr_assert_eq(get_state().cls[0].dropped_bytes, 2 * sizeof(in));
}

Test(switch_kern, ipv6_ect_over_k_gets_ce_in_traffic_class, .fini = teardown)
{
	struct pkt6 in, out;

	load(SLOW, 100000, 30000, NULL, -1, 0);
	memset(&in, 0, sizeof(in));
	in.eth.h_proto = htons(ETH_P_IPV6);
	in.ip6.version = 6;
	in.ip6.priority = 0; /* traffic class 0x02: ECT(0) */
	in.ip6.flow_lbl[0] = 0x20;
	in.ip6.nexthdr = IPPROTO_TCP;
	in.ip6.payload_len = htons(sizeof(in.tcp) + LEN_MSS);
	set_backlog(40000);
	cr_assert_eq(run(&in, sizeof(in), &out, 1), TC_ACT_OK);
	cr_assert_eq(out.ip6.flow_lbl[0] >> 4, 0x3, "traffic class ECN bits = CE");
	cr_assert_eq(out.ip6.priority, 0, "DSCP untouched");
	cr_assert_eq(get_state().cls[0].marked, 1);
}

Test(switch_kern, lower_class_limit_drops_first, .fini = teardown)
{
	const uint32_t limits[SW_CLASSES] = { 0, 20000, 0, 0 };
	struct pkt4 in, out;

	load(SLOW, 100000, 0, limits, 8, 1); /* DSCP 8 (CS1) is class 1 */
	make4(&in, 8 << 2);
	set_backlog(25000);
	cr_assert_eq(run(&in, sizeof(in), &out, 1), TC_ACT_SHOT, "class 1 over its 20 kB limit");
	make4(&in, 0);
	set_backlog(25000);
	cr_assert_eq(run(&in, sizeof(in), &out, 1), TC_ACT_OK, "class 0 fits in the buffer");
	cr_assert_eq(get_state().cls[1].dropped, 1);
	cr_assert_eq(get_state().cls[0].pkts, 1);
}

/* Each class keeps the highest queue one of its packets joined: a class
 * held to a lower limit never shows one above it, however high the queue
 * goes with the other classes' packets. */
Test(switch_kern, each_class_keeps_the_peak_it_joined, .fini = teardown)
{
	const uint32_t limits[SW_CLASSES] = { 0, 20000, 0, 0 };
	struct pkt4 in, out;
	struct sw_state s;

	load(SLOW, 100000, 0, limits, 8, 1);
	make4(&in, 8 << 2);
	set_backlog(10000);
	cr_assert_eq(run(&in, sizeof(in), &out, 1), TC_ACT_OK, "class 1 under its limit");
	make4(&in, 0);
	cr_assert_eq(run(&in, sizeof(in), &out, 1), TC_ACT_OK);
	set_backlog(50000);
	cr_assert_eq(run(&in, sizeof(in), &out, 1), TC_ACT_OK, "class 0 to the buffer");
	make4(&in, 8 << 2);
	cr_assert_eq(run(&in, sizeof(in), &out, 1), TC_ACT_SHOT, "class 1 above its limit");
	s = get_state();
	/* SLOW drains a few bytes between set_backlog() and the packet */
	cr_assert(s.cls[1].max_backlog <= 10000 + sizeof(in) &&
			  s.cls[1].max_backlog > 10000 + sizeof(in) - 200,
		  "class 1 joined at 10 kB: %llu", (unsigned long long)s.cls[1].max_backlog);
	cr_assert(s.cls[0].max_backlog <= 50000 + sizeof(in) &&
			  s.cls[0].max_backlog > 50000 + sizeof(in) - 200,
		  "class 0 joined at 50 kB: %llu", (unsigned long long)s.cls[0].max_backlog);
	cr_assert_eq(s.cls[0].max_backlog, s.max_backlog, "the port's peak is class 0's");
	cr_assert_eq(s.cls[2].max_backlog, 0, "no class 2 packet");
}

Test(switch_kern, burst_fills_buffer_then_drops, .fini = teardown)
{
	struct pkt4 in, out;
	struct sw_state s;
	uint64_t fit;

	load(SLOW, 30000, 0, NULL, -1, 0);
	make4(&in, 0);
	set_backlog(0);
	/* 100 back-to-back packets: the kernel runs them within a few ms,
	 * in which 1 Mbit/s drains at most a packet or two. */
	cr_assert_eq(run(&in, sizeof(in), &out, 100), TC_ACT_SHOT, "the last one is dropped");
	s = get_state();
	fit = 30000 / sizeof(in);
	cr_assert(s.cls[0].pkts >= fit && s.cls[0].pkts <= fit + 2, "%llu packets queued, %llu fit",
		  (unsigned long long)s.cls[0].pkts, (unsigned long long)fit);
	cr_assert_eq(s.cls[0].pkts + s.cls[0].dropped, 100);
	cr_assert(s.max_backlog <= 30000 && s.max_backlog > 30000 - sizeof(in));
}

/* Offered load of 2x the link rate for 50 ms: the queue grows by what
 * arrives minus what the link sends, measured on the same clock. */
Test(switch_kern, arrivals_above_rate_build_the_queue_below_rate_do_not, .fini = teardown)
{
	const uint64_t rate = 10000000; /* 10 Mbit/s */
	struct pkt4 in, out;
	uint64_t t0, t1, gap, sent = 0, expect;
	struct sw_state s;
	int i;

	load(rate, 1 << 20, 0, NULL, -1, 0);
	make4(&in, 0);

	/* Below the rate (half of it): the queue never holds two packets.
	 * Each packet waits a gap after the previous one, so a stall of
	 * this process never turns into a burst. */
	gap = sizeof(in) * 8 * NSEC_PER_SEC / rate * 2;
	set_backlog(0);
	for (i = 0, t1 = mono_ns(); i < 20; i++) {
		while (mono_ns() < t1 + gap)
			;
		t1 = mono_ns();
		run(&in, sizeof(in), &out, 1);
	}
	s = get_state();
	cr_assert(s.max_backlog <= 2 * sizeof(in), "max backlog %llu at half rate",
		  (unsigned long long)s.max_backlog);

	/* Above the rate (twice it).  The drain is reckoned on the switch's
	 * own clock, from the first packet's arrival to the last's: this
	 * process's clock before and after took in its stalls (a stall after
	 * the last packet read as a drain that did not happen). */
	gap /= 4;
	set_backlog(0);
	for (i = 0, t0 = mono_ns(); i < 80; i++) {
		while (mono_ns() < t0 + (uint64_t)i * gap)
			;
		run(&in, sizeof(in), &out, 1);
		sent += sizeof(in);
		if (i == 0)
			t1 = get_state().last_ns;
	}
	s = get_state();
	expect = sent - sw_bytes_in(s.last_ns - t1, rate);
	cr_assert(s.backlog + 2 * sizeof(in) >= expect && s.backlog <= expect + 2 * sizeof(in),
		  "backlog %llu, expected %llu (+-2 packets)", (unsigned long long)s.backlog,
		  (unsigned long long)expect);
}

/* An IPv4 header whose bytes do not hold up: wrong version, too short a
 * header, or a frame shorter than the header claims.  Each passes, is not
 * judged as ECN-capable (not marked above K), and counts as malformed. */
Test(switch_kern, malformed_ipv4_is_not_ect_and_counted, .fini = teardown)
{
	struct pkt4 in, out;
	int i;

	load(SLOW, 100000, 30000, NULL, -1, 0);
	for (i = 0; i < 4; i++) {
		size_t len = sizeof(in);

		make4(&in, 0x02);
		switch (i) {
		case 0: in.ip.ihl = 3; break;		    /* below 5 */
		case 1: in.ip.version = 6; break;	    /* an IPv4 ethertype, not IPv4 */
		case 2: in.ip.tot_len = htons(4000); break; /* beyond the frame */
		case 3:					    /* options claimed, none there */
			in.ip.ihl = 15;
			len = sizeof(in.eth) + sizeof(in.ip);
			in.ip.tot_len = htons(sizeof(in.ip));
			break;
		}
		set_backlog(40000);
		cr_assert_eq(run(&in, len, &out, 1), TC_ACT_OK, "case %d", i);
		cr_assert_eq(out.ip.tos, 0x02, "case %d: not rewritten", i);
	}
	cr_assert_eq(get_state().cls[0].marked, 0);
	cr_assert_eq(get_state().malformed, 4);
}

/* An IPv6 header whose payload length runs past the frame (a frame cut
 * inside the header itself BPF_PROG_TEST_RUN refuses: it needs the base
 * L3 header): it runs, passes unmarked, counts as malformed. */
Test(switch_kern, ipv6_payload_beyond_the_frame, .fini = teardown)
{
	struct pkt6 in, out;
	size_t len = sizeof(in.eth) + sizeof(in.ip6);

	load(SLOW, 100000, 30000, NULL, -1, 0);
	memset(&in, 0, sizeof(in));
	in.eth.h_proto = htons(ETH_P_IPV6);
	in.ip6.version = 6;
	in.ip6.flow_lbl[0] = 0x20; /* ECT(0) */
	in.ip6.payload_len = htons(1000);
	set_backlog(40000);
	cr_assert_eq(run(&in, len, &out, 1), TC_ACT_OK);
	cr_assert_eq(out.ip6.flow_lbl[0], 0x20, "not marked");
	cr_assert_eq(get_state().malformed, 1);
	cr_assert_eq(get_state().cls[0].marked, 0);
}

/* Tagged frames are judged by the IP packet inside: one 802.1Q tag, or
 * 802.1ad outside 802.1Q (QinQ); ECT above K is marked there. */
struct pkt4_vlan {
	uint8_t mac[12];
	struct {
		uint16_t tpid, tci;
	} __attribute__((packed)) tag[2];
	uint16_t proto;
	struct iphdr ip;
	struct tcphdr tcp;
	uint8_t payload[LEN_MSS];
} __attribute__((packed));

static void make4_vlan(struct pkt4_vlan *v, int tags, uint8_t tos)
{
	struct pkt4 p;
	uint8_t *b = (uint8_t *)v;
	size_t l3 = 12 + 4 * tags + 2;

	make4(&p, tos);
	memset(v, 0, sizeof(*v));
	if (tags == 2) {
		memcpy(b + 12,
		       (uint16_t[]){ htons(ETH_P_8021AD), htons(100), htons(ETH_P_8021Q),
				     htons(200) },
		       8);
	} else {
		memcpy(b + 12, (uint16_t[]){ htons(ETH_P_8021Q), htons(100) }, 4);
	}
	memcpy(b + l3 - 2, (uint16_t[]){ htons(ETH_P_IP) }, 2);
	memcpy(b + l3, &p.ip, sizeof(p) - sizeof(p.eth));
}

Test(switch_kern, vlan_and_qinq_frames_are_judged_by_their_ip_header, .fini = teardown)
{
	struct pkt4_vlan in, out;
	int tags;

	load(SLOW, 100000, 30000, NULL, -1, 0);
	for (tags = 1; tags <= 2; tags++) {
		size_t l3 = 12 + 4 * tags + 2,
		       len = l3 + sizeof(struct iphdr) + sizeof(struct tcphdr) + LEN_MSS;
		struct iphdr ip;

		make4_vlan(&in, tags, 0x02);
		set_backlog(40000);
		cr_assert_eq(run(&in, len, &out, 1), TC_ACT_OK);
		memcpy(&ip, (uint8_t *)&out + l3, sizeof(ip));
		cr_assert_eq(ip.tos, 0x03, "%d tag(s): CE set, tos %#x", tags, ip.tos);
		cr_assert_eq(ip_csum(&ip, sizeof(ip)), 0, "%d tag(s): checksum valid", tags);
	}
	cr_assert_eq(get_state().cls[0].marked, 2);
	cr_assert_eq(get_state().malformed, 0);
}

/* A GSO frame is judged whole and counts as its segments. */
Test(switch_kern, gso_frame_counts_its_segments, .fini = teardown)
{
	struct pkt4 in, out;
	struct __sk_buff ctx = { .gso_segs = 4, .gso_size = LEN_MSS };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = &in, .data_size_in = sizeof(in),
		    .data_out = &out, .data_size_out = sizeof(out), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = 1);

	load(SLOW, 100000, 30000, NULL, -1, 0);
	make4(&in, 0x02);
	set_backlog(40000);
	cr_assert_eq(bpf_prog_test_run_opts(prog_fd, &o), 0, "test_run: %s", strerror(errno));
	cr_assert_eq(o.retval, TC_ACT_OK);
	cr_assert_eq(get_state().cls[0].marked, 4);
	cr_assert_eq(get_state().cls[0].pkts, 4);
	set_backlog(100000 - 100);
	cr_assert_eq(bpf_prog_test_run_opts(prog_fd, &o), 0);
	cr_assert_eq(o.retval, TC_ACT_SHOT);
	cr_assert_eq(get_state().cls[0].dropped, 4);
}

/* A counter reset is a request (sw_ctl) the program carries out at its
 * next packet, under its lock: the counters start again, the queue and
 * its clock go on from where the program had them. */
Test(switch_kern, reset_request_keeps_the_queue_and_its_clock, .fini = teardown)
{
	struct sw_ctl ctl = { .reset_gen = 1 };
	struct pkt4 in, out;
	struct sw_state before, after;
	uint32_t zero = 0;
	int ctl_fd;

	load(SLOW, 100000, 30000, NULL, -1, 0);
	ctl_fd = bpf_map__fd(skel->maps.sw_ctl);
	make4(&in, 0x02);
	set_backlog(40000);
	cr_assert_eq(run(&in, sizeof(in), &out, 3), TC_ACT_OK);
	before = get_state();
	cr_assert_eq(before.cls[0].marked, 3);
	cr_assert_eq(bpf_map_update_elem(ctl_fd, &zero, &ctl, 0), 0);
	cr_assert_eq(get_state().cls[0].marked, 3, "nothing changes before the next packet");
	cr_assert_eq(run(&in, sizeof(in), &out, 1), TC_ACT_OK);
	after = get_state();
	cr_assert_eq(after.reset_gen, 1);
	cr_assert_eq(after.cls[0].marked, 1, "the counters start again with this packet");
	cr_assert_eq(after.cls[0].pkts, 1);
	cr_assert_geq(after.last_ns, before.last_ns, "the queue clock is not put back");
	cr_assert_geq(after.backlog + 200, before.backlog + sizeof(in), "the queue goes on");
}

/* --queue qdisc on a port whose root is not tbf (test runs go out on lo,
 * whose root is noqueue): there is no backlog to read, so the packet is
 * judged on the virtual queue and counted, never on a queue of 0. */
Test(switch_kern, qdisc_mode_without_tbf_uses_the_virtual_queue, .fini = teardown)
{
	struct pkt4 in, out;

	load_queue = SW_QUEUE_QDISC;
	load(SLOW, 100000, 30000, NULL, -1, 0);
	cr_assert_eq(skel->rodata->cfg.queue, SW_QUEUE_QDISC);
	make4(&in, 0x02);
	set_backlog(40000);
	cr_assert_eq(run(&in, sizeof(in), &out, 1), TC_ACT_OK);
	cr_assert_eq(out.ip.tos, 0x03, "judged on the 40 kB virtual queue: above K, marked");
	cr_assert_eq(get_state().no_real, 1);
}

/* An emulation packet: Not-ECT IPv4 UDP to emu_port 7190. */
struct emu_pkt {
	struct ethhdr eth;
	struct iphdr ip;
	struct udphdr udp;
	uint8_t payload[18];
} __attribute__((packed));

/* The switch with FlashPass's emulation queue (its passed packets joining
 * @emu_class, 0: none) and @p an emulation packet for it: UDP to
 * emu_port, 8 frames, Not-ECT above 2, drained at 1 Mbit/s * 84/1622 here
 * (one frame per 13 ms: a burst of test runs drains nothing). */
static uint32_t load_emu_keep; /* the next load_emu()'s --emu-keep */

static void load_emu(uint32_t emu_class, struct emu_pkt *p)
{
	skel = switch_bpf__open();
	cr_assert_not_null(skel);
	skel->rodata->cfg.rate_bps = SLOW;
	skel->rodata->cfg.buffer = 100000;
	skel->rodata->cfg.emu_port = 7190;
	skel->rodata->cfg.emu_rate_bps = SLOW / 1622 * 84;
	skel->rodata->cfg.emu_buffer = 8 * SW_EMU_FRAME;
	skel->rodata->cfg.emu_over = 2 * SW_EMU_FRAME;
	skel->rodata->cfg.emu_class = emu_class;
	skel->rodata->cfg.emu_keep_pct = load_emu_keep;
	cr_assert_eq(switch_bpf__load(skel), 0);
	prog_fd = bpf_program__fd(skel->progs.ccs_switch);
	state_fd = bpf_map__fd(skel->maps.sw_state);

	memset(p, 0, sizeof(*p));
	p->eth.h_proto = htons(ETH_P_IP);
	p->ip.version = 4;
	p->ip.ihl = 5;
	p->ip.tot_len = htons(sizeof(*p) - sizeof(p->eth));
	p->ip.ttl = 64;
	p->ip.protocol = IPPROTO_UDP;
	p->ip.check = ip_csum(&p->ip, sizeof(p->ip));
	p->udp.dest = htons(7190);
	p->udp.len = htons(sizeof(p->udp) + sizeof(p->payload));
}

Test(switch_kern, emulation_packets_have_their_own_queue, .fini = teardown)
{
	struct emu_pkt p;
	struct sw_state e;
	uint32_t key = SW_STATE_EMU;
	int i;

	load_emu(0, &p);
	for (i = 0; i < 3; i++)
		cr_assert_eq(run(&p, sizeof(p), NULL, 1), i < 2 ? TC_ACT_OK : TC_ACT_SHOT,
			     "Not-ECT emulation packet %d", i + 1);
	p.ip.tos = 2; /* ECT(0) */
	p.ip.check = 0;
	p.ip.check = ip_csum(&p.ip, sizeof(p.ip));
	for (i = 2; i < 9; i++)
		cr_assert_eq(run(&p, sizeof(p), NULL, 1), i < 8 ? TC_ACT_OK : TC_ACT_SHOT,
			     "ECT emulation packet %d", i + 1);
	cr_assert_eq(bpf_map_lookup_elem_flags(state_fd, &key, &e, BPF_F_LOCK), 0);
	cr_assert_eq(e.cls[0].pkts, 2);
	cr_assert_eq(e.cls[0].dropped, 1);
	cr_assert_eq(e.cls[1].pkts, 6);
	cr_assert_eq(e.cls[1].dropped, 1);
	cr_assert_eq(get_state().cls[0].pkts + get_state().cls[0].dropped, 0,
		     "the data queue saw none of them");
	p.udp.dest = htons(7191);
	cr_assert_eq(run(&p, sizeof(p), NULL, 1), TC_ACT_OK, "UDP to another port is data");
	cr_assert_eq(get_state().cls[0].pkts, 1);
}

/* Run @p with skb->priority @prio in; the verdict, and the priority out. */
static int run_prio(const void *p, size_t len, uint32_t *prio)
{
	struct __sk_buff ctx = { .priority = *prio };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p, .data_size_in = (uint32_t)len,
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .ctx_out = &ctx,
		    .ctx_size_out = sizeof(ctx), .repeat = 1);

	cr_assert_eq(bpf_prog_test_run_opts(prog_fd, &o), 0, "test_run: %s", strerror(errno));
	*prio = ctx.priority;
	return (int)o.retval;
}

/* --emu-class: an emulation packet the queue passes joins the class
 * (skb->priority); one it drops and data keep theirs. */
Test(switch_kern, passed_emulation_packets_join_the_emulation_class, .fini = teardown)
{
	struct emu_pkt p;
	uint32_t prio;
	int i;

	load_emu(0x10020, &p);
	for (i = 0; i < 2; i++) {
		prio = 6;
		cr_assert_eq(run_prio(&p, sizeof(p), &prio), TC_ACT_OK);
		cr_assert_eq(prio, 0x10020, "passed packet %d: priority %#x", i + 1, prio);
	}
	prio = 6;
	cr_assert_eq(run_prio(&p, sizeof(p), &prio), TC_ACT_SHOT, "Not-ECT over 2 is dropped");
	cr_assert_eq(prio, 6, "a dropped one keeps its priority");
	p.udp.dest = htons(7191);
	cr_assert_eq(run_prio(&p, sizeof(p), &prio), TC_ACT_OK, "UDP to another port is data");
	cr_assert_eq(prio, 6, "data keeps its priority");
}

/* --emu-keep: the emulation queue reads what class 0's data passed (the
 * data queue's count) and averages its rate over 5 ms windows; without
 * it, it reads nothing.  10 frames of class 0, a window later an
 * emulation packet: a rate above 0, at most the 10 frames over the 5 ms. */
static uint64_t other_bps_after_data(uint32_t keep)
{
	struct emu_pkt p;
	struct pkt4 d;
	struct sw_state e;
	uint32_t key = SW_STATE_EMU;
	int i;

	load_emu_keep = keep;
	load_emu(0, &p);
	load_emu_keep = 0;
	cr_assert_eq(run(&p, sizeof(p), NULL, 1), TC_ACT_OK, "the first starts the window");
	make4(&d, 0);
	for (i = 0; i < 10; i++)
		cr_assert_eq(run(&d, sizeof(d), NULL, 1), TC_ACT_OK, "class 0 frame %d", i + 1);
	cr_assert_eq(get_state().other_bytes, 10 * sizeof(d), "the data queue counts them");
	usleep(6000);
	cr_assert_eq(run(&p, sizeof(p), NULL, 1), TC_ACT_OK);
	cr_assert_eq(bpf_map_lookup_elem_flags(state_fd, &key, &e, BPF_F_LOCK), 0);
	return e.other_bps;
}

Test(switch_kern, the_emulation_measures_class_0_only_when_it_yields, .fini = teardown)
{
	uint64_t r = other_bps_after_data(50);

	/* 10 frames of 1502 bytes over 6 ms or more, a quarter of it */
	cr_assert(r > 0 && r <= 10ULL * 1502 * 8 * 1000 / 6 / 4 + 1, "%llu bit/s",
		  (unsigned long long)r);
	teardown();
	cr_assert_eq(other_bps_after_data(0), 0, "without --emu-keep: not measured");
}
