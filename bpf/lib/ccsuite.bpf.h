/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared BPF-side helpers for ccsuite congestion controls: socket casts,
 * TCP helpers the kernel has as inlines, kernel-version differences, the
 * per-CPU stats map and its accessors.
 */
#ifndef CCSUITE_BPF_H
#define CCSUITE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "kdefs.bpf.h"
#include "stats.h"
#include "tunables.h"
#include "tcp_cc.h"

/* Each argument is evaluated once, as the kernel's min()/max(): an argument
 * with side effects (bbr's full-bw step) must not run twice. */
#ifndef min
#define min(a, b)                                  \
	({                                         \
		__typeof__(a) _min_a = (a);        \
		__typeof__(b) _min_b = (b);        \
		_min_a < _min_b ? _min_a : _min_b; \
	})
#define max(a, b)                                  \
	({                                         \
		__typeof__(a) _max_a = (a);        \
		__typeof__(b) _max_b = (b);        \
		_max_a > _max_b ? _max_a : _max_b; \
	})
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
 * tcp_congestion_ops.cong_control: loader/lib/kfeat.c), not from its version.
 */
#ifdef CCS_PRE_6_10
#define CCS_CONG_CONTROL_ARGS	  struct sock *sk, const struct rate_sample *rs
#define CCS_CAN_WRITE_APP_LIMITED 0
/* the ACK's flags, which cong_control() gets only from 6.10 */
#define CCS_ACK_FLAG(prev_una)	  ccs_ack_flag_of(sk, rs, (prev_una))
#else
#define CCS_CONG_CONTROL_ARGS	  struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs
#define CCS_CAN_WRITE_APP_LIMITED 1
#define CCS_ACK_FLAG(prev_una)	  (flag)
#endif

/* Before 6.10: the flags from what the ACK did (@prev_una: snd_una after
 * the previous ACK), as far as cong_control() needs them. */
static __always_inline int ccs_ack_flag_of(const struct sock *sk, const struct rate_sample *rs,
					   __u32 prev_una)
{
	int flag = 0;

	if (after(tcp_sk(sk)->snd_una, prev_una))
		flag |= FLAG_SND_UNA_ADVANCED | FLAG_DATA_ACKED;
	else if (rs->acked_sacked > 0)
		flag |= FLAG_DATA_SACKED;
	return flag;
}

/*
 * init() and release() do not pair on every kernel.  6.1 calls release() on
 * every socket leaving the CC, among them a listener that chose it with
 * setsockopt() and never had init() (its children do); later kernels (6.18
 * among them) skip release() unless icsk_ca_initialized.  So init() marks the
 * flow live in the algorithm's own state, and release() counts it, and does
 * its clean-up, only when the mark is there: flows_init - flows_release is
 * the flows using the CC on both.  A macro, as the mark may be a bitfield.
 */
#define CCS_FLOW_INIT(st)                                \
	do {                                             \
		(st)->flow_live = 1;                     \
		ccs_stat_inc_exact(CCS_STAT_FLOWS_INIT); \
	} while (0)
#define CCS_FLOW_RELEASE(st)                                        \
	({                                                          \
		bool _was_live = (st)->flow_live;                   \
		(st)->flow_live = 0;                                \
		if (_was_live)                                      \
			ccs_stat_inc_exact(CCS_STAT_FLOWS_RELEASE); \
		_was_live;                                          \
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

/*
 * What the kernel's tcp_cong_control() does for a CC with cong_avoid(), for
 * CCs that take cong_control() to own the window (see ccs_ret_repair()):
 * PRR in CWR and Recovery, growth only on ACKs that may raise cwnd, and the
 * pacing rate.  net/ipv4/tcp_input.c and tcp_output.c are the reference.
 */
struct ccs_prr {
	__u32 delivered; /* tp->prr_delivered, which only the kernel's PRR counts */
	__u32 high_seq;	 /* the reduction it counts for (tp->high_seq) */
};

static __always_inline bool tcp_in_cwnd_reduction(const struct sock *sk)
{
	return (1 << inet_csk(sk)->icsk_ca_state) & ((1 << TCP_CA_CWR) | (1 << TCP_CA_Recovery));
}

/* tcp_cwnd_reduction() (tcp_cc.h), with the kernel's state. */
static __always_inline void ccs_prr(struct sock *sk, struct ccs_prr *prr, __u32 acked_sacked,
				    __u32 losses, int flag)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (prr->high_seq != tp->high_seq) { /* a new reduction began */
		prr->high_seq = tp->high_seq;
		prr->delivered = 0;
	}
	if (!acked_sacked || !tp->prior_cwnd)
		return;
	prr->delivered += acked_sacked;
	tp->snd_cwnd = tcp_cc_prr_cwnd(tp->snd_ssthresh, tcp_packets_in_flight(tp), tp->prior_cwnd,
				       prr->delivered, tp->prr_out, acked_sacked, losses,
				       flag & FLAG_SND_UNA_ADVANCED);
}

/*
 * The socket's namespace, for its sysctls.  A direct read: a struct_ops
 * program's socket is a BTF pointer, so the verifier lets it follow
 * pointers with plain loads (fault-checked), where BPF_CORE_READ() would
 * make a bpf_probe_read_kernel() call per step on every ACK.
 */
static __always_inline const struct net *ccs_sock_net(const struct sock *sk)
{
	return sk->__sk_common.skc_net.net;
}

/* tcp_may_raise_cwnd() */
static __always_inline bool ccs_may_raise_cwnd(const struct sock *sk, int flag)
{
	if ((int)tcp_sk(sk)->reordering > ccs_sock_net(sk)->ipv4.sysctl_tcp_reordering)
		return flag & FLAG_FORWARD_PROGRESS;
	return flag & FLAG_DATA_ACKED;
}

/* tcp_update_pacing_rate() (tcp_cc.h), with the namespace's ratios. */
static __always_inline void ccs_update_pacing_rate(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct net *net = ccs_sock_net(sk);

	sk->sk_pacing_rate =
		tcp_cc_pacing_rate(tp->mss_cache, tp->snd_cwnd, tp->packets_out, tp->snd_ssthresh,
				   tp->srtt_us, net->ipv4.sysctl_tcp_pacing_ss_ratio,
				   net->ipv4.sysctl_tcp_pacing_ca_ratio, sk->sk_max_pacing_rate);
}

/*
 * tcp_slow_start_after_idle_check() and tcp_cwnd_restart() (tcp_cc.h),
 * which the kernel skips for a CC with cong_control(): called at
 * CA_EVENT_TX_START, before lsndtime moves.  The route's initcwnd is not
 * read (10 segments).
 */
static __always_inline void ccs_cwnd_restart_after_idle(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 cwnd = tp->snd_cwnd, now = (__u32)bpf_jiffies64();
	__u32 next =
		tcp_cc_restart_cwnd(cwnd, 10, (__s32)(now - tp->lsndtime), inet_csk(sk)->icsk_rto);

	if (!ccs_sock_net(sk)->ipv4.sysctl_tcp_slow_start_after_idle || tp->packets_out ||
	    next == cwnd)
		return;
	if (tp->snd_ssthresh < cwnd - (cwnd >> 2)) /* tcp_current_ssthresh() */
		tp->snd_ssthresh = cwnd - (cwnd >> 2);
	tp->snd_cwnd = next;
#if CCS_CAN_WRITE_APP_LIMITED
	tp->snd_cwnd_stamp = now;
#endif
}

/* ---- stats (layout in stats.h) ---- */

typedef struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ccs_stats);
} ccs_stats_t;

/* An algorithm linked from several .bpf.c (bpftool gen object) defines its
 * shared maps in one; the others are built with CCS_LINKED_PART and name
 * them extern, so the linker leaves one map of each. */
#ifdef CCS_LINKED_PART
extern ccs_stats_t ccs_stats SEC(".maps");
CCS_COMMON_TUNABLES(CCS_TUNABLE_EXTERN)
#else
ccs_stats_t ccs_stats SEC(".maps");
CCS_COMMON_TUNABLES(CCS_TUNABLE_RODATA)
#endif

/*
 * -DCCS_TWIN builds an algorithm as bench/cpucost's twin of itself (the
 * same algorithm under a twin_ name): no stats at all and no
 * ccs_ret_repair(), nothing but the algorithm.
 */
#ifdef CCS_TWIN
#define CCS_STATS_ON 0
#else
#define CCS_STATS_ON (stats != 0)
#endif

/*
 * This CPU's counters, NULL with stats=0: .rodata is frozen before the
 * verifier runs, so it knows the value and removes every update after a
 * NULL check as dead code.  A callback that counts more than once takes
 * the pointer once (ccs_stat_add_to()).
 */
static __always_inline struct ccs_stats *ccs_stats_this_cpu(void)
{
	__u32 zero = 0;

	if (!CCS_STATS_ON)
		return NULL;
	return bpf_map_lookup_elem(&ccs_stats, &zero);
}

static __always_inline void ccs_stat_add_to(struct ccs_stats *s, __u32 idx, __u64 n)
{
	if (s && idx < CCS_STAT_MAX)
		s->v[idx] += n; /* per-CPU: a rare lost update is fine here */
}

static __always_inline void ccs_stat_add(__u32 idx, __u64 n)
{
	ccs_stat_add_to(ccs_stats_this_cpu(), idx, n);
}

#define ccs_stat_inc(idx) ccs_stat_add((idx), 1)

/* For counts that must be exact (flows_init - flows_release is the flows
 * using the CC, once per flow): an atomic add, as a softirq on the same CPU can run the
 * CC in the middle of a process-context update of the same slot. */
static __always_inline void ccs_stat_inc_exact(__u32 idx)
{
	__u32 zero = 0;
	/* counted with stats=0 too: ccload's flows in use come from these */
	struct ccs_stats *s = bpf_map_lookup_elem(&ccs_stats, &zero);

#ifdef CCS_TWIN
	return;
#endif

	if (s && idx < CCS_STAT_MAX)
		__sync_fetch_and_add(&s->v[idx], 1);
}

/* A counter that must be exact only while stats are on (a test relates
 * it to another one): ccs_stat_inc_exact()'s atomic add, off with
 * stats=0 like ccs_stat_inc(). */
static __always_inline void ccs_stat_inc_atomic(__u32 idx)
{
	if (CCS_STATS_ON)
		ccs_stat_inc_exact(idx);
}

/* Gauge slot: ccload reports the maximum over CPUs. */
static __always_inline void ccs_stat_set(__u32 idx, __u64 val)
{
	struct ccs_stats *s = ccs_stats_this_cpu();

	if (s && idx < CCS_STAT_MAX)
		s->v[idx] = val;
}

/*
 * The kernel does not always get what a BPF CC's ssthresh() or undo_cwnd()
 * returned: with AMD's SRSO mitigation ("safe RET") it can get the low
 * half of a kernel text address (the return thunk's) instead, a value no
 * TCP code makes (tcp_cc_window_impossible()).  The kernel's PRR divides
 * such an ssthresh by prior_cwnd and sets cwnd to hundreds of millions, a
 * line-rate burst until the buffer overflows; TCP halves such a cwnd at a
 * restart after idle and keeps three quarters of it as ssthresh, values
 * without the telltale bit 31.  Kernel CCs (direct calls) are not
 * affected.
 *
 * So no suite CC leaves its window to the kernel's PRR: each runs
 * cong_control() (the DCTCP-based ones do the kernel's PRR themselves,
 * tcp_cc.h), and calls this first to put back its own values, and so does
 * every callback that reads the window (ssthresh(), undo_cwnd(),
 * cwnd_event(), set_state()) before it does: the kernel can hold a bad
 * value across several of them (an undo on an old ACK reaches no
 * cong_control()).  @ssthresh and @cwnd: what the CC last meant them to
 * be.
 */
static __always_inline void ccs_ret_repair(struct sock *sk, __u32 ssthresh, __u32 cwnd)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 mss = tp->mss_cache;
	bool bad = false;

#ifdef CCS_TWIN
	return;
#endif
	if (tcp_cc_window_impossible(tp->snd_ssthresh, mss)) {
		tp->snd_ssthresh = ssthresh;
		bad = true;
	}
	if (tcp_cc_window_impossible(tp->snd_cwnd, mss)) {
		tp->snd_cwnd = cwnd > 2 && !tcp_cc_window_impossible(cwnd, mss) ? cwnd : 2;
		bad = true;
	}
	if (bad)
		ccs_stat_inc(CCS_STAT_BAD_RET);
}

/*
 * ccs_ret(v): what ssthresh() and undo_cwnd() return.  -DCCS_FAULT_RET
 * builds a test variant (test/net/t_cc_window.sh) in which every other
 * result reaches the kernel as SRSO corrupts it, the low half of a kernel
 * text address (bit 31 set) or that halved (as TCP's restart after idle
 * leaves it), so that a test on a machine without SRSO sees the repair
 * work; the CC keeps what it meant.
 */
#ifdef CCS_FAULT_RET
static __u32 ccs_fault_n;

static __always_inline __u32 ccs_ret(__u32 v)
{
	__u32 n = ccs_fault_n++; /* a rare lost update is fine */

	if (n & 1)
		return v;
	return n & 2 ? 0xa0636d00 : 0x5031b680;
}
#else
#define ccs_ret(v) (v)
#endif

/*
 * cong_control()'s first part for a CC that owns its window: the values it
 * last meant put back (ccs_ret_repair(): @ssthresh, @cwnd), PRR in CWR and
 * Recovery, and the segments this ACK may grow the window by (0: none).
 * *@prev_una: snd_una after the last ACK (CCS_ACK_FLAG() before 6.10).
 */
static __always_inline __u32 ccs_own_window(struct sock *sk, struct ccs_prr *prr, __u32 *prev_una,
					    __u32 ssthresh, __u32 cwnd,
					    const struct rate_sample *rs, int flag)
{
	*prev_una = tcp_sk(sk)->snd_una;
	ccs_ret_repair(sk, ssthresh, cwnd);
	if (tcp_in_cwnd_reduction(sk)) {
		ccs_prr(sk, prr, rs->acked_sacked, rs->losses, flag);
		return 0;
	}
	if (rs->acked_sacked <= 0 || !ccs_may_raise_cwnd(sk, flag))
		return 0;
	return rs->acked_sacked;
}

#endif /* CCSUITE_BPF_H */
