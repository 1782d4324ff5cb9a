// SPDX-License-Identifier: GPL-2.0
/*
 * ccs_switch: the test network's bottleneck switch (cls_bpf, direct action,
 * clsact egress of the router's bottleneck port).  The queue model and the
 * decisions are in switch.h; this file takes the lock and rewrites the ECN
 * field; FlashPass's emulation packets, when configured, go to a queue of
 * their own (sw_emu_packet()).  Frames are parsed by lib/parse.bpf.h (untrusted: read with
 * bpf_skb_load_bytes(), up to two VLAN tags); a malformed IP header is
 * counted, and anything that is not valid IPv4/IPv6 is class 0 and
 * Not-ECT.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_core_read.h>
#include "parse.bpf.h"
#include "switch.h"

char _license[] SEC("license") = "GPL";

/* Set by ccload between open and load. */
const volatile struct sw_config cfg = {
	.rate_bps = 100000000,
	.buffer = 100000,
};

/* SW_STATE_DATA: the port's queue; SW_STATE_EMU: the emulation queue */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct sw_state);
} sw_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sw_ctl);
} sw_ctl SEC(".maps");

/*
 * Bytes in the port's root qdisc before this packet joins it, if that is
 * tbf or htb (what the test network puts there: a rate limiter whose
 * backlog is the queue; htb where an emulation class sits beside the data,
 * whose few emulation packets count in it), else SW_NO_REAL: another root
 * (noqueue, mq, prio) has no backlog that is this port's queue.  The context of a tc
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
	if (!ops || bpf_probe_read_kernel(id, sizeof(id), &ops->id) || id[3])
		return SW_NO_REAL;
	if (!(id[0] == 't' && id[1] == 'b' && id[2] == 'f') &&
	    !(id[0] == 'h' && id[1] == 't' && id[2] == 'b'))
		return SW_NO_REAL;
	return BPF_CORE_READ(q, qstats.backlog);
}

/* Is the packet at @p one for the emulation queue (UDP to emu_port)?  By
 * the port alone, whatever the datagram's length says. */
static __always_inline bool sw_is_emulation(struct __sk_buff *skb, const struct ccs_pkt *p)
{
	struct ccs_cursor c;
	struct udphdr uh;

	return cfg.emu_port && ccs_pkt_udp(skb, p, &c, &uh) != CCS_UDP_NONE &&
	       uh.dest == bpf_htons(cfg.emu_port);
}

/*
 * The emulation queue decides (sw_emu_packet()) on its virtual backlog; a
 * packet it passes joins cfg.emu_class when there is one, a class of the
 * port's qdisc at the emulation rate (test/net/topo.sh: htb), where it
 * waits its turn as in a switch's credit queue.  Without that class the
 * packets it passes leave as they came, a burst in is a burst out, and a
 * sender whose emulation is clocked by its credits (bpf_flashpass's loop)
 * gets its bursts back as credits.
 */
static __always_inline int sw_emulation(struct __sk_buff *skb, __u64 now, __u64 gen, int ect)
{
	__u32 key = SW_STATE_EMU, dkey = SW_STATE_DATA;
	struct sw_state *s = bpf_map_lookup_elem(&sw_state, &key);
	struct sw_state *d = bpf_map_lookup_elem(&sw_state, &dkey);
	__u64 other;
	enum sw_verdict v;

	if (!s || !d)
		return TC_ACT_OK;
	/* the data queue's count, without its lock: a count a packet
	 * behind is as good (sw_emu_rate() averages over milliseconds) */
	other = *(volatile __u64 *)&d->other_bytes;
	bpf_spin_lock(&s->lock);
	if (s->reset_gen != gen)
		sw_reset_counters(s, gen);
	v = sw_emu_packet(s, &cfg, now, ect, other);
	bpf_spin_unlock(&s->lock);
	if (v == SW_DROP)
		return TC_ACT_SHOT;
	if (cfg.emu_class)
		skb->priority = cfg.emu_class;
	return TC_ACT_OK;
}

SEC("tc")
int ccs_switch(struct __sk_buff *skb)
{
	struct ccs_pkt p;
	struct sw_state *s;
	enum sw_verdict v;
	enum ccs_pkt_kind kind;
	__u32 zero = 0, cls = 0, segs = skb->gso_segs ? skb->gso_segs : 1;
	__u64 now = bpf_ktime_get_ns(); /* no helper calls under the lock */
	__u64 real = 0, gen;
	struct sw_ctl *ctl;
	int ect = 0;

	kind = ccs_parse(skb, &p);
	if (kind == CCS_PKT_IP) {
		cls = cfg.dscp_class[(p.tos >> 2) & (SW_DSCPS - 1)];
		ect = (p.tos & INET_ECN_MASK) != INET_ECN_NOT_ECT;
	}
	if (cfg.queue == SW_QUEUE_QDISC)
		real = qdisc_backlog(skb);
	ctl = bpf_map_lookup_elem(&sw_ctl, &zero);
	gen = ctl ? ctl->reset_gen : 0;
	if (kind == CCS_PKT_IP && sw_is_emulation(skb, &p))
		return sw_emulation(skb, now, gen, ect);
	s = bpf_map_lookup_elem(&sw_state, &zero);
	if (!s)
		return TC_ACT_OK;
	bpf_spin_lock(&s->lock);
	if (s->reset_gen != gen)
		sw_reset_counters(s, gen);
	v = sw_packet_segs(s, &cfg, now, real, skb->len, cls, ect, segs);
	if (kind == CCS_PKT_MALFORMED)
		s->malformed++;
	bpf_spin_unlock(&s->lock);

	if (v == SW_DROP)
		return TC_ACT_SHOT;
	if (v == SW_MARK && (p.tos & INET_ECN_MASK) != INET_ECN_CE)
		ccs_set_ce(skb, &p);
	return TC_ACT_OK;
}
