// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_ppqd: PPQD, MPTCP congestion control driven by probed queueing
 * delay (docs/mptcp.md; arithmetic and definitions in ppqd.h).
 *
 * Per subflow, every ACK's RTT sample is smoothed (Brown's double
 * exponential smoothing) into a one-step forecast, whose distance from
 * BaseRTT is the queueing delay Q.  At or below its running mean the
 * window grows as LIA's (coupled across the connection's subflows,
 * lib/coupled.bpf.h) times delta; above it the window is cut once per RTT
 * in proportion to how far Q is above the mean, before any loss.  A loss
 * halves it, once per congestion event of the connection (coupled.bpf.h).
 * Beside a loss-based flow, whose queue keeps rising however PPQD cuts,
 * the subflow yields: it competes as LIA until its next loss (ppqd.h,
 * ppqd_judge()).  The smoothing state lives in the subflow's
 * sk_storage (map ppqd_sk, freed with the socket), which the iterator
 * ppqd_flows lists (ccload ppqd flows).  A plain TCP flow is a connection
 * of one subflow.
 */
#include "coupled.bpf.h"
#include "ppqd.h"

char _license[] SEC("license") = "GPL";

PPQD_TUNABLES(CCS_TUNABLE_RODATA)

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ppqd_sk);
} ppqd_sk SEC(".maps");

struct ppqd_ca {
	struct cpl_core core;
	__u32 cut_seq; /* no delay cut until snd_una passes it: once per RTT */
	__u8 no_state; /* its smoothing state could not be made (counted) */
	__u8 mode;     /* enum ppqd_mode, for bench/trace/mptcp.bt */
	__u8 pad[2];
	/* the smoothing's last output, for bench/trace/mptcp.bt */
	__u32 forecast_us;
	__u32 q_us;
	__u32 qmean_us;
};

_Static_assert(sizeof(struct ppqd_ca) <= 13 * sizeof(__u64), "ca state too big");
/* bench/trace/mptcp.bt reads these */
_Static_assert(__builtin_offsetof(struct ppqd_ca, forecast_us) == 80, "mptcp.bt: forecast @80");
_Static_assert(__builtin_offsetof(struct ppqd_ca, q_us) == 84, "mptcp.bt: q @84");
_Static_assert(__builtin_offsetof(struct ppqd_ca, qmean_us) == 88, "mptcp.bt: qmean @88");
_Static_assert(__builtin_offsetof(struct ppqd_ca, mode) == 77, "mptcp.bt: mode @77");

SEC("sockops")
int ppqd_sockops(struct bpf_sock_ops *skops)
{
	cpl_sockops(skops);
	return 1;
}

static __always_inline struct ppqd_sk *ppqd_state(struct sock *sk, struct ppqd_ca *ca, __u64 flags)
{
	struct ppqd_sk *st = ca->no_state ? NULL : bpf_sk_storage_get(&ppqd_sk, sk, NULL, flags);

	if (!st && flags && !ca->no_state) {
		ca->no_state = 1;
		ccs_stat_inc(PPQD_STAT_NO_STATE);
	}
	return st;
}

SEC("struct_ops")
void BPF_PROG(ppqd_init, struct sock *sk)
{
	struct ppqd_ca *ca = inet_csk_ca(sk);

	struct ppqd_sk *st = bpf_sk_storage_get(&ppqd_sk, sk, NULL, 0);

	cpl_core_init(sk, &ca->core);
	/* a socket back on bpf_ppqd (or reconnected) smooths afresh */
	if (st)
		__builtin_memset(st, 0, sizeof(*st));
	ca->cut_seq = tcp_sk(sk)->snd_una;
	ca->no_state = 0;
	ca->mode = PPQD_DELAY;
	ca->forecast_us = 0;
	ca->q_us = 0;
	ca->qmean_us = 0;
}

SEC("struct_ops")
void BPF_PROG(ppqd_release, struct sock *sk)
{
	struct ppqd_ca *ca = inet_csk_ca(sk);

	cpl_core_release(&ca->core);
}

SEC("struct_ops")
__u32 BPF_PROG(ppqd_ssthresh, struct sock *sk)
{
	struct ppqd_ca *ca = inet_csk_ca(sk);
	struct ppqd_sk *st = ppqd_state(sk, ca, 0);

	__u32 next = cpl_core_ssthresh(sk, &ca->core);

	if (st) {
		if (!ca->core.joined)
			st->losses++;
		ppqd_guard_loss(&st->guard);
	}
	return next;
}

SEC("struct_ops")
__u32 BPF_PROG(ppqd_undo_cwnd, struct sock *sk)
{
	return cpl_core_undo_cwnd(sk, inet_csk_ca(sk));
}

/* The kernel calls set_state() right after it took ssthresh()'s result
 * (entering CWR, Recovery or Loss): a corrupted one is put right here,
 * before TCP sends under it, not at the next ACK (ccs_ret_repair()). */
SEC("struct_ops")
void BPF_PROG(ppqd_set_state, struct sock *sk, __u8 new_state)
{
	cpl_core_repair(sk, inet_csk_ca(sk));
}

SEC("struct_ops")
void BPF_PROG(ppqd_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	cpl_core_cwnd_event(sk, &((struct ppqd_ca *)inet_csk_ca(sk))->core, ev);
}

/* Every RTT sample into the smoothing. */
SEC("struct_ops")
void BPF_PROG(ppqd_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct ppqd_ca *ca = inet_csk_ca(sk);
	struct ppqd_sk *st;

	if (sample->rtt_us <= 0)
		return;
	st = ppqd_state(sk, ca, BPF_SK_STORAGE_GET_F_CREATE);
	if (!st)
		return;
	ppqd_sample(&st->sm, sample->rtt_us, a);
	ppqd_guard_sample(&st->guard, sample->rtt_us);
	ca->forecast_us = st->sm.forecast_us;
	ca->q_us = st->sm.q_us;
	ca->qmean_us = st->sm.qmean_us;
	ccs_stat_inc(PPQD_STAT_SAMPLES);
}

/*
 * Queueing delay above its mean, once per RTT: whether the queue is
 * someone else's (ppqd_judge()), else a cut.  True when the subflow
 * competes from now on (no cut).
 */
static __always_inline bool ppqd_delay_control(struct sock *sk, struct ppqd_ca *ca,
					       struct ppqd_sk *st, __u32 w_total,
					       struct ccs_stats *s)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 cwnd = tp->snd_cwnd, next;

	if (before(tp->snd_una, ca->cut_seq))
		return false;
	ca->cut_seq = tp->snd_nxt;
	if (ppqd_judge(&st->guard, st->sm.base_us, st->sm.q_us, w_total, yield)) {
		st->competes++;
		ccs_stat_add_to(s, PPQD_STAT_COMPETES, 1);
		return true;
	}
	if (!ppqd_may_cut(&st->guard))
		return false;
	next = ppqd_decrease(cwnd, &st->sm, delta);
	if (next >= cwnd)
		return false;
	tp->snd_cwnd = next;
	/* out of slow start, and what ccs_ret_repair() puts back */
	tp->snd_ssthresh = next;
	ca->core.ssthresh = next;
	ca->core.acc = 0;
	st->decreases++;
	ccs_stat_add_to(s, PPQD_STAT_DELAY_DECREASES, 1);
	return false;
}

SEC("struct_ops")
void BPF_PROG(ppqd_cong_control, CCS_CONG_CONTROL_ARGS)
{
	struct ppqd_ca *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct ccs_stats *s = ccs_stats_this_cpu();
	struct ppqd_sk *st = ppqd_state(sk, ca, 0);
	struct lia_coupling c;
	__u32 acked = cpl_core_control(sk, &ca->core, rs, CCS_ACK_FLAG(ca->core.prev_una));
	bool compete;
	int coupled;
	__u64 cnt;

	ccs_stat_add_to(s, CCS_STAT_ACKS, 1);
	/* the once-per-RTT gate trails snd_una, so that it never wraps */
	if (after(tp->snd_una, ca->cut_seq))
		ca->cut_seq = tp->snd_una;
	cpl_update(sk, &ca->core, &c);
	compete = st && st->guard.mode == PPQD_COMPETE;
	if (st && !compete && !tcp_in_cwnd_reduction(sk)) {
		if (st->sm.samples < warmup) {
			ccs_stat_add_to(s, PPQD_STAT_WARMUP, 1);
		} else if (ppqd_above_mean(&st->sm, warmup)) {
			compete = ppqd_delay_control(sk, ca, st, (__u32)c.w_total, s);
			if (!compete)
				acked = 0; /* no growth above the mean */
		} else {
			ppqd_below_mean(&st->guard);
			if (acked)
				ccs_stat_add_to(s, PPQD_STAT_DELAY_GROWTH, 1);
		}
	}
	if (compete)
		ccs_stat_add_to(s, PPQD_STAT_COMPETE_ACKS, 1);
	if (acked) {
		cnt = lia_cnt(&c, tp->snd_cwnd, &coupled);
		ccs_stat_add_to(s, coupled ? CPL_STAT_INC_COUPLED : CPL_STAT_INC_UNCOUPLED, 1);
		cpl_core_grow(sk, &ca->core, acked, compete ? cnt : ppqd_cnt(cnt, delta));
	}
	if (st) {
		ca->mode = st->guard.mode;
		st->cwnd = tp->snd_cwnd;
		st->ssthresh = tp->snd_ssthresh;
		st->token = ca->core.key.token;
		st->netns = ca->core.key.netns;
	}
	ccs_update_pacing_rate(sk);
}

/*
 * ccload ppqd flows: one struct ppqd_flow_rec per TCP socket with
 * smoothing state, from the pinned iterator link.  A tcp iterator walks
 * the namespace of whoever reads it (ccload enters each in turn); this
 * kernel refuses iterators over sk_storage maps (EPERM).
 */
SEC("iter/tcp")
int ppqd_flows(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct ppqd_flow_rec r = {};
	struct tcp_sock *tp;
	struct ppqd_sk *st;
	int i;

	if (!skc)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp)
		return 0;
	st = bpf_sk_storage_get(&ppqd_sk, tp, NULL, 0);
	if (!st)
		return 0;
	r.family = skc->skc_family;
	if (r.family == AF_INET) {
		r.saddr[2] = bpf_htonl(0xffff);
		r.daddr[2] = bpf_htonl(0xffff);
		r.saddr[3] = skc->skc_rcv_saddr;
		r.daddr[3] = skc->skc_daddr;
	} else {
		for (i = 0; i < 4; i++) {
			r.saddr[i] = skc->skc_v6_rcv_saddr.in6_u.u6_addr32[i];
			r.daddr[i] = skc->skc_v6_daddr.in6_u.u6_addr32[i];
		}
	}
	r.sport = skc->skc_num;
	r.dport = bpf_ntohs(skc->skc_dport);
	__builtin_memcpy(&r.st, st, sizeof(r.st));
	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}

SEC(".struct_ops")
struct tcp_congestion_ops ppqd = {
	.init = (void *)ppqd_init,
	.release = (void *)ppqd_release,
	.ssthresh = (void *)ppqd_ssthresh,
	.undo_cwnd = (void *)ppqd_undo_cwnd,
	.cwnd_event = (void *)ppqd_cwnd_event,
	.set_state = (void *)ppqd_set_state,
	.pkts_acked = (void *)ppqd_pkts_acked,
	.cong_control = (void *)ppqd_cong_control,
	.name = "bpf_ppqd",
};
