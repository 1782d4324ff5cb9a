// SPDX-License-Identifier: GPL-2.0
/*
 * ccs_switch: the test network's bottleneck switch (cls_bpf, direct action,
 * clsact egress of the router's bottleneck port).  The queue model and the
 * decisions are in switch.h; this file parses packets, takes the lock and
 * rewrites the ECN field.
 *
 * Packets are untrusted: every header read is bounds-checked against
 * data_end, and anything that is not IPv4/IPv6 is class 0 and Not-ECT.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_core_read.h>
#include "switch.h"

char _license[] SEC("license") = "GPL";

#define TC_ACT_OK	0
#define TC_ACT_SHOT	2
#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86DD
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

struct pkt {
	__u32 l3_off;	/* 0 when not IP */
	__u8 tos;	/* DSCP << 2 | ECN */
	__u8 v6;
};

static __always_inline void parse(struct __sk_buff *skb, struct pkt *p)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;

	p->l3_off = 0;
	if ((void *)(eth + 1) > end)
		return;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);

		if ((void *)(ip + 1) > end || ip->ihl < 5)
			return;
		p->tos = ip->tos;
		p->v6 = 0;
		p->l3_off = sizeof(*eth);
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > end)
			return;
		p->tos = (ip6->priority << 4) | (ip6->flow_lbl[0] >> 4);
		p->v6 = 1;
		p->l3_off = sizeof(*eth);
	}
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
 * Bytes in the port's root qdisc (tbf) before this packet joins it.  The
 * context of a tc program is the sk_buff itself; it is read with
 * probe_read_kernel (CO-RE, CAP_PERFMON), which works from 5.x on, where
 * bpf_cast_to_kern_ctx needs 6.3.  The read races with the qdisc's dequeue
 * on the other CPU, as a real switch's view of its queue would.
 */
static __always_inline __u64 qdisc_backlog(struct __sk_buff *ctx)
{
	struct sk_buff *skb = (void *)ctx;
	struct net_device *dev = BPF_CORE_READ(skb, dev);
	struct Qdisc *q;

	if (!dev)
		return 0;
	q = BPF_CORE_READ(dev, qdisc);
	if (!q)
		return 0;
	return BPF_CORE_READ(q, qstats.backlog);
}

SEC("tc")
int ccs_switch(struct __sk_buff *skb)
{
	struct pkt p = {};
	struct sw_state *s;
	enum sw_verdict v;
	__u32 zero = 0, cls = 0;
	__u64 now = bpf_ktime_get_ns();	/* no helper calls under the lock */
	__u64 real = 0;
	int ect = 0;

	parse(skb, &p);
	if (p.l3_off) {
		cls = cfg.dscp_class[(p.tos >> 2) & (SW_DSCPS - 1)];
		ect = (p.tos & ECN_MASK) != 0;
	}
	if (cfg.queue == SW_QUEUE_QDISC)
		real = qdisc_backlog(skb);
	s = bpf_map_lookup_elem(&sw_state, &zero);
	if (!s)
		return TC_ACT_OK;
	bpf_spin_lock(&s->lock);
	v = sw_packet(s, &cfg, now, real, skb->len, cls, ect);
	bpf_spin_unlock(&s->lock);

	if (v == SW_DROP)
		return TC_ACT_SHOT;
	if (v == SW_MARK && (p.tos & ECN_MASK) != ECN_CE)
		set_ce(skb, &p);
	return TC_ACT_OK;
}
