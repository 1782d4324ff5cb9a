// SPDX-License-Identifier: GPL-2.0
/*
 * The packet side of bpf_flashpass, linked into the algorithm's object with
 * bpf/flashpass.bpf.c (one ledger map, one stats map, one .rodata):
 *
 *   fp_receiver     receiver ingress: each emulation packet becomes a
 *                   credit, sent back out of the same device (addresses,
 *                   ports and MACs swapped, type changed, all else echoed);
 *   fp_sender_in    sender ingress: each credit of a known flow with the
 *                   flow's secret goes into its ledger's ring, usable at
 *                   T + T_wait; every credit is dropped before the stack,
 *                   or with credit_ack handed to the flow's socket as a
 *                   copy of the flow's last pure ACK, which it keeps;
 *   fp_sender_out   sender egress: each data frame of a FlashPass flow
 *                   spends a usable credit per segment (the CC let it out
 *                   under them), tagged scheduled; a frame with no credit
 *                   for it (pre-credit data, a probe of a flow out of
 *                   credit) is tagged unscheduled, for the switch to drop
 *                   first.  With release, the pacer's release of a flow
 *                   whose oldest credit is usable becomes the flow's ACK
 *                   of nothing new, turned back into this host.
 *
 * Emulation and credit packets come from the network: a packet to (or
 * from) the FlashPass port that is not exactly one well-formed fp_wire is
 * dropped and counted, and nothing past the frame's end is read.
 */
#define CCS_LINKED_PART
#include "flashpass.bpf.h"
#include "parse.bpf.h"

char _license[] SEC("license") = "GPL";

/*
 * The network namespace (its cookie) of the device @skb is on, which is
 * the namespace of the socket a flow's packet leaves or reaches there:
 * what the CC keys the flow's ledger by (fp_netns_of()), so that a
 * program in one namespace finds no ledger of another's.  Read from the
 * kernel's sk_buff (the program's context): no TC helper names it on
 * 6.1, and bpf_get_netns_cookie() names the packet's socket's, which an
 * arriving packet has not got yet.  0 if it cannot be read: a key of no
 * namespace, which finds nothing.
 */
static __always_inline __u64 fp_skb_netns(struct __sk_buff *skb)
{
	struct sk_buff *kskb = (struct sk_buff *)skb;

	return BPF_CORE_READ(kskb, dev, nd_net.net, net_cookie);
}

/* The fp_wire that is the UDP payload at @c, @len bytes by its header
 * (ccs_pkt_udp()), if the datagram is one of @type. */
static __always_inline enum fp_wire_err fp_wire_load(struct ccs_cursor *c, int len,
						     struct fp_wire *w, enum fp_type type)
{
	/* the datagram must lie inside the IP packet */
	if (len < 0)
		return FP_WIRE_SHORT;
	if (len != FP_WIRE_LEN)
		return len < FP_WIRE_LEN ? FP_WIRE_SHORT : FP_WIRE_LONG;
	if (ccs_cur_pull(c, w, FP_WIRE_LEN))
		return FP_WIRE_SHORT;
	return fp_wire_check(w, FP_WIRE_LEN, type);
}

static __always_inline int fp_wire_drop(enum fp_wire_err e)
{
	if (e == FP_WIRE_SHORT)
		ccs_stat_inc(FP_STAT_WIRE_SHORT);
	else if (e == FP_WIRE_LONG)
		ccs_stat_inc(FP_STAT_WIRE_LONG);
	else
		ccs_stat_inc(FP_STAT_WIRE_BAD);
	return TC_ACT_SHOT;
}

/* Swap the @len-byte halves of the 2 * @len bytes at @off. */
static __always_inline int fp_swap(struct __sk_buff *skb, __u32 off, __u32 len)
{
	__u8 b[32];

	if (len > 16 || bpf_skb_load_bytes(skb, off, b, 2 * len))
		return -1;
	if (bpf_skb_store_bytes(skb, off, b + len, len, 0) ||
	    bpf_skb_store_bytes(skb, off + len, b, len, 0))
		return -1;
	return 0;
}

/*
 * Turn the emulation packet at @p into its credit.  Swapping addresses
 * and ports leaves both checksums as they are (a one's-complement sum
 * does not depend on order); the type byte and, on IPv4, the TOS byte are
 * patched into them.  A credit is not data: Not-ECT, DSCP 0 (the IPv4 TOS
 * byte, the IPv6 traffic class, which no checksum covers).
 */
static __always_inline int fp_reflect(struct __sk_buff *skb, const struct ccs_pkt *p)
{
	__u32 udp = p->l4_off, wire = udp + sizeof(struct udphdr);
	__u16 oldw, neww;

	if (fp_swap(skb, 0, 6)) /* Ethernet destination and source */
		return -1;
	if (p->v6) {
		__u32 vtf; /* version 4 bits, traffic class 8, flow label 20 */

		if (fp_swap(skb, p->l3_off + offsetof(struct ipv6hdr, saddr), 16) ||
		    bpf_skb_load_bytes(skb, p->l3_off, &vtf, 4))
			return -1;
		vtf &= bpf_htonl(0xf00fffff);
		if (bpf_skb_store_bytes(skb, p->l3_off, &vtf, 4, 0))
			return -1;
	} else {
		if (fp_swap(skb, p->l3_off + offsetof(struct iphdr, saddr), 4))
			return -1;
		if (bpf_skb_load_bytes(skb, p->l3_off, &oldw, 2))
			return -1;
		neww = oldw & bpf_htons(0xff00); /* version and IHL stay, TOS 0 */
		if (bpf_l3_csum_replace(skb, p->l3_off + offsetof(struct iphdr, check), oldw, neww,
					2) ||
		    bpf_skb_store_bytes(skb, p->l3_off, &neww, 2, 0))
			return -1;
	}
	if (fp_swap(skb, udp, 2))
		return -1;
	/* magic and ver_type are the first 16-bit word of the payload */
	if (bpf_skb_load_bytes(skb, wire, &oldw, 2))
		return -1;
	neww = bpf_htons(FP_MAGIC << 8 | FP_VERSION << 4 | FP_CREDIT);
	if (bpf_l4_csum_replace(skb, udp + offsetof(struct udphdr, check), oldw, neww,
				BPF_F_MARK_MANGLED_0 | 2) ||
	    bpf_skb_store_bytes(skb, wire, &neww, 2, 0))
		return -1;
	return 0;
}

/*
 * credit_batch > 1: the emulation packets a flow's receiver has taken, so
 * that every credit_batch-th turns into one credit standing for them all.
 * LRU: under a flood of flows the oldest counts go, and a flow that comes
 * back starts a batch again (the packets of its unfinished one are lost to
 * the sender, as those of a flow's last, unfinished batch are).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FP_MAX_FLOWS);
	__type(key, struct fp_key);
	__type(value, __u64);
} fp_rx_batch SEC(".maps");

/*
 * How many emulation packets the credit of this one of the flow @k (its
 * key with the packet's secret, so that packets made up without the
 * flow's secret count apart) stands for: 0 while its batch is not full,
 * credit_batch when it is, 1 without batching or a counter to keep.
 */
static __always_inline __u8 fp_batch_count(const struct fp_key *k)
{
	__u64 zero = 0, *n;

	if (credit_batch <= 1)
		return 1;
	n = bpf_map_lookup_elem(&fp_rx_batch, k);
	if (!n) {
		bpf_map_update_elem(&fp_rx_batch, k, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(&fp_rx_batch, k);
		if (!n)
			return 1;
	}
	if ((__sync_fetch_and_add(n, 1) + 1) % credit_batch)
		return 0;
	return (__u8)credit_batch;
}

/* Set the credit's count (the last byte of fp_wire) to @count. */
static __always_inline int fp_set_count(struct __sk_buff *skb, const struct ccs_pkt *p, __u8 count)
{
	__u32 udp = p->l4_off, off = udp + sizeof(struct udphdr) + FP_WIRE_LEN - 2;
	__u8 b[2];
	__u16 oldw, neww;

	if (bpf_skb_load_bytes(skb, off, b, 2))
		return -1;
	__builtin_memcpy(&oldw, b, 2);
	b[1] = count;
	__builtin_memcpy(&neww, b, 2);
	if (bpf_l4_csum_replace(skb, udp + offsetof(struct udphdr, check), oldw, neww,
				BPF_F_MARK_MANGLED_0 | 2) ||
	    bpf_skb_store_bytes(skb, off, b, 2, 0))
		return -1;
	return 0;
}

/* A destination that is no one host's: multicast, IPv4's limited
 * broadcast, the unspecified address. */
static __always_inline bool fp_dst_shared(const struct ccs_pkt *p)
{
	__u32 d = bpf_ntohl(p->daddr[3]);

	if (p->v6)
		return (bpf_ntohl(p->daddr[0]) >> 24) == 0xff ||
		       !(p->daddr[0] | p->daddr[1] | p->daddr[2] | p->daddr[3]);
	return (d >> 28) == 0xe || d == 0xffffffff || d == 0;
}

/*
 * Is the packet at @p for this host?  Its frame must be (pkt_type: not
 * another host's, seen in promiscuous mode or on a bridge), to one host's
 * address (not multicast or broadcast), and the FIB must not forward it:
 * a router with the receiver role leaves transit emulation packets to
 * their receiver.  The FIB says "local" and "not forwarded" alike
 * (NOT_FWDED: a local address, a subnet broadcast, no route), and a host
 * that does not forward is not asked (FWD_DISABLED): there the receiver
 * takes what its link addressed to its MAC, as an on-link host could
 * send it with any destination address (docs/threat-model.md).
 */
static __always_inline bool fp_for_this_host(struct __sk_buff *skb, const struct ccs_pkt *p)
{
	struct bpf_fib_lookup f = {};
	long rc;

	if (skb->pkt_type != PACKET_HOST || fp_dst_shared(p))
		return false;
	f.ifindex = skb->ingress_ifindex;
	f.l4_protocol = IPPROTO_UDP;
	f.tot_len = (__u16)p->l3_len;
	if (p->v6) {
		f.family = AF_INET6;
		__builtin_memcpy(f.ipv6_src, p->saddr, sizeof(f.ipv6_src));
		__builtin_memcpy(f.ipv6_dst, p->daddr, sizeof(f.ipv6_dst));
	} else {
		f.family = AF_INET;
		f.ipv4_src = p->saddr[3];
		f.ipv4_dst = p->daddr[3];
	}
	rc = bpf_fib_lookup(skb, &f, sizeof(f), 0);
	return rc == BPF_FIB_LKUP_RET_NOT_FWDED || rc == BPF_FIB_LKUP_RET_FWD_DISABLED;
}

/*
 * Each source's next due time at rx_pps (fp_rx_admit()), by source address
 * and the receiving device (its namespace and index): a reflector answers
 * whoever the source address names, so no address gets credits at more
 * than rx_pps from one device.  LRU: a flood of sources evicts the
 * quietest, which start a burst again.
 */
struct fp_rx_src {
	__u64 netns;
	__u32 addr[4];
	__u32 ifindex;
	__u32 v6;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FP_MAX_FLOWS);
	__type(key, struct fp_rx_src);
	__type(value, __u64);
} fp_rx_rate SEC(".maps");

/* CPUs that may admit one source's packets at once; a packet that loses
 * the race this many times is refused. */
#define FP_RX_TRIES 4

static __always_inline bool fp_rx_within_rate(struct __sk_buff *skb, const struct ccs_pkt *p,
					      __u64 netns)
{
	struct fp_rx_src s = { .netns = netns, .ifindex = skb->ingress_ifindex, .v6 = p->v6 };
	__u64 interval = 1000000000ULL / (rx_pps ? rx_pps : 1), now = bpf_ktime_get_ns();
	__u64 zero = 0, *tat, old, next;
	int i;

	__builtin_memcpy(s.addr, p->saddr, sizeof(s.addr));
	tat = bpf_map_lookup_elem(&fp_rx_rate, &s);
	if (!tat) {
		bpf_map_update_elem(&fp_rx_rate, &s, &zero, BPF_NOEXIST);
		tat = bpf_map_lookup_elem(&fp_rx_rate, &s);
		if (!tat)
			return false;
	}
	for (i = 0; i < FP_RX_TRIES; i++) {
		old = *tat;
		next = fp_rx_admit(old, now, interval, FP_RX_BURST);
		if (!next)
			return false;
		if (__sync_val_compare_and_swap(tat, old, next) == old)
			return true;
	}
	return false;
}

SEC("tc")
int fp_receiver(struct __sk_buff *skb)
{
	struct ccs_cursor c;
	struct ccs_pkt p;
	struct udphdr uh;
	struct fp_wire w;
	struct fp_key k;
	enum fp_wire_err e;
	__u64 netns;
	__u8 count;
	int len;

	if (ccs_parse(skb, &p) != CCS_PKT_IP)
		return TC_ACT_OK;
	len = ccs_pkt_udp(skb, &p, &c, &uh);
	if (len == CCS_UDP_NONE || uh.dest != bpf_htons(port))
		return TC_ACT_OK;
	if (!fp_for_this_host(skb, &p)) {
		ccs_stat_inc(FP_STAT_RX_TRANSIT);
		return TC_ACT_OK;
	}
	e = fp_wire_load(&c, len, &w, FP_EMULATION);
	if (e)
		return fp_wire_drop(e);
	netns = fp_skb_netns(skb);
	if (!fp_rx_within_rate(skb, &p, netns)) {
		ccs_stat_inc(FP_STAT_RX_LIMITED);
		return TC_ACT_SHOT;
	}
	fp_key_set(&k, netns, p.saddr, p.daddr, uh.source, w.dport);
	k.scope = w.secret;
	count = fp_batch_count(&k);
	if (!count) {
		ccs_stat_inc(FP_STAT_BATCHED);
		return TC_ACT_SHOT;
	}
	if (fp_reflect(skb, &p) || (count > 1 && fp_set_count(skb, &p, count)))
		return fp_wire_drop(FP_WIRE_SHORT);
	ccs_stat_inc(FP_STAT_REFLECTED);
	return bpf_redirect(skb->ifindex, 0);
}

/* Are the @count numbers of credit @seq (fp_replay_check_n()) new to
 * @l's replay window?  Then they are in it now.  The window is one word
 * changed by compare-and-swap: a flow's credits can come in on two CPUs
 * at once. */
static __always_inline bool fp_credit_fresh(struct fp_ledger *l, __u32 seq, __u8 count)
{
	int i;

	for (i = 0; i < 8; i++) {
		union {
			struct fp_replay_win w;
			__u64 v;
		} cur, next;

		cur.v = *(volatile __u64 *)&l->replay_word;
		next = cur;
		if (fp_replay_check_n(&next.w, seq, count) != FP_REPLAY_NEW)
			return false;
		if (__sync_val_compare_and_swap(&l->replay_word, cur.v, next.v) == cur.v)
			return true;
	}
	return false; /* lost to other credits 8 times: taken as a duplicate */
}

/* The spacing of @k's emulation packets, by the pacer's rate for it. */
static __always_inline __u64 fp_gap_of(const struct fp_key *k)
{
	struct fp_emu *e = bpf_map_lookup_elem(&fp_emu, k);

	return e ? fp_emu_gap_ns(e->rate) : 0;
}

/* One credit of a batch into the ring (a bpf_loop() step: the verifier
 * checks it once, not once a credit of the largest batch). */
struct fp_bank_ctx {
	struct fp_ledger *l;
	__u64 t, gap, now;
	__u32 count, wasted;
};

static long fp_bank_one(__u32 i, void *data)
{
	struct fp_bank_ctx *b = data;
	__u64 ti;

	if (i >= b->count)
		return 1;
	ti = fp_batch_time(b->t, b->gap, b->count - 1 - i);
	b->wasted += !fp_ring_put(&b->l->ring, fp_stamp(fp_usable_at(ti, b->l->t_wait_ns, b->now)));
	return 0;
}

/* Bank the @count credits (fp_wire_check(): 1..FP_BATCH_MAX) one credit
 * packet stands for, its last emulation packet sent at @t, each usable
 * T_wait after its own packet's time (fp_batch_time()). */
static __always_inline void fp_bank(struct fp_ledger *l, const struct fp_key *k, __u64 t, __u64 now,
				    __u8 count)
{
	struct fp_bank_ctx b = {
		.l = l, .t = t, .gap = count > 1 ? fp_gap_of(k) : 0, .now = now, .count = count
	};

	__sync_fetch_and_add(&l->credits_recv, count);
	ccs_stat_add(FP_STAT_CREDITS, count);
	fp_ring_mark(&l->ring, now - l->last_credit_ns);
	bpf_loop(FP_BATCH_MAX, fp_bank_one, &b, 0);
	if (b.wasted) {
		__sync_fetch_and_add(&l->ring_wasted, b.wasted);
		ccs_stat_add(FP_STAT_CREDITS_WASTED, b.wasted);
	}
}

/*
 * Keep @p, an ACK of a flow with a ledger, as the flow's last pure ACK
 * (credit_ack): one that carries no data and no SYN, FIN or RST, that
 * acknowledges only what the socket sent (fp_ack_plausible()), and not
 * less than the one kept.  An ingress on another CPU writing the same ledger's ACK now
 * wins; this one is left out.
 */
static __always_inline void fp_note_ack(struct __sk_buff *skb, const struct ccs_pkt *p)
{
	__u32 hdr = p->l4_off - p->l3_off + p->th.doff * 4, v;
	struct fp_ack_tpl *a;
	struct fp_ledger *l;
	struct fp_key k;
	__u8 o[12];
	bool ts;

	if (!p->th.ack || p->th.syn || p->th.fin || p->th.rst || p->l3_len != hdr)
		return;
	fp_key_set(&k, fp_skb_netns(skb), p->daddr, p->saddr, p->th.dest, p->th.source);
	fp_key_scope(&k, skb->ifindex);
	l = bpf_map_lookup_elem(&fp_ledgers, &k);
	if (!l)
		return;
	/* older than what TCP has: reordered on the way, never kept */
	if (fp_before(bpf_ntohl(p->th.ack_seq), l->snd_una))
		return;
	if (!fp_ack_plausible(bpf_ntohl(p->th.ack_seq), l->snd_una,
			      fp_sent_end(l->snd_nxt, l->seq_out))) {
		ccs_stat_inc(FP_STAT_ACK_IMPLAUSIBLE);
		return;
	}
	a = &l->ack;
	v = *(volatile __u32 *)&a->ver;
	if ((v & 1) || (v && fp_before(bpf_ntohl(p->th.ack_seq), bpf_ntohl(a->ack))))
		return;
	if (__sync_val_compare_and_swap(&a->ver, v, v + 1) != v)
		return;
	ts = p->th.doff >= 8 &&
	     !bpf_skb_load_bytes(skb, p->l4_off + sizeof(struct tcphdr), o, 12) &&
	     o[0] == TCPOPT_NOP && o[1] == TCPOPT_NOP && o[2] == TCPOPT_TIMESTAMP &&
	     o[3] == TCPOLEN_TIMESTAMP;
	a->seq = p->th.seq;
	a->ack = p->th.ack_seq;
	a->window = p->th.window;
	a->ts = ts;
	if (ts) {
		__builtin_memcpy(&a->tsval, o + 4, 4);
		__builtin_memcpy(&a->tsecr, o + 8, 4);
	}
	__sync_fetch_and_add(&a->ver, 1);
}

/* A one's-complement sum of 32-bit words folded into a checksum. */
static __always_inline __u16 fp_csum_fold(__s64 sum)
{
	__u32 s = (__u32)sum;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (__u16)~s;
}

/* The pure ACK a credit becomes: IP header, TCP header, timestamps. */
struct fp_ack4 {
	struct iphdr ip;
	struct tcphdr th;
	__be32 opt[3];
};

struct fp_ack6 {
	struct ipv6hdr ip;
	struct tcphdr th;
	__be32 opt[3];
};

_Static_assert(sizeof(struct fp_ack4) == 52 && sizeof(struct fp_ack6) == 72,
	       "an ACK's headers without padding");

/* The TCP header of flow @k's ACK from @a, its checksum still 0. */
static __always_inline void fp_ack_tcp(struct tcphdr *th, __be32 *opt, const struct fp_key *k,
				       const struct fp_ack_tpl *a)
{
	th->source = k->dport;
	th->dest = k->sport;
	th->seq = a->seq;
	th->ack_seq = a->ack;
	th->doff = (sizeof(*th) + (a->ts ? 12 : 0)) / 4;
	th->ack = 1;
	th->window = a->window;
	opt[0] = bpf_htonl(TCPOPT_NOP << 24 | TCPOPT_NOP << 16 | TCPOPT_TIMESTAMP << 8 |
			   TCPOLEN_TIMESTAMP);
	opt[1] = a->tsval;
	opt[2] = a->tsecr;
}

/*
 * Finish the headers @h (an IP header of @ip_len bytes, then @th) of
 * @a's ACK, the pseudo-header's sum @sum, and write them over the credit
 * at @l3_off, cut or grown to their size.
 */
static __always_inline int fp_ack_store(struct __sk_buff *skb, __u32 l3_off, void *h, __u32 ip_len,
					struct tcphdr *th, const struct fp_ack_tpl *a, __s64 sum)
{
	sum = bpf_csum_diff(NULL, 0, (__be32 *)th, a->ts ? 32 : 20, (__u32)sum);
	if (sum < 0)
		return -1;
	th->check = fp_csum_fold(sum);
	if (bpf_skb_change_tail(skb, l3_off + ip_len + (a->ts ? 32 : 20), 0))
		return -1;
	return bpf_skb_store_bytes(skb, l3_off, h, ip_len + (a->ts ? 32 : 20),
				   BPF_F_RECOMPUTE_CSUM);
}

/*
 * Make the credit at @p flow @k's ACK @a: the ACK the flow last had, so
 * that it acknowledges, updates and echoes nothing new (a duplicate ACK,
 * which with SACK or RACK loss detection starts no recovery), and the
 * kernel gives it to the flow's socket: the CC runs and the flow sends.
 * The credit was checked and banked before.
 */
static __always_inline int fp_credit_to_ack(struct __sk_buff *skb, const struct ccs_pkt *p,
					    const struct fp_key *k, const struct fp_ack_tpl *a)
{
	__u32 tcp_len = sizeof(struct tcphdr) + (a->ts ? 12 : 0);
	__s64 sum;

	if (p->v6) {
		struct fp_ack6 h = {};
		struct {
			__u32 saddr[4], daddr[4];
			__be32 len, nexthdr;
		} ph = {};

		h.ip.version = 6;
		h.ip.payload_len = bpf_htons(tcp_len);
		h.ip.nexthdr = IPPROTO_TCP;
		h.ip.hop_limit = 64;
		__builtin_memcpy(&h.ip.saddr, p->saddr, 16);
		__builtin_memcpy(&h.ip.daddr, p->daddr, 16);
		__builtin_memcpy(ph.saddr, p->saddr, 16);
		__builtin_memcpy(ph.daddr, p->daddr, 16);
		ph.len = bpf_htonl(tcp_len);
		ph.nexthdr = bpf_htonl(IPPROTO_TCP);
		fp_ack_tcp(&h.th, h.opt, k, a);
		sum = bpf_csum_diff(NULL, 0, (__be32 *)&ph, sizeof(ph), 0);
		return fp_ack_store(skb, p->l3_off, &h, sizeof(h.ip), &h.th, a, sum);
	} else {
		struct fp_ack4 h = {};
		struct {
			__be32 saddr, daddr;
			__be16 proto, len;
		} ph = {};

		h.ip.version = 4;
		h.ip.ihl = 5;
		h.ip.tot_len = bpf_htons(sizeof(h.ip) + tcp_len);
		h.ip.frag_off = bpf_htons(IP_DF);
		h.ip.ttl = 64;
		h.ip.protocol = IPPROTO_TCP;
		h.ip.saddr = p->saddr[3];
		h.ip.daddr = p->daddr[3];
		sum = bpf_csum_diff(NULL, 0, (__be32 *)&h.ip, sizeof(h.ip), 0);
		if (sum < 0)
			return -1;
		h.ip.check = fp_csum_fold(sum);
		ph.saddr = p->saddr[3];
		ph.daddr = p->daddr[3];
		ph.proto = bpf_htons(IPPROTO_TCP);
		ph.len = bpf_htons(tcp_len);
		fp_ack_tcp(&h.th, h.opt, k, a);
		sum = bpf_csum_diff(NULL, 0, (__be32 *)&ph, sizeof(ph), 0);
		return fp_ack_store(skb, p->l3_off, &h, sizeof(h.ip), &h.th, a, sum);
	}
}

/* @l's socket state as one ACK of the CC left it, and what the egress
 * saw the socket send: 0, or -1 when the CC is writing it or wrote it
 * while this read (fp_ledger_seq()'s sock_ver). */
static __always_inline int fp_sock_copy(const struct fp_ledger *l, struct fp_sock_now *s)
{
	__u32 v = *(volatile const __u32 *)&l->sock_ver;

	if (v & 1)
		return -1;
	s->snd_una = *(volatile const __u32 *)&l->snd_una;
	s->rcv_nxt = *(volatile const __u32 *)&l->rcv_nxt;
	s->wnd_raw = *(volatile const __u32 *)&l->wnd_raw;
	s->ts_recent = *(volatile const __u32 *)&l->ts_recent;
	s->ts_ok = *(volatile const __u32 *)&l->ts_ok;
	s->rcv_out = *(volatile const __u32 *)&l->rcv_out;
	s->tsecr_out = *(volatile const __u32 *)&l->tsecr_out;
	s->out_ok = *(volatile const __u32 *)&l->out_ok;
	return *(volatile const __u32 *)&l->sock_ver == v ? 0 : -1;
}

/* The credit's ACK for @l's flow, once it has had a pure ACK kept and the
 * CC an ACK after init: what its socket holds now (fp_ack_now()), the
 * kept ACK's timestamp echo; 0.  None for a flow in fallback (the CC
 * records nothing there), and only for a flow with SACK: without it,
 * Linux counts each duplicate ACK towards a fast retransmit (three of
 * them resend a segment not lost). */
static __always_inline int fp_credit_ack(struct __sk_buff *skb, const struct ccs_pkt *p,
					 const struct fp_key *k, struct fp_ledger *l)
{
	__u32 v = *(volatile __u32 *)&l->ack.ver, seq, ack, tsval;
	struct fp_sock_now sn;
	struct fp_ack_tpl a;
	__u16 window;

	if (!l->sack_ok || l->phase == FP_PHASE_FALLBACK || !v || (v & 1))
		return -1;
	__builtin_memcpy(&a, &l->ack, sizeof(a));
	if (*(volatile __u32 *)&l->ack.ver != v || fp_sock_copy(l, &sn))
		return -1;
	tsval = bpf_ntohl(a.tsval);
	if (fp_ack_now(&seq, &ack, &window, &tsval, &sn))
		return -1;
	a.seq = bpf_htonl(seq);
	a.ack = bpf_htonl(ack);
	a.window = bpf_htons(window);
	a.tsval = bpf_htonl(tsval);
	return fp_credit_to_ack(skb, p, k, &a);
}

/* The shortest interval of the loop's rate control: a loop's round trip
 * on a veth pair is tens of microseconds, a few credits. */
#define FP_LOOP_IV_MIN_NS 1000000ULL

/*
 * The loop's rate control (fp_rc_update()), once an interval (its round
 * trip, or the pacer's interval if longer: flows whose intervals differ
 * increase at different paces, and the shortest RTT takes the queue): the
 * credit that finds the interval over and moves its end first decides, from the credits and losses counted since the last
 * decision.  After a change it waits, as the pacer does, until the first
 * packet of the new rate is credited (fp_rc_settle()), and measures from
 * there.
 */
static __always_inline void fp_loop_control(struct fp_loop *lp, const struct fp_loop_cfg *cfg,
					    __u32 last_seq, __u64 now)
{
	__u64 end = lp->iv_end_ns, iv = lp->rtt_ns, cred, lost;
	enum fp_rc_step step;

	if (iv < cfg->interval_ns)
		iv = cfg->interval_ns;
	if (iv < FP_LOOP_IV_MIN_NS)
		iv = FP_LOOP_IV_MIN_NS;
	if (now < end || __sync_val_compare_and_swap(&lp->iv_end_ns, end, now + iv) != end)
		return;
	cred = lp->iv_credited;
	lost = lp->iv_lost;
	__sync_fetch_and_sub(&lp->iv_credited, cred);
	__sync_fetch_and_sub(&lp->iv_lost, lost);
	if (lp->rc.settling) {
		if (fp_rc_settled(&lp->rc, last_seq))
			lp->rc.settling = 0;
		return;
	}
	step = fp_rc_update(&lp->rc, &cfg->rc, cred + lost, cred,
			    fp_rate_min(lp->rtt_ns, cfg->r_max), cfg->r_max);
	fp_rc_settle(&lp->rc, &cfg->rc, step, lp->seq);
}

/* Every loop's packets together, at most the pacer's host_pps (its
 * links' r_max), as its own were (fp_loop_within_rate()). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} fp_loop_host SEC(".maps");

/* How many of @n packets the GCRA at @tat (one each @interval, after a
 * burst of FP_RX_BURST) lets out now; compare-and-swap, as credits of
 * many flows come in on every CPU. */
static __always_inline __u32 fp_gcra_cas(__u64 *tat, __u64 now, __u64 interval, __u32 n)
{
	__u64 old, next;
	__u32 k;
	int i;

	for (i = 0; i < FP_RX_TRIES; i++) {
		old = *(volatile __u64 *)tat;
		next = old;
		k = fp_gcra_take(&next, now, interval, FP_RX_BURST, n);
		if (!k || __sync_val_compare_and_swap(tat, old, next) == old)
			return k;
	}
	return 0;
}

/*
 * Whatever its credits say, a loop sends at most r_max, after a burst of
 * FP_RX_BURST, and all loops together at most the pacer's host_pps: a
 * host on the path that learnt a flow's secret (it travels in clear) can
 * make credits for the flow's packets before their own come, but not
 * make the flows send more than the pacer would.  How many of @n may go.
 */
static __always_inline __u32 fp_loop_within_rate(struct fp_loop *lp, __u64 now,
						 const struct fp_loop_cfg *cfg, __u32 n)
{
	__u32 zero = 0;
	__u64 *host = bpf_map_lookup_elem(&fp_loop_host, &zero);

	n = fp_gcra_cas(&lp->tat, now, NSEC_PER_SEC / cfg->r_max, n);
	if (n && cfg->host_pps && host)
		n = fp_gcra_cas(host, now, NSEC_PER_SEC / cfg->host_pps, n);
	return n;
}

/*
 * The credit of emulation packet @seq (sent at @t; @prev the highest
 * credited before it, none if @first), just taken, in @l's loop: how many
 * emulation packets it becomes (fp_loop_emit()), and whether they are
 * over-provisioned (@over).  None for a flow that wants no credits: no
 * demand, fallen back, done, or (no over-provisioning) its expected
 * credits cover the demand; the pacer starts its loop again when it has.
 */
static __always_inline __u32 fp_loop_step(struct fp_ledger *l, __u32 seq, __u64 t, __u64 now,
					  __u32 prev, int first, bool *over)
{
	struct fp_loop *lp = &l->loop;
	struct fp_loop_cfg *cfg;
	__u32 zero = 0, lost, in_flight, n;

	cfg = bpf_map_lookup_elem(&fp_loop_cfg, &zero);
	if (!cfg || !cfg->r_max)
		return 0;
	t = now > t ? now - t : 1; /* the round trip this credit took */
	lp->rtt_ns = lp->rtt_ns ? fp_pace_smooth(lp->rtt_ns, t) : t;
	if (!lp->rc.rate) { /* the loop's first credit */
		lp->rc.rate = fp_rc_start(&cfg->rc, cfg->r_max);
		lp->rc.w = cfg->rc.w_max;
		lp->iv_end_ns = now + lp->rtt_ns;
	}
	__sync_fetch_and_add(&lp->iv_credited, 1);
	lost = fp_loop_lost(prev, seq, first);
	if (lost) {
		__sync_fetch_and_add(&lp->iv_lost, lost);
		__sync_fetch_and_add(&lp->lost, lost);
	}
	fp_loop_control(lp, cfg, seq, now);
	if (!l->demand_segs || (l->phase != FP_PHASE_PRECREDIT && l->phase != FP_PHASE_CREDIT))
		return 0;
	in_flight = fp_loop_in_flight(lp->seq, l->last_seq);
	*over = fp_over_provisioned(in_flight, cfg->rc.max_loss, l->demand_segs);
	if (!fp_emu_wanted(&cfg->rc, *over))
		return 0;
	n = fp_loop_emit(in_flight, fp_loop_window(lp->rc.rate, lp->rtt_ns));
	return n ? fp_loop_within_rate(lp, now, cfg, n) : 0;
}

/* Write the 16-bit word at @off of the UDP payload (fp_wire) at @p to
 * @neww, the UDP checksum with it. */
static __always_inline int fp_wire_word(struct __sk_buff *skb, const struct ccs_pkt *p, __u32 off,
					__u16 neww)
{
	__u32 at = p->l4_off + sizeof(struct udphdr) + off;
	__u16 oldw;

	if (bpf_skb_load_bytes(skb, at, &oldw, 2) ||
	    bpf_l4_csum_replace(skb, p->l4_off + offsetof(struct udphdr, check), oldw, neww,
				BPF_F_MARK_MANGLED_0 | 2))
		return -1;
	return bpf_skb_store_bytes(skb, at, &neww, 2, 0);
}

/* The same for the IPv4 header's 16-bit word at @off (its checksum). */
static __always_inline int fp_ip4_word(struct __sk_buff *skb, const struct ccs_pkt *p, __u32 off,
				       __u16 neww)
{
	__u16 oldw;

	if (bpf_skb_load_bytes(skb, p->l3_off + off, &oldw, 2) ||
	    bpf_l3_csum_replace(skb, p->l3_off + offsetof(struct iphdr, check), oldw, neww, 2))
		return -1;
	return bpf_skb_store_bytes(skb, p->l3_off + off, &neww, 2, 0);
}

/*
 * Turn the credit at @p back into its flow's emulation packet (the
 * inverse of fp_reflect()): MAC addresses, IP addresses and ports swapped
 * back (it goes to the neighbour the credit came from), ECT(0), or
 * Not-ECT if @over, DSCP 0, TTL 64, type and flags an emulation packet's.
 * Its number and time: fp_loop_number().
 */
static __always_inline int fp_emu_of_credit(struct __sk_buff *skb, const struct ccs_pkt *p,
					    bool over)
{
	__u8 ecn = over ? 0 : 2;

	if (fp_swap(skb, 0, 6))
		return -1;
	if (p->v6) {
		__u32 vtf;
		__u8 hop = 64;

		if (fp_swap(skb, p->l3_off + offsetof(struct ipv6hdr, saddr), 16) ||
		    bpf_skb_load_bytes(skb, p->l3_off, &vtf, 4))
			return -1;
		vtf = (vtf & bpf_htonl(0xf00fffff)) | bpf_htonl((__u32)ecn << 20);
		if (bpf_skb_store_bytes(skb, p->l3_off, &vtf, 4, 0) ||
		    bpf_skb_store_bytes(skb, p->l3_off + offsetof(struct ipv6hdr, hop_limit), &hop,
					1, 0))
			return -1;
	} else {
		if (fp_swap(skb, p->l3_off + offsetof(struct iphdr, saddr), 4) ||
		    fp_ip4_word(skb, p, 0, bpf_htons(0x4500 | ecn)) ||
		    fp_ip4_word(skb, p, offsetof(struct iphdr, ttl),
				bpf_htons(64 << 8 | IPPROTO_UDP)))
			return -1;
	}
	if (fp_swap(skb, p->l4_off, 2) ||
	    fp_wire_word(skb, p, 0, bpf_htons(FP_MAGIC << 8 | FP_VERSION << 4 | FP_EMULATION)) ||
	    fp_wire_word(skb, p, FP_WIRE_LEN - 2, bpf_htons((over ? FP_WIRE_OVER : 0) << 8 | 1)))
		return -1;
	skb->priority = TC_PRIO_INTERACTIVE; /* the pacer's packets' band */
	return 0;
}

/*
 * Number the emulation packet at @p, its fp_wire's seq and t_us now
 * @seq and @t_us (network order), as its flow's next in @l's loop,
 * leaving now: the credits' numbers then say what is in flight
 * (fp_loop_in_flight()) and their T the loop's round trip.  The new
 * values are left in @seq and @t_us.
 */
static __always_inline int fp_loop_number(struct __sk_buff *skb, const struct ccs_pkt *p,
					  struct fp_ledger *l, __be32 *seq, __be32 *t_us)
{
	__u32 csum = p->l4_off + offsetof(struct udphdr, check),
	      wire = p->l4_off + sizeof(struct udphdr);
	__be32 s = bpf_htonl(__sync_fetch_and_add(&l->loop.seq, 1));
	__be32 t = bpf_htonl((__u32)(bpf_ktime_get_ns() / 1000));

	if (bpf_l4_csum_replace(skb, csum, *seq, s, BPF_F_MARK_MANGLED_0 | 4) ||
	    bpf_skb_store_bytes(skb, wire + offsetof(struct fp_wire, seq), &s, 4, 0) ||
	    bpf_l4_csum_replace(skb, csum, *t_us, t, BPF_F_MARK_MANGLED_0 | 4) ||
	    bpf_skb_store_bytes(skb, wire + offsetof(struct fp_wire, t_us), &t, 4, 0))
		return -1;
	*seq = s;
	*t_us = t;
	return 0;
}

/*
 * Send @n emulation packets (1 or 2) made of the credit @w at @p, out of
 * the device it came in by: a clone for each but the last, which is the
 * credit itself (*@act TC_ACT_REDIRECT); with @keep a clone for each, and
 * the credit put back as it came but for its wire, for the caller to make
 * the flow's ACK (*@act TC_ACT_UNSPEC).  How many left (a clone the
 * qdisc dropped counts: its number is lost as in the network).
 */
static __always_inline __u32 fp_loop_send(struct __sk_buff *skb, const struct ccs_pkt *p,
					  struct fp_ledger *l, const struct fp_wire *w, __u32 n,
					  bool over, bool keep, int *act)
{
	__u32 prio = skb->priority, sent = 0, clones = keep ? n : n - 1;
	__be32 seq = w->seq, t_us = w->t_us;

	*act = TC_ACT_UNSPEC;
	if (fp_emu_of_credit(skb, p, over))
		return 0;
	if (clones >= 1 && !fp_loop_number(skb, p, l, &seq, &t_us) &&
	    bpf_clone_redirect(skb, skb->ifindex, 0) >= 0)
		sent++;
	if (clones >= 2 && !fp_loop_number(skb, p, l, &seq, &t_us) &&
	    bpf_clone_redirect(skb, skb->ifindex, 0) >= 0)
		sent++;
	if (!keep) {
		if (fp_loop_number(skb, p, l, &seq, &t_us))
			return sent;
		*act = bpf_redirect(skb->ifindex, 0);
		return sent + 1;
	}
	skb->priority = prio;
	return fp_swap(skb, 0, 6) ? 0 : sent; /* the ACK's MACs: the credit's */
}

/* Can the credit at @p (UDP header @uh) carry its loop's packet?  A plain
 * IP header (options or extension headers would be rewritten wrong), and
 * over IPv6 a UDP checksum (it is mandatory there). */
static __always_inline bool fp_loop_carrier(const struct ccs_pkt *p, const struct udphdr *uh)
{
	return p->l4_off - p->l3_off == (p->v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr)) &&
	       (!p->v6 || uh->check);
}

/* A credit became @n emulation packets of @l's loop. */
static __always_inline void fp_loop_count(struct fp_ledger *l, __u32 n)
{
	if (!n) {
		__sync_fetch_and_add(&l->loop.ended, 1);
		ccs_stat_inc(FP_STAT_LOOP_ENDED);
		return;
	}
	__sync_fetch_and_add(&l->loop.sent, n);
	ccs_stat_add(FP_STAT_LOOP_SENT, n);
	if (n > 1)
		ccs_stat_inc(FP_STAT_LOOP_GROWN);
}

SEC("tc")
int fp_sender_in(struct __sk_buff *skb)
{
	struct ccs_cursor c;
	struct fp_ledger *l;
	struct ccs_pkt p;
	struct udphdr uh;
	struct fp_wire w;
	struct fp_key k;
	enum fp_wire_err e;
	int act = TC_ACT_UNSPEC;
	bool over = false, keep;
	__u32 prev, n;
	__u64 now, t;
	int len, first;

	if (ccs_parse(skb, &p) != CCS_PKT_IP)
		return TC_ACT_OK;
	if ((credit_ack || release) && p.tcp) {
		fp_note_ack(skb, &p);
		return TC_ACT_OK;
	}
	len = ccs_pkt_udp(skb, &p, &c, &uh);
	if (len == CCS_UDP_NONE || uh.source != bpf_htons(port))
		return TC_ACT_OK;
	e = fp_wire_load(&c, len, &w, FP_CREDIT);
	if (!e && w.count > credit_batch)
		e = FP_WIRE_COUNT; /* a batch larger than this end takes */
	if (e)
		return fp_wire_drop(e);
	/* the credit's destination is this host: the flow's local end */
	fp_key_set(&k, fp_skb_netns(skb), p.daddr, p.saddr, uh.dest, w.dport);
	fp_key_scope(&k, skb->ifindex);
	l = bpf_map_lookup_elem(&fp_ledgers, &k);
	if (!l) {
		ccs_stat_inc(FP_STAT_CREDIT_UNKNOWN);
		return TC_ACT_SHOT;
	}
	if (w.secret != l->secret) {
		ccs_stat_inc(FP_STAT_CREDIT_FORGED);
		return TC_ACT_SHOT;
	}
	now = bpf_ktime_get_ns();
	t = fp_time_expand(now, bpf_ntohl(w.t_us));
	if (fp_t_in_future(t, now)) {
		ccs_stat_inc(FP_STAT_CREDIT_FUTURE);
		return TC_ACT_SHOT;
	}
	/* with loop, every packet was numbered in it: a credit of one not
	 * sent, or sent FP_REPLAY_JUMP or more before, is not its own */
	if (loop && *(volatile __u32 *)&l->loop.seq - 1 - bpf_ntohl(w.seq) >= FP_REPLAY_JUMP) {
		ccs_stat_inc(FP_STAT_CREDIT_REPLAYED);
		return TC_ACT_SHOT;
	}
	prev = *(volatile __u32 *)&l->last_seq;
	first = !*(volatile __u32 *)&l->seen;
	if (!fp_credit_fresh(l, bpf_ntohl(w.seq), w.count)) {
		ccs_stat_inc(FP_STAT_CREDIT_REPLAYED);
		return TC_ACT_SHOT;
	}
	fp_bank(l, &k, t, now, w.count);
	l->last_credit_ns = now;
	/* the loop's packets first: the credit itself may become one */
	if (loop && w.count == 1) {
		n = fp_loop_step(l, bpf_ntohl(w.seq), t, now, prev, first, &over);
		keep = credit_ack && !release;
		if (n && fp_loop_carrier(&p, &uh))
			n = fp_loop_send(skb, &p, l, &w, n, over, keep, &act);
		else
			n = 0;
		fp_loop_count(l, n);
		if (act != TC_ACT_UNSPEC)
			return act; /* bpf_redirect()'s */
	}
	/* with release, the pacer wakes the flow at the credit's usable time */
	if (credit_ack && !release && !fp_credit_ack(skb, &p, &k, l)) {
		ccs_stat_inc(FP_STAT_CREDIT_ACKS);
		return TC_ACT_OK;
	}
	return TC_ACT_SHOT;
}

/* Set the DSCP of the IP header at @p, keeping its ECN bits. */
static __always_inline void fp_set_dscp(struct __sk_buff *skb, const struct ccs_pkt *p, __u8 dscp)
{
	__u16 oldw, neww;

	if (bpf_skb_load_bytes(skb, p->l3_off, &oldw, 2))
		return;
	if (p->v6) /* traffic class: the low 4 bits of byte 0, high 4 of byte 1 */
		neww = (oldw & bpf_htons(0xf03f)) | bpf_htons((__u16)dscp << 6);
	else
		neww = (oldw & bpf_htons(0xff03)) | bpf_htons((__u16)dscp << 2);
	if (neww == oldw)
		return;
	if (!p->v6)
		bpf_l3_csum_replace(skb, p->l3_off + offsetof(struct iphdr, check), oldw, neww, 2);
	bpf_skb_store_bytes(skb, p->l3_off, &neww, 2, 0);
}

/* The pacer's first packet of @l's loop at @p (@w): numbered in the loop,
 * and no longer a seed, so that no later hook numbers it again. */
static __always_inline void fp_loop_seed(struct __sk_buff *skb, const struct ccs_pkt *p,
					 struct fp_ledger *l, const struct fp_wire *w)
{
	__be32 seq = w->seq, t_us = w->t_us;

	if (!fp_loop_number(skb, p, l, &seq, &t_us))
		fp_wire_word(skb, p, FP_WIRE_LEN - 2,
			     bpf_htons((__u16)(w->flags & ~FP_WIRE_SEED) << 8 | w->count));
}

/*
 * The pacer's release at @p (tunable release), sent when a credit of its
 * flow becomes usable: if the flow's oldest credit is usable now, the
 * flow's ACK of nothing new, from its peer, back into this host (the CC
 * runs and the flow sends now, not at TCP's next pacing slot or ACK);
 * also in a drought of credits (fp_credit_drought()), so that the CC's
 * wait for them runs; else dropped.  A release never leaves the host; anything else to the
 * FlashPass port goes on, an emulation packet of a known flow noted: the
 * first one's time starts the flow's wait for credits (the pacer's time,
 * not the flow's: fp_wait_credits()).
 */
static __always_inline int fp_release(struct __sk_buff *skb, struct ccs_pkt *p,
				      struct ccs_cursor *c, int len, __be16 sport)
{
	struct fp_ledger *l;
	enum fp_wire_err e;
	struct fp_wire w;
	struct fp_key k;
	__u32 tmp[4];
	__u64 now;

	e = fp_wire_load(c, len, &w, FP_RELEASE);
	if (e && (e != FP_WIRE_TYPE || fp_wire_check(&w, FP_WIRE_LEN, FP_EMULATION)))
		return TC_ACT_OK;
	fp_key_set(&k, fp_skb_netns(skb), p->saddr, p->daddr, sport, w.dport);
	fp_key_scope(&k, skb->ifindex);
	l = bpf_map_lookup_elem(&fp_ledgers, &k);
	if (e) { /* an emulation packet */
		if (!l || w.secret != l->secret)
			return TC_ACT_OK;
		if (!l->emu_first_ns)
			l->emu_first_ns = bpf_ktime_get_ns();
		if (loop && (w.flags & FP_WIRE_SEED))
			fp_loop_seed(skb, p, l, &w);
		return TC_ACT_OK;
	}
	if (!l || w.secret != l->secret) {
		ccs_stat_inc(l ? FP_STAT_CREDIT_FORGED : FP_STAT_CREDIT_UNKNOWN);
		return TC_ACT_SHOT;
	}
	now = bpf_ktime_get_ns();
	if (!release || (!fp_ring_due(&l->ring, fp_stamp(now)) &&
			 !fp_credit_drought(l->last_credit_ns, l->t_wait_ns, now)))
		goto idle;
	__builtin_memcpy(tmp, p->saddr, sizeof(tmp));
	__builtin_memcpy(p->saddr, p->daddr, sizeof(tmp));
	__builtin_memcpy(p->daddr, tmp, sizeof(tmp));
	if (fp_credit_ack(skb, p, &k, l) || fp_swap(skb, 0, 6))
		goto idle;
	/* before the grant (a full barrier): the CC that sees the grant
	 * expires the credits before this one */
	l->rel_stamp = fp_stamp((__u64)bpf_ntohl(w.t_us) * 1000);
	__sync_fetch_and_add(&l->grants, 1);
	ccs_stat_inc(FP_STAT_RELEASES);
	return bpf_redirect(skb->ifindex, BPF_F_INGRESS);
idle:
	ccs_stat_inc(FP_STAT_RELEASES_IDLE);
	return TC_ACT_SHOT;
}

/*
 * A segment of @l's flow leaving: if its socket's own (its cookie; a raw
 * socket with the flow's addresses has another), what it acknowledges is TCP's rcv_wup from now on, the lowest
 * sequence number an ACK from the peer may carry, and its timestamp echo
 * TCP's ts_recent, the lowest timestamp (fp_ack_now()).  The first
 * segments make the socket a cookie, which the CC records at its next
 * ACK (fp_ledger_seq()); until then nothing is noted.  One writer: a
 * socket's segments leave one at a time.
 */
static __always_inline void fp_note_out(struct __sk_buff *skb, const struct ccs_pkt *p,
					struct fp_ledger *l)
{
	__u64 cookie = bpf_get_socket_cookie(skb);
	__u32 ack = bpf_ntohl(p->th.ack_seq), ecr;
	__u8 o[12];

	if (!cookie || cookie != l->sk_cookie)
		return;
	if (!(l->out_ok & FP_OUT_ACK) || fp_before(l->rcv_out, ack)) {
		l->rcv_out = ack;
		__sync_fetch_and_or(&l->out_ok, FP_OUT_ACK);
	}
	/* Linux writes the timestamps first: NOP NOP TS */
	if (p->th.doff < 8 || bpf_skb_load_bytes(skb, p->l4_off + sizeof(struct tcphdr), o, 12) ||
	    o[0] != TCPOPT_NOP || o[1] != TCPOPT_NOP || o[2] != TCPOPT_TIMESTAMP ||
	    o[3] != TCPOLEN_TIMESTAMP)
		return;
	__builtin_memcpy(&ecr, o + 8, 4);
	ecr = bpf_ntohl(ecr);
	if (!(l->out_ok & FP_OUT_TS) || fp_before(l->tsecr_out, ecr)) {
		l->tsecr_out = ecr;
		__sync_fetch_and_or(&l->out_ok, FP_OUT_TS);
	}
}

SEC("tc")
int fp_sender_out(struct __sk_buff *skb)
{
	__u32 segs, hdr, end;
	struct fp_ledger *l;
	struct ccs_cursor c;
	struct ccs_pkt p;
	struct udphdr uh;
	struct fp_key k;
	int len;

	if (ccs_parse(skb, &p) != CCS_PKT_IP)
		return TC_ACT_OK;
	if (!p.tcp) {
		len = ccs_pkt_udp(skb, &p, &c, &uh);
		if (len == CCS_UDP_NONE || uh.dest != bpf_htons(port))
			return TC_ACT_OK;
		return fp_release(skb, &p, &c, len, uh.source);
	}
	hdr = p.l4_off - p.l3_off + p.th.doff * 4;
	if (p.th.syn || p.th.rst || (p.l3_len <= hdr && !p.th.fin && !p.th.ack))
		return TC_ACT_OK;
	fp_key_set(&k, fp_skb_netns(skb), p.saddr, p.daddr, p.th.source, p.th.dest);
	fp_key_scope(&k, skb->ifindex);
	l = bpf_map_lookup_elem(&fp_ledgers, &k);
	if (!l)
		return TC_ACT_OK;
	if (p.th.ack)
		fp_note_out(skb, &p, l);
	if (l->phase == FP_PHASE_FALLBACK || (p.l3_len <= hdr && !p.th.fin))
		return TC_ACT_OK; /* no payload: an ACK */
	segs = skb->gso_segs ? skb->gso_segs : 1;
	/* what it sends is what its peer's ACKs may acknowledge, a FIN's
	 * sequence number too (one writer: this flow's frames leave one at
	 * a time) */
	end = bpf_ntohl(p.th.seq) + (p.l3_len > hdr ? p.l3_len - hdr : 0) + p.th.fin;
	if (fp_before(l->seq_out, end))
		l->seq_out = end;
	if (p.l3_len <= hdr)
		return TC_ACT_OK; /* a FIN alone: no data to tag */
	/* The CC let this frame out under usable credits, or without them
	 * (pre-credit data, a probe of a flow out of credit): scheduled only
	 * when its segments are covered. */
	if (l->phase == FP_PHASE_CREDIT && fp_spare(l) >= segs) {
		l->credits_used += segs;
		ccs_stat_add(FP_STAT_CREDITS_USED, segs);
		fp_set_dscp(skb, &p, dscp_sched);
		ccs_stat_add(FP_STAT_DATA_SCHED, segs);
	} else {
		fp_set_dscp(skb, &p, dscp_unsched);
		ccs_stat_add(FP_STAT_DATA_UNSCHED, segs);
	}
	return TC_ACT_OK;
}
