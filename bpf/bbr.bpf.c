// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_bbr: BBR v1, as Linux implements it in net/ipv4/tcp_bbr.c, written as
 * a struct_ops congestion control.
 *
 * Model: the max delivery rate over 10 rounds (bw) and the min RTT over
 * 10 s; BDP = bw * min_rtt.  Modes: STARTUP (gain 2/ln2) until bw stops
 * growing 25 % per round for 3 rounds, DRAIN (gain ln2/2) until inflight
 * is down to a BDP, PROBE_BW (pacing gain cycling 5/4, 3/4, 1 x 6 from a
 * random phase), PROBE_RTT (4 packets for 200 ms and a round) when the
 * min RTT has not been refreshed for 10 s.  Also: long-term bw (policer)
 * detection, the ACK-aggregation allowance, cwnd quantization for TSO,
 * packet conservation in the first round of recovery, restart from idle.
 * It owns pacing: cong_control() writes sk_pacing_rate.
 *
 * Differences from Linux, all from what BPF can reach: times that Linux
 * keeps in jiffies are kept in ms of tp->tcp_mstamp; get_info is not
 * allowed for BPF (ss shows no bbr: line; ccload stats and the bpftrace
 * script show the model instead).  The arithmetic is in bbr.h and the
 * max filter in lib/minmax.h, both unit-tested on the host.
 */
#include "ccsuite.bpf.h"
#include "minmax.h"
#include "bbr.h"

char _license[] SEC("license") = "GPL";

/* Tunables (ccload attach bpf_bbr --set name=value), Linux's defaults. */
BBR_TUNABLES(CCS_TUNABLE_RODATA)

#define BW_RTTS		     (BBR_CYCLE_LEN + 2) /* bw filter window, rounds */
#define CYCLE_RAND	     7
#define FULL_BW_CNT	     3
#define LT_INTVL_MIN_RTTS    4
#define LT_LOSS_THRESH	     50 /* lost/delivered > 50/256 (20 %) */
#define LT_BW_MAX_RTTS	     48
#define EXTRA_ACKED_WIN_RTTS 5
#define ACK_EPOCH_RESET	     (1U << 20)
#define EXTRA_ACKED_MAX_US   (100 * 1000)
#define BBR_STAT_BATCH	     64

struct bbr_ca {
	__u32 min_rtt_us;	    /* min RTT in the window */
	__u32 min_rtt_stamp;	    /* ms: when min_rtt_us was taken */
	__u32 probe_rtt_done_stamp; /* ms: end of PROBE_RTT */
	struct minmax bw;	    /* max delivery rate, pkt/us << 24 */
	__u32 rtt_cnt;		    /* packet-timed rounds */
	__u32 next_rtt_delivered;   /* tp->delivered at the end of the round */
	__u64 cycle_mstamp;	    /* start of this gain-cycle phase */
	__u32 mode : 3, prev_ca_state : 3, packet_conservation : 1, round_start : 1,
		idle_restart : 1, probe_rtt_round_done : 1,
		flow_live : 1, /* init() ran: CCS_FLOW_INIT() */
		b_acks : 7,    /* ACKs not yet in the stats map (BBR_STAT_BATCH) */
		unused : 5, lt_is_sampling : 1, lt_rtt_cnt : 7, lt_use_bw : 1;
	__u32 lt_bw; /* long-term (policed) bw */
	__u32 lt_last_delivered;
	__u32 lt_last_stamp; /* ms */
	__u32 lt_last_lost;
	__u32 pacing_gain : 10, cwnd_gain : 10, full_bw_reached : 1, full_bw_cnt : 2, cycle_idx : 3,
		has_seen_rtt : 1, unused_b : 5;
	__u32 prior_cwnd;	/* cwnd before recovery or PROBE_RTT */
	__u32 full_bw;		/* bw to beat in STARTUP */
	__u64 ack_epoch_mstamp; /* start of the ACK-aggregation epoch */
	__u16 extra_acked[2];	/* max excess ACKed, two windows */
	__u32 ack_epoch_acked : 20, extra_acked_win_rtts : 5, extra_acked_win_idx : 1, unused_c : 6;
};

_Static_assert(sizeof(struct bbr_ca) <= 13 * sizeof(__u64), "bbr state exceeds icsk_ca_priv");

static __always_inline struct bbr_ca *ca(const struct sock *sk)
{
	return inet_csk_ca(sk);
}

static __always_inline __u32 now_ms(const struct tcp_sock *tp)
{
	return (__u32)(tp->tcp_mstamp / 1000);
}

static __always_inline void set_mode(struct bbr_ca *bbr, __u32 mode)
{
	if (bbr->mode != mode)
		ccs_stat_inc(BBR_STAT_ENTER_STARTUP + mode);
	bbr->mode = mode;
}

static __always_inline __u32 max_bw(const struct sock *sk)
{
	return ccs_minmax_get(&ca(sk)->bw);
}

static __always_inline __u32 bbr_bw(const struct sock *sk)
{
	const struct bbr_ca *bbr = ca(sk);

	return bbr->lt_use_bw ? bbr->lt_bw : max_bw(sk);
}

static __always_inline __u64 bw_to_pacing_rate(struct sock *sk, __u32 bw, __u32 gain)
{
	__u64 rate = bbr_rate_bytes_per_sec(bw, tcp_sk(sk)->mss_cache, gain, pacing_margin_pct);

	return min(rate, (__u64)sk->sk_max_pacing_rate);
}

/* high_gain * initial cwnd / RTT (1 ms before any RTT sample). */
static __always_inline void init_pacing_rate_from_rtt(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr_ca *bbr = ca(sk);
	__u32 rtt_us = 1000;
	__u64 bw;

	if (tp->srtt_us) {
		rtt_us = max(tp->srtt_us >> 3, 1U);
		bbr->has_seen_rtt = 1;
	}
	bw = (__u64)tp->snd_cwnd * BW_UNIT / rtt_us;
	sk->sk_pacing_rate = bw_to_pacing_rate(sk, (__u32)bw, high_gain);
}

static __always_inline void set_pacing_rate(struct sock *sk, __u32 bw, __u32 gain)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr_ca *bbr = ca(sk);
	__u64 rate = bw_to_pacing_rate(sk, bw, gain);

	if (!bbr->has_seen_rtt && tp->srtt_us)
		init_pacing_rate_from_rtt(sk);
	/* STARTUP never lowers the rate: an early low bw sample is noise. */
	if (bbr->full_bw_reached || rate > sk->sk_pacing_rate)
		sk->sk_pacing_rate = rate;
}

static __always_inline __u32 tso_segs_goal(struct sock *sk)
{
	return bbr_tso_segs_of(sk->sk_pacing_rate, sk->sk_pacing_shift, tcp_sk(sk)->mss_cache);
}

static __always_inline __u32 inflight(struct sock *sk, __u32 bw, __u32 gain)
{
	const struct bbr_ca *bbr = ca(sk);

	return bbr_quantize(bbr_bdp_of(bw, bbr->min_rtt_us, gain), tso_segs_goal(sk),
			    bbr->mode == BBR_MODE_PROBE_BW && bbr->cycle_idx == 0);
}

/* Packets still in the network when the next skb leaves (its departure
 * time may lie ahead with EDT pacing). */
static __always_inline __u32 packets_in_net_at_edt(struct sock *sk, __u32 inflight_now)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr_ca *bbr = ca(sk);
	__u64 now_ns = tp->tcp_clock_cache, edt_ns = max(tp->tcp_wstamp_ns, now_ns);
	__u64 interval_us = (edt_ns - now_ns) / 1000;
	__u32 delivered = (__u32)(((__u64)bbr_bw(sk) * interval_us) >> BW_SCALE);
	__u32 at_edt = inflight_now;

	if (bbr->pacing_gain > BBR_UNIT)
		at_edt += tso_segs_goal(sk);
	return delivered >= at_edt ? 0 : at_edt - delivered;
}

/* Values the kernel took in place of what bbr returned (ccs_ret_repair()):
 * ssthresh stays at infinity (bbr_ssthresh()), cwnd goes back to the one
 * saved at the last loss or PROBE_RTT. */
static __always_inline void bbr_repair(struct sock *sk)
{
	ccs_ret_repair(sk, TCP_INFINITE_SSTHRESH, ca(sk)->prior_cwnd);
}

static __always_inline void save_cwnd(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr_ca *bbr = ca(sk);

	if (bbr->prev_ca_state < TCP_CA_Recovery && bbr->mode != BBR_MODE_PROBE_RTT)
		bbr->prior_cwnd = tp->snd_cwnd;
	else /* recovery or PROBE_RTT cut it: keep the larger */
		bbr->prior_cwnd = max(bbr->prior_cwnd, tp->snd_cwnd);
}

static __always_inline void advance_cycle_phase(struct sock *sk)
{
	struct bbr_ca *bbr = ca(sk);

	bbr->cycle_idx = (bbr->cycle_idx + 1) & (BBR_CYCLE_LEN - 1);
	bbr->cycle_mstamp = tcp_sk(sk)->delivered_mstamp;
}

static __always_inline void reset_probe_bw_mode(struct sock *sk)
{
	struct bbr_ca *bbr = ca(sk);

	set_mode(bbr, BBR_MODE_PROBE_BW);
	bbr->cycle_idx = BBR_CYCLE_LEN - 1 - bpf_get_prandom_u32() % CYCLE_RAND;
	advance_cycle_phase(sk);
}

static __always_inline void reset_mode(struct sock *sk)
{
	if (!ca(sk)->full_bw_reached)
		set_mode(ca(sk), BBR_MODE_STARTUP);
	else
		reset_probe_bw_mode(sk);
}

static __always_inline void check_probe_rtt_done(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr_ca *bbr = ca(sk);

	if (!(bbr->probe_rtt_done_stamp && after(now_ms(tp), bbr->probe_rtt_done_stamp)))
		return;
	bbr->min_rtt_stamp = now_ms(tp); /* wait a while until the next */
	tp->snd_cwnd = max(tp->snd_cwnd, bbr->prior_cwnd);
	reset_mode(sk);
}

/* ---- long-term bw: token-bucket policer detection ---- */

static __always_inline void reset_lt_bw_sampling_interval(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr_ca *bbr = ca(sk);

	bbr->lt_last_stamp = (__u32)(tp->delivered_mstamp / 1000);
	bbr->lt_last_delivered = tp->delivered;
	bbr->lt_last_lost = tp->lost;
	bbr->lt_rtt_cnt = 0;
}

static __always_inline void reset_lt_bw_sampling(struct sock *sk)
{
	struct bbr_ca *bbr = ca(sk);

	bbr->lt_bw = 0;
	bbr->lt_use_bw = 0;
	bbr->lt_is_sampling = 0;
	reset_lt_bw_sampling_interval(sk);
}

static __always_inline void lt_bw_interval_done(struct sock *sk, __u32 bw)
{
	struct bbr_ca *bbr = ca(sk);

	if (bbr->lt_bw &&
	    bbr_lt_consistent(bw, bbr->lt_bw, tcp_sk(sk)->mss_cache, pacing_margin_pct)) {
		/* Two consistent lossy intervals: we are policed. */
		bbr->lt_bw = (bw + bbr->lt_bw) >> 1;
		bbr->lt_use_bw = 1;
		bbr->pacing_gain = BBR_UNIT;
		bbr->lt_rtt_cnt = 0;
		ccs_stat_inc(BBR_STAT_LT_BW_ON);
		return;
	}
	bbr->lt_bw = bw;
	reset_lt_bw_sampling_interval(sk);
}

static __always_inline void lt_bw_sampling(struct sock *sk, int losses, bool app_limited)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr_ca *bbr = ca(sk);
	__u32 lost, delivered, t;
	__u64 bw;

	if (bbr->lt_use_bw) {
		if (bbr->mode == BBR_MODE_PROBE_BW && bbr->round_start &&
		    ++bbr->lt_rtt_cnt >= LT_BW_MAX_RTTS) {
			reset_lt_bw_sampling(sk);
			reset_probe_bw_mode(sk);
		}
		return;
	}
	/* Start at the first loss: the policer's tokens are exhausted then. */
	if (!bbr->lt_is_sampling) {
		if (!losses)
			return;
		reset_lt_bw_sampling_interval(sk);
		bbr->lt_is_sampling = 1;
	}
	if (app_limited) {
		reset_lt_bw_sampling(sk);
		return;
	}
	if (bbr->round_start)
		bbr->lt_rtt_cnt++;
	if (bbr->lt_rtt_cnt < LT_INTVL_MIN_RTTS)
		return;
	if (bbr->lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS) {
		reset_lt_bw_sampling(sk);
		return;
	}
	if (!losses)
		return;
	lost = tp->lost - bbr->lt_last_lost;
	delivered = tp->delivered - bbr->lt_last_delivered;
	if (!delivered || ((__u64)lost << BBR_SCALE) < (__u64)LT_LOSS_THRESH * delivered)
		return;
	t = (__u32)(tp->delivered_mstamp / 1000) - bbr->lt_last_stamp;
	if ((__s32)t < 1)
		return;
	if (t >= ~0U / 1000) {
		reset_lt_bw_sampling(sk);
		return;
	}
	bw = (__u64)delivered * BW_UNIT / ((__u64)t * 1000);
	lt_bw_interval_done(sk, (__u32)bw);
}

/* ---- the model ---- */

static __always_inline void update_bw(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr_ca *bbr = ca(sk);
	__u64 bw;

	bbr->round_start = 0;
	if (rs->delivered < 0 || rs->interval_us <= 0)
		return;
	if (!before(rs->prior_delivered, bbr->next_rtt_delivered)) {
		bbr->next_rtt_delivered = tp->delivered;
		bbr->rtt_cnt++;
		bbr->round_start = 1;
		bbr->packet_conservation = 0;
	}
	lt_bw_sampling(sk, rs->losses, rs->is_app_limited);
	bw = (__u64)rs->delivered * BW_UNIT / (__u64)rs->interval_us;
	/* An app-limited sample only counts when it is no lower than the model. */
	if (!rs->is_app_limited || bw >= max_bw(sk))
		ccs_minmax_running_max(&bbr->bw, BW_RTTS, bbr->rtt_cnt, (__u32)bw);
}

/* The verifier allows only constant offsets into icsk_ca_priv: index the
 * two-slot window with a branch. */
static __always_inline __u16 *extra_acked_slot(struct bbr_ca *bbr)
{
	return bbr->extra_acked_win_idx ? &bbr->extra_acked[1] : &bbr->extra_acked[0];
}

static __always_inline void update_ack_aggregation(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr_ca *bbr = ca(sk);
	__u32 epoch_us, expected, extra;

	if (!extra_acked_gain || rs->acked_sacked <= 0 || rs->delivered < 0 || rs->interval_us <= 0)
		return;
	if (bbr->round_start) {
		bbr->extra_acked_win_rtts = min(0x1FU, bbr->extra_acked_win_rtts + 1);
		if (bbr->extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS) {
			bbr->extra_acked_win_rtts = 0;
			bbr->extra_acked_win_idx = bbr->extra_acked_win_idx ? 0 : 1;
			*extra_acked_slot(bbr) = 0;
		}
	}
	epoch_us = (__u32)tcp_stamp_us_delta(tp->delivered_mstamp, bbr->ack_epoch_mstamp);
	expected = (__u32)((__u64)bbr_bw(sk) * epoch_us / BW_UNIT);
	/* A new epoch when ACKs come slower than the model, or after many. */
	if (bbr->ack_epoch_acked <= expected ||
	    bbr->ack_epoch_acked + rs->acked_sacked >= ACK_EPOCH_RESET) {
		bbr->ack_epoch_acked = 0;
		bbr->ack_epoch_mstamp = tp->delivered_mstamp;
		expected = 0;
	}
	bbr->ack_epoch_acked = min(0xFFFFFU, bbr->ack_epoch_acked + rs->acked_sacked);
	extra = bbr->ack_epoch_acked - expected;
	extra = min(extra, tp->snd_cwnd);
	if (extra > *extra_acked_slot(bbr))
		*extra_acked_slot(bbr) = (__u16)min(extra, 0xFFFFU);
}

static __always_inline bool is_next_cycle_phase(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr_ca *bbr = ca(sk);
	bool full_length = tcp_stamp_us_delta(tp->delivered_mstamp, bbr->cycle_mstamp) >
			   bbr->min_rtt_us;
	__u32 in_net;

	if (bbr->pacing_gain == BBR_UNIT)
		return full_length;
	in_net = packets_in_net_at_edt(sk, rs->prior_in_flight);
	if (bbr->pacing_gain > BBR_UNIT) /* probing: reach gain * BDP, or loss */
		return full_length &&
		       (rs->losses || in_net >= inflight(sk, max_bw(sk), bbr->pacing_gain));
	/* draining: until inflight is down to one BDP */
	return full_length || in_net <= inflight(sk, max_bw(sk), BBR_UNIT);
}

static __always_inline void check_full_bw_reached(struct sock *sk, const struct rate_sample *rs)
{
	struct bbr_ca *bbr = ca(sk);
	__u32 full_bw = bbr->full_bw, cnt;

	if (bbr->full_bw_reached || !bbr->round_start || rs->is_app_limited)
		return;
	cnt = bbr_full_bw_step(max_bw(sk), &full_bw, bbr->full_bw_cnt);
	bbr->full_bw_cnt = min(cnt, 3U);
	bbr->full_bw = full_bw;
	bbr->full_bw_reached = bbr->full_bw_cnt >= FULL_BW_CNT;
	if (bbr->full_bw_reached) {
		ccs_stat_inc(BBR_STAT_FULL_BW_REACHED);
		ccs_stat_set(BBR_STAT_FULL_BW_BPS,
			     bbr_rate_bytes_per_sec(full_bw, tcp_sk(sk)->mss_cache, BBR_UNIT, 0) *
				     8);
	}
}

static __always_inline void check_drain(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr_ca *bbr = ca(sk);

	if (bbr->mode == BBR_MODE_STARTUP && bbr->full_bw_reached) {
		set_mode(bbr, BBR_MODE_DRAIN);
		tp->snd_ssthresh = inflight(sk, max_bw(sk), BBR_UNIT);
	}
	if (bbr->mode == BBR_MODE_DRAIN && packets_in_net_at_edt(sk, tcp_packets_in_flight(tp)) <=
						   inflight(sk, max_bw(sk), BBR_UNIT))
		reset_probe_bw_mode(sk); /* the queue is drained */
}

static __always_inline void update_min_rtt(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr_ca *bbr = ca(sk);
	__u32 now = now_ms(tp);
	bool expired = after(now, bbr->min_rtt_stamp + min_rtt_win_ms);

	if (rs->rtt_us >= 0 && (rs->rtt_us < bbr->min_rtt_us || (expired && !rs->is_ack_delayed))) {
		bbr->min_rtt_us = (__u32)rs->rtt_us;
		bbr->min_rtt_stamp = now;
	}
	if (probe_rtt_mode_ms > 0 && expired && !bbr->idle_restart &&
	    bbr->mode != BBR_MODE_PROBE_RTT) {
		set_mode(bbr, BBR_MODE_PROBE_RTT); /* dip: drain the queue */
		save_cwnd(sk);
		bbr->probe_rtt_done_stamp = 0;
	}
	if (bbr->mode == BBR_MODE_PROBE_RTT) {
		__u32 in_flight = tcp_packets_in_flight(tp);

		/* Low-rate samples of this mode must not lower the model.  (Not
		 * writable before 6.10: there, a bw max-filter window that ends
		 * in PROBE_RTT may take a lower sample.) */
		if (CCS_CAN_WRITE_APP_LIMITED)
			tp->app_limited = (tp->delivered + in_flight) ?: 1;
		if (!bbr->probe_rtt_done_stamp && in_flight <= BBR_CWND_MIN_TARGET) {
			bbr->probe_rtt_done_stamp = now + probe_rtt_mode_ms;
			bbr->probe_rtt_round_done = 0;
			bbr->next_rtt_delivered = tp->delivered;
		} else if (bbr->probe_rtt_done_stamp) {
			if (bbr->round_start)
				bbr->probe_rtt_round_done = 1;
			if (bbr->probe_rtt_round_done)
				check_probe_rtt_done(sk);
		}
	}
	if (rs->delivered > 0)
		bbr->idle_restart = 0;
}

static __always_inline void update_gains(struct bbr_ca *bbr)
{
	switch (bbr->mode) {
	case BBR_MODE_STARTUP:
		bbr->pacing_gain = high_gain;
		bbr->cwnd_gain = high_gain;
		break;
	case BBR_MODE_DRAIN:
		bbr->pacing_gain = drain_gain;
		bbr->cwnd_gain = high_gain;
		break;
	case BBR_MODE_PROBE_BW:
		if (bbr->lt_use_bw)
			bbr->pacing_gain = BBR_UNIT;
		else if (bbr->cycle_idx == 0)
			bbr->pacing_gain = probe_up_gain;
		else if (bbr->cycle_idx == 1)
			bbr->pacing_gain = probe_down_gain;
		else
			bbr->pacing_gain = BBR_UNIT;
		bbr->cwnd_gain = cwnd_gain;
		break;
	default: /* PROBE_RTT */
		bbr->pacing_gain = BBR_UNIT;
		bbr->cwnd_gain = BBR_UNIT;
		break;
	}
}

/* ---- cwnd ---- */

static __always_inline __u32 ack_aggregation_cwnd(struct sock *sk)
{
	const struct bbr_ca *bbr = ca(sk);
	__u32 max_aggr, aggr;

	if (!extra_acked_gain || !bbr->full_bw_reached)
		return 0;
	max_aggr = (__u32)((__u64)bbr_bw(sk) * EXTRA_ACKED_MAX_US / BW_UNIT);
	aggr = (extra_acked_gain * max(bbr->extra_acked[0], bbr->extra_acked[1])) >> BBR_SCALE;
	return min(aggr, max_aggr);
}

/* Packet conservation in the first round of recovery, then slow start back;
 * on leaving recovery restore the cwnd from before it.  Returns true when
 * *new_cwnd is final. */
static __always_inline bool set_cwnd_to_recover_or_restore(struct sock *sk,
							   const struct rate_sample *rs,
							   __u32 acked, __u32 *new_cwnd)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr_ca *bbr = ca(sk);
	__u8 prev = bbr->prev_ca_state, state = inet_csk(sk)->icsk_ca_state;
	__u32 cwnd = tp->snd_cwnd;

	if (rs->losses > 0)
		cwnd = (__s32)(cwnd - rs->losses) > 1 ? cwnd - rs->losses : 1;
	if (state == TCP_CA_Recovery && prev != TCP_CA_Recovery) {
		bbr->packet_conservation = 1;
		bbr->next_rtt_delivered = tp->delivered; /* a round starts now */
		cwnd = tcp_packets_in_flight(tp) + acked;
		ccs_stat_inc(BBR_STAT_RECOVERY);
	} else if (prev >= TCP_CA_Recovery && state < TCP_CA_Recovery) {
		cwnd = max(cwnd, bbr->prior_cwnd);
		bbr->packet_conservation = 0;
	}
	bbr->prev_ca_state = state;
	if (bbr->packet_conservation) {
		*new_cwnd = max(cwnd, tcp_packets_in_flight(tp) + acked);
		return true;
	}
	*new_cwnd = cwnd;
	return false;
}

static __always_inline void set_cwnd(struct sock *sk, const struct rate_sample *rs, __u32 acked,
				     __u32 bw, __u32 gain)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr_ca *bbr = ca(sk);
	__u32 cwnd = tp->snd_cwnd, target;

	if (!acked)
		goto done;
	if (set_cwnd_to_recover_or_restore(sk, rs, acked, &cwnd))
		goto done;
	target = bbr_bdp_of(bw, bbr->min_rtt_us, gain) + ack_aggregation_cwnd(sk);
	target = bbr_quantize(target, tso_segs_goal(sk),
			      bbr->mode == BBR_MODE_PROBE_BW && bbr->cycle_idx == 0);
	/* Grow toward the target; cut down to it only once the pipe is full. */
	if (bbr->full_bw_reached)
		cwnd = min(cwnd + acked, target);
	else if (cwnd < target || tp->delivered < TCP_INIT_CWND)
		cwnd = cwnd + acked;
	cwnd = max(cwnd, (__u32)BBR_CWND_MIN_TARGET);
done:
	tp->snd_cwnd = min(cwnd, tp->snd_cwnd_clamp);
	if (bbr->mode == BBR_MODE_PROBE_RTT)
		tp->snd_cwnd = min(tp->snd_cwnd, (__u32)BBR_CWND_MIN_TARGET);
}

/* ---- struct_ops ---- */

SEC("struct_ops")
void BPF_PROG(bbr_main, CCS_CONG_CONTROL_ARGS)
{
	struct bbr_ca *bbr = ca(sk);
	__u32 bw;

	bbr_repair(sk);
	/* counted here, added to the map every BBR_STAT_BATCH ACKs (and at
	 * release): a map update per ACK is a sizeable part of bbr_main() */
	if (CCS_STATS_ON && ++bbr->b_acks >= BBR_STAT_BATCH) {
		ccs_stat_add(CCS_STAT_ACKS, bbr->b_acks);
		bbr->b_acks = 0;
	}
	update_bw(sk, rs);
	update_ack_aggregation(sk, rs);
	if (bbr->mode == BBR_MODE_PROBE_BW && is_next_cycle_phase(sk, rs))
		advance_cycle_phase(sk);
	check_full_bw_reached(sk, rs);
	check_drain(sk);
	update_min_rtt(sk, rs);
	update_gains(bbr);

	bw = bbr_bw(sk);
	set_pacing_rate(sk, bw, bbr->pacing_gain);
	set_cwnd(sk, rs, rs->acked_sacked, bw, bbr->cwnd_gain);
	/* a sample every 8 rounds is plenty for the gauges: on a path of
	 * microseconds every ACK starts a round */
	if (bbr->round_start && !(bbr->rtt_cnt & 7)) {
		ccs_stat_set(BBR_STAT_BW_BPS,
			     bbr_rate_bytes_per_sec(bw, tcp_sk(sk)->mss_cache, BBR_UNIT, 0) * 8);
		ccs_stat_set(BBR_STAT_MIN_RTT_US, bbr->min_rtt_us);
	}
}

SEC("struct_ops")
void BPF_PROG(bbr_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr_ca *bbr = ca(sk);

	bbr->prior_cwnd = 0;
	bbr->b_acks = 0;
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	bbr->rtt_cnt = 0;
	bbr->next_rtt_delivered = tp->delivered;
	bbr->prev_ca_state = TCP_CA_Open;
	bbr->packet_conservation = 0;
	bbr->probe_rtt_done_stamp = 0;
	bbr->probe_rtt_round_done = 0;
	bbr->min_rtt_us = tcp_min_rtt(tp);
	bbr->min_rtt_stamp = now_ms(tp);
	ccs_minmax_reset(&bbr->bw, bbr->rtt_cnt, 0);
	bbr->has_seen_rtt = 0;
	init_pacing_rate_from_rtt(sk);
	bbr->round_start = 0;
	bbr->idle_restart = 0;
	bbr->full_bw_reached = 0;
	bbr->full_bw = 0;
	bbr->full_bw_cnt = 0;
	bbr->cycle_mstamp = 0;
	bbr->cycle_idx = 0;
	reset_lt_bw_sampling(sk);
	bbr->mode = BBR_MODE_STARTUP;
	ccs_stat_inc(BBR_STAT_ENTER_STARTUP);
	bbr->ack_epoch_mstamp = tp->tcp_mstamp;
	bbr->ack_epoch_acked = 0;
	bbr->extra_acked_win_rtts = 0;
	bbr->extra_acked_win_idx = 0;
	bbr->extra_acked[0] = 0;
	bbr->extra_acked[1] = 0;
	/* Pacing is ours: ask TCP to pace (no fq needed). */
	if (sk->sk_pacing_status == SK_PACING_NONE)
		sk->sk_pacing_status = SK_PACING_NEEDED;
	CCS_FLOW_INIT(bbr);
}

SEC("struct_ops")
void BPF_PROG(bbr_release, struct sock *sk)
{
	struct bbr_ca *bbr = ca(sk);

	if (CCS_STATS_ON && bbr->flow_live)
		ccs_stat_add(CCS_STAT_ACKS, bbr->b_acks);
	CCS_FLOW_RELEASE(bbr);
}

SEC("struct_ops")
__u32 BPF_PROG(bbr_sndbuf_expand, struct sock *sk)
{
	return 3; /* BBR may slow-start even in recovery */
}

/* BBR does not cut cwnd on loss: an undo only resets full-pipe detection. */
SEC("struct_ops")
__u32 BPF_PROG(bbr_undo_cwnd, struct sock *sk)
{
	struct bbr_ca *bbr = ca(sk);

	bbr_repair(sk);
	bbr->full_bw = 0;
	bbr->full_bw_cnt = 0;
	reset_lt_bw_sampling(sk);
	ccs_stat_inc(CCS_STAT_UNDO);
	return tcp_sk(sk)->snd_cwnd;
}

/* Entering recovery: remember cwnd for when it ends or is undone. */
SEC("struct_ops")
__u32 BPF_PROG(bbr_ssthresh, struct sock *sk)
{
	bbr_repair(sk);
	save_cwnd(sk);
	ccs_stat_inc(CCS_STAT_CWND_REDUCTIONS);
	return tcp_sk(sk)->snd_ssthresh;
}

SEC("struct_ops")
void BPF_PROG(bbr_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr_ca *bbr = ca(sk);

	bbr_repair(sk);
	if (event != CA_EVENT_TX_START || !tp->app_limited)
		return;
	/* Restarting from idle: pace at the model's bw, no faster. */
	bbr->idle_restart = 1;
	bbr->ack_epoch_mstamp = tp->tcp_mstamp;
	bbr->ack_epoch_acked = 0;
	ccs_stat_inc(BBR_STAT_IDLE_RESTART);
	if (bbr->mode == BBR_MODE_PROBE_BW)
		set_pacing_rate(sk, bbr_bw(sk), BBR_UNIT);
	else if (bbr->mode == BBR_MODE_PROBE_RTT)
		check_probe_rtt_done(sk);
}

SEC("struct_ops")
void BPF_PROG(bbr_set_state, struct sock *sk, __u8 new_state)
{
	struct bbr_ca *bbr = ca(sk);

	bbr_repair(sk);
	if (new_state != TCP_CA_Loss)
		return;
	/* An RTO: treat it as the end of a round with a loss. */
	ccs_stat_inc(CCS_STAT_RTO);
	bbr->prev_ca_state = TCP_CA_Loss;
	bbr->full_bw = 0;
	bbr->round_start = 1;
	lt_bw_sampling(sk, 1, false);
}

SEC(".struct_ops")
struct tcp_congestion_ops bbr_ops = {
	.init = (void *)bbr_init,
	.release = (void *)bbr_release,
	.cong_control = (void *)bbr_main,
	.sndbuf_expand = (void *)bbr_sndbuf_expand,
	.undo_cwnd = (void *)bbr_undo_cwnd,
	.cwnd_event = (void *)bbr_cwnd_event,
	.ssthresh = (void *)bbr_ssthresh,
	/*
	 * No min_tso_segs: the kernel calls it for every skb it sizes
	 * (tcp_tso_segs()) and uses the result at once, so a result taken
	 * corrupted (bpf/lib/ccsuite.bpf.h, ccs_ret_repair()) makes one skb of
	 * up to 64 KB that leaves at line rate, with no later call to put it
	 * right.  Without it the kernel's tcp_min_tso_segs (2) applies: bbr's
	 * value at pacing rates of 1.2 Mbit/s and more.
	 */
	.set_state = (void *)bbr_set_state,
#ifdef CCS_TWIN
	/* bench/cpucost's twin (-DCCS_TWIN), a namespace may default to it */
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "twin_bbr",
#else
	.name = "bpf_bbr",
#endif
};
