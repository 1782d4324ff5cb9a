// SPDX-License-Identifier: GPL-2.0
/*
 * ccs_switch: the test network's bottleneck switch (cls_bpf, direct action,
 * clsact egress of the router's bottleneck port).  The queue model and the
 * decisions are in switch.h; this file parses packets, takes the lock and
 * rewrites the ECN field.
 *
 * Frames are untrusted: headers are read with bpf_skb_load_bytes(), so a
 * header outside the linear part is read too and one past the frame's end
 * is not; up to two VLAN tags (802.1Q, 802.1ad) are skipped; an IP header
 * with the wrong version, a bad length or one longer than the frame is
 * counted as malformed.  Anything that is not valid IPv4/IPv6 is class 0
 * and Not-ECT.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_core_read.h>
#include "switch.h"

char _license[] SEC("license") = "GPL";

#define TC_ACT_OK	0
#define TC_ACT_SHOT	2
#define ETH_HLEN	14
#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86DD
#define ETH_P_8021Q	0x8100
#define ETH_P_8021AD	0x88A8
#define VLAN_HLEN	4
#define ECN_MASK	3
#define ECN_CE		3

/* Set by ccload between open and load. */
const volatile struct sw_config cfg = {
	.rate_bps = 100000000,
	.buffer = 100000,
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sw_state);
} sw_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sw_ctl);
} sw_ctl SEC(".maps");

enum pkt_kind { PKT_OTHER, PKT_IP, PKT_MALFORMED };

struct pkt {
	__u32 l3_off;	/* where the IP header starts (PKT_IP) */
	__u8 tos;	/* DSCP << 2 | ECN */
	__u8 v6;
};

/* The frame's kind, and for IP where its header is and its TOS byte. */
static __always_inline enum pkt_kind parse(struct __sk_buff *skb, struct pkt *p)
{
	__u32 off = ETH_HLEN, len = skb->len;
	__u16 proto;
	int i;

	if (bpf_skb_load_bytes(skb, ETH_HLEN - 2, &proto, sizeof(proto)))
		return PKT_OTHER;
	for (i = 0; i < 2; i++) {
		if (proto != bpf_htons(ETH_P_8021Q) && proto != bpf_htons(ETH_P_8021AD))
			break;
		if (bpf_skb_load_bytes(skb, off + 2, &proto, sizeof(proto)))
			return PKT_OTHER;
		off += VLAN_HLEN;
	}
	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr ip;

		if (bpf_skb_load_bytes(skb, off, &ip, sizeof(ip)) || ip.version != 4 || ip.ihl < 5 ||
		    bpf_ntohs(ip.tot_len) < ip.ihl * 4 || off + bpf_ntohs(ip.tot_len) > len)
			return PKT_MALFORMED;
		p->tos = ip.tos;
		p->v6 = 0;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr ip6;

		if (bpf_skb_load_bytes(skb, off, &ip6, sizeof(ip6)) || ip6.version != 6 ||
		    off + sizeof(ip6) + bpf_ntohs(ip6.payload_len) > len)
			return PKT_MALFORMED;
		p->tos = (ip6.priority << 4) | (ip6.flow_lbl[0] >> 4);
		p->v6 = 1;
	} else {
		return PKT_OTHER;
	}
	p->l3_off = off;
	return PKT_IP;
}

/* Set CE: IPv4 fixes its header checksum, IPv6 has none. */
static __always_inline void set_ce(struct __sk_buff *skb, const struct pkt *p)
{
	if (!p->v6) {
		__u32 off = p->l3_off;
		__u16 old, new;

		if (bpf_skb_load_bytes(skb, off, &old, 2))
			return;
		new = old | bpf_htons(ECN_CE);	/* tos is the 2nd byte */
		bpf_l3_csum_replace(skb, off + offsetof(struct iphdr, check), old, new, 2);
		bpf_skb_store_bytes(skb, off, &new, 2, 0);
	} else {
		__u8 b;

		/* ECN bits are the low two bits of the traffic class: bits
		 * 4-5 of the second byte. */
		if (bpf_skb_load_bytes(skb, p->l3_off + 1, &b, 1))
			return;
		b |= ECN_CE << 4;
		bpf_skb_store_bytes(skb, p->l3_off + 1, &b, 1, 0);
	}
}

/*
 * Bytes in the port's root qdisc before this packet joins it, if that is
 * tbf (what the test network puts there: a rate limiter whose backlog is
 * the queue), else SW_NO_REAL: another root (noqueue, mq, a qdisc with
 * children) has no backlog that is this port's queue.  The context of a tc
 * program is the sk_buff itself; it is read with probe_read_kernel (CO-RE,
 * CAP_PERFMON), which works from 5.x on, where bpf_cast_to_kern_ctx needs
 * 6.3.  The read races with the qdisc's dequeue on the other CPU, as a real
 * switch's view of its queue would.
 */
static __always_inline __u64 qdisc_backlog(struct __sk_buff *ctx)
{
	struct sk_buff *skb = (void *)ctx;
	struct net_device *dev = BPF_CORE_READ(skb, dev);
	const struct Qdisc_ops *ops;
	char id[4] = {};
	struct Qdisc *q;

	if (!dev)
		return SW_NO_REAL;
	q = BPF_CORE_READ(dev, qdisc);
	if (!q)
		return SW_NO_REAL;
	ops = BPF_CORE_READ(q, ops);
	if (!ops || bpf_probe_read_kernel(id, sizeof(id), &ops->id) ||
	    id[0] != 't' || id[1] != 'b' || id[2] != 'f' || id[3])
		return SW_NO_REAL;
	return BPF_CORE_READ(q, qstats.backlog);
}

SEC("tc")
int ccs_switch(struct __sk_buff *skb)
{
	struct pkt p = {};
	struct sw_state *s;
	enum sw_verdict v;
	enum pkt_kind kind;
	__u32 zero = 0, cls = 0, segs = skb->gso_segs ? skb->gso_segs : 1;
	__u64 now = bpf_ktime_get_ns();	/* no helper calls under the lock */
	__u64 real = 0, gen;
	struct sw_ctl *ctl;
	int ect = 0;

	kind = parse(skb, &p);
	if (kind == PKT_IP) {
		cls = cfg.dscp_class[(p.tos >> 2) & (SW_DSCPS - 1)];
		ect = (p.tos & ECN_MASK) != 0;
	}
	if (cfg.queue == SW_QUEUE_QDISC)
		real = qdisc_backlog(skb);
	ctl = bpf_map_lookup_elem(&sw_ctl, &zero);
	gen = ctl ? ctl->reset_gen : 0;
	s = bpf_map_lookup_elem(&sw_state, &zero);
	if (!s)
		return TC_ACT_OK;
	bpf_spin_lock(&s->lock);
	if (s->reset_gen != gen)
		sw_reset_counters(s, gen);
	v = sw_packet_segs(s, &cfg, now, real, skb->len, cls, ect, segs);
	if (kind == PKT_MALFORMED)
		s->malformed++;
	bpf_spin_unlock(&s->lock);

	if (v == SW_DROP)
		return TC_ACT_SHOT;
	if (v == SW_MARK && (p.tos & ECN_MASK) != ECN_CE)
		set_ce(skb, &p);
	return TC_ACT_OK;
}
