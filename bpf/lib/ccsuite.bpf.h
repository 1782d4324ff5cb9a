/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared BPF-side helpers for ccsuite congestion controls: socket casts,
 * kernel constants that are #defines (so absent from vmlinux.h), the
 * per-CPU stats map and its accessors.
 */
#ifndef CCSUITE_BPF_H
#define CCSUITE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "stats.h"

/* include/linux/tcp.h: tp->ecn_flags bits (RFC 3168 mode is bit 0 on every
 * kernel; 6.18 renamed TCP_ECN_OK to TCP_ECN_MODE_RFC3168 and added AccECN). */
#define TCP_ECN_OK		1
#define TCP_ECN_QUEUE_CWR	2
#define TCP_ECN_DEMAND_CWR	4
#define TCP_ECN_MODE_ACCECN	16

/* include/net/tcp.h: tcp_congestion_ops.flags */
#define TCP_CONG_NON_RESTRICTED	0x1
#define TCP_CONG_NEEDS_ECN	0x2

#define TCP_INFINITE_SSTHRESH	0x7fffffff

/* Each argument is evaluated once, as the kernel's min()/max(): an argument
 * with side effects (bbr's full-bw step) must not run twice. */
#ifndef min
#define min(a, b) ({ __typeof__(a) _min_a = (a); __typeof__(b) _min_b = (b); \
		     _min_a < _min_b ? _min_a : _min_b; })
#define max(a, b) ({ __typeof__(a) _max_a = (a); __typeof__(b) _max_b = (b); \
		     _max_a > _max_b ? _max_a : _max_b; })
#endif

static __always_inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline struct inet_connection_sock *inet_csk(const struct sock *sk)
{
	return (struct inet_connection_sock *)sk;
}

static __always_inline void *inet_csk_ca(const struct sock *sk)
{
	return (void *)inet_csk(sk)->icsk_ca_priv;
}

static __always_inline bool before(__u32 seq1, __u32 seq2)
{
	return (__s32)(seq1 - seq2) < 0;
}
#define after(seq2, seq1) before(seq1, seq2)

static __always_inline bool tcp_in_slow_start(const struct tcp_sock *tp)
{
	return tp->snd_cwnd < tp->snd_ssthresh;
}

static __always_inline bool tcp_ecn_ok(const struct tcp_sock *tp)
{
	return tp->ecn_flags & (TCP_ECN_OK | TCP_ECN_MODE_ACCECN);
}

/* include/net/tcp.h tcp_is_cwnd_limited(): growth only while cwnd limits
 * (the flag first, as the kernel has it since 6.4; slow start also grows
 * until cwnd is twice what was in flight). */
static __always_inline bool tcp_is_cwnd_limited(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited))
		return true;
	if (tcp_in_slow_start(tp))
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return false;
}

/*
 * Kernel-version differences, all in one place.  Objects target Linux 6.10
 * and later; -DCCS_PRE_6_10 builds the variant for 6.1 to 6.9 of an
 * algorithm that needs one.  The two differ in:
 *  - cong_control(): (sk, rs) before 6.10, (sk, ack, flag, rs) from it on;
 *  - tcp_sock.app_limited (and snd_cwnd_stamp): writable by a CC from 6.10
 *    (the same series), read-only before.
 * ccload picks the variant from the running kernel's BTF (the arity of
 * tcp_congestion_ops.cong_control: loader/kfeat.c), not from its version.
 */
#ifdef CCS_PRE_6_10
#define CCS_CONG_CONTROL_ARGS struct sock *sk, const struct rate_sample *rs
#define CCS_CAN_WRITE_APP_LIMITED 0
#else
#define CCS_CONG_CONTROL_ARGS struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs
#define CCS_CAN_WRITE_APP_LIMITED 1
#endif

/*
 * init() and release() do not pair on every kernel.  6.1 calls release() on
 * every socket leaving the CC, among them a listener that chose it with
 * setsockopt() and never had init() (its children do); later kernels (6.18
 * here) skip release() unless icsk_ca_initialized.  So init() marks the
 * flow live in the algorithm's own state, and release() counts it, and does
 * its clean-up, only when the mark is there: flows_init - flows_release is
 * the flows using the CC on both.  A macro, as the mark may be a bitfield.
 */
#define CCS_FLOW_INIT(st) do {				\
	(st)->flow_live = 1;				\
	ccs_stat_inc(CCS_STAT_FLOWS_INIT);		\
} while (0)
#define CCS_FLOW_RELEASE(st) ({				\
	bool _was_live = (st)->flow_live;		\
	(st)->flow_live = 0;				\
	if (_was_live)					\
		ccs_stat_inc(CCS_STAT_FLOWS_RELEASE);	\
	_was_live;					\
})

/* include/net/tcp.h tcp_packets_in_flight(): sent, not yet acked or lost. */
static __always_inline __u32 tcp_packets_in_flight(const struct tcp_sock *tp)
{
	return tp->packets_out - (tp->sacked_out + tp->lost_out) + tp->retrans_out;
}

/* include/net/tcp.h tcp_min_rtt(): the kernel's own 5-minute min RTT. */
static __always_inline __u32 tcp_min_rtt(const struct tcp_sock *tp)
{
	return tp->rtt_min.s[0].v;
}

static __always_inline __s64 tcp_stamp_us_delta(__u64 t1, __u64 t0)
{
	return t1 > t0 ? (__s64)(t1 - t0) : 0;
}

/* Kernel helpers exported to struct_ops congestion controls as kfuncs. */
extern __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked) __ksym;
extern void tcp_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 acked) __ksym;

/* The first part of Reno's growth: nothing unless cwnd limits the flow,
 * then slow start.  Returns the acked segments left for congestion
 * avoidance (0: none). */
static __always_inline __u32 ccs_slow_start_part(struct sock *sk, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!tcp_is_cwnd_limited(sk))
		return 0;
	if (tcp_in_slow_start(tp))
		acked = tcp_slow_start(tp, acked);
	return acked;
}

/* Reno growth: slow start, then +1 segment per window of ACKs (every CC in
 * the suite that does not own its growth uses this). */
static __always_inline void ccs_reno_cong_avoid(struct sock *sk, __u32 acked)
{
	acked = ccs_slow_start_part(sk, acked);
	if (acked)
		tcp_cong_avoid_ai(tcp_sk(sk), tcp_sk(sk)->snd_cwnd, acked);
}

/* ---- stats (layout in stats.h) ---- */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ccs_stats);
} ccs_stats SEC(".maps");

static __always_inline struct ccs_stats *ccs_stats_this_cpu(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&ccs_stats, &zero);
}

static __always_inline void ccs_stat_add(__u32 idx, __u64 n)
{
	struct ccs_stats *s = ccs_stats_this_cpu();

	if (s && idx < CCS_STAT_MAX)
		s->v[idx] += n;	/* per-CPU slot: no atomics needed */
}

#define ccs_stat_inc(idx) ccs_stat_add((idx), 1)

/* Gauge slot: ccload reports the maximum over CPUs. */
static __always_inline void ccs_stat_set(__u32 idx, __u64 val)
{
	struct ccs_stats *s = ccs_stats_this_cpu();

	if (s && idx < CCS_STAT_MAX)
		s->v[idx] = val;
}

#endif /* CCSUITE_BPF_H */
