/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PPQD (docs/mptcp.md) arithmetic, shared by bpf/ppqd.bpf.c and
 * the host unit tests.  No kernel types.
 *
 * Per subflow, every RTT sample x (us, from the ACK) goes into Brown's
 * double exponential smoothing with factor a:
 *
 *	S1 <- a x + (1 - a) S1,   S2 <- a S1 + (1 - a) S2
 *	forecast = level + trend = (2 S1 - S2) + a / (1 - a) (S1 - S2)
 *	         = S1 + (S1 - S2) / (1 - a)
 *
 * S1 = S2 = the first sample at the start.  The queueing delay is
 * Q = forecast - BaseRTT (BaseRTT: the smallest sample), its mean
 * Qm = mean RTT - BaseRTT (the mean of every sample so far).  With Q <= Qm
 * the window grows as LIA's times delta (lia.h); with Q > Qm, once per
 * RTT, it shrinks by delta (Q - Qm) / forecast of itself, to 2 segments at
 * least.  The first warmup samples only smooth: no decrease before.
 *
 * a and delta are in 1/1000; S1 and S2 keep PPQD_FRAC_SHIFT fraction bits.
 * BPF (before cpu v4) has no signed division: the signed trend is divided
 * as a magnitude.
 */
#ifndef CCSUITE_PPQD_H
#define CCSUITE_PPQD_H

#include "lia.h"

#define PPQD_ONE	1000U
#define PPQD_FRAC_SHIFT 8

struct ppqd_smooth {
	__u64 s1, s2; /* us << PPQD_FRAC_SHIFT */
	__u64 sum_us; /* every sample, for the mean */
	__u64 samples;
	__u32 base_us; /* BaseRTT: the smallest sample */
	__u32 forecast_us;
	__u32 q_us;	/* forecast - BaseRTT (0 when below) */
	__u32 qmean_us; /* mean RTT - BaseRTT */
};

/* One RTT sample @x_us (> 0) with smoothing factor @a (1/1000, 1..999). */
static inline void ppqd_sample(struct ppqd_smooth *s, __u32 x_us, __u32 a)
{
	__u64 x = (__u64)x_us << PPQD_FRAC_SHIFT, f, d;

	if (!s->samples) {
		s->s1 = x;
		s->s2 = x;
		s->base_us = x_us;
	}
	if (x_us < s->base_us)
		s->base_us = x_us;
	s->samples++;
	s->sum_us += x_us;
	s->s1 = (a * x + (PPQD_ONE - a) * s->s1) / PPQD_ONE;
	s->s2 = (a * s->s1 + (PPQD_ONE - a) * s->s2) / PPQD_ONE;
	/* forecast = S1 + (S1 - S2) * 1000 / (1000 - a) */
	if (s->s1 >= s->s2) {
		f = s->s1 + (s->s1 - s->s2) * PPQD_ONE / (PPQD_ONE - a);
	} else {
		d = (s->s2 - s->s1) * PPQD_ONE / (PPQD_ONE - a);
		f = d < s->s1 ? s->s1 - d : 0;
	}
	f >>= PPQD_FRAC_SHIFT;
	s->forecast_us = f > 0xffffffffULL ? 0xffffffffU : (__u32)f;
	s->q_us = s->forecast_us > s->base_us ? s->forecast_us - s->base_us : 0;
	f = s->sum_us / s->samples;
	s->qmean_us = f > s->base_us ? (__u32)(f - s->base_us) : 0;
}

/* Queueing delay above its mean, past the warm-up: the window shrinks. */
static inline int ppqd_above_mean(const struct ppqd_smooth *s, __u32 warmup)
{
	return s->samples >= warmup && s->q_us > s->qmean_us;
}

/*
 * The window after a decrease: cwnd - delta (Q - Qm) / forecast * cwnd, at
 * least 2 (a window already below 2 stays).  Q - Qm < forecast, so the
 * cut is less than delta of the window.
 */
static inline __u32 ppqd_decrease(__u32 cwnd, const struct ppqd_smooth *s, __u32 delta)
{
	__u64 cut, r, over = s->q_us > s->qmean_us ? s->q_us - s->qmean_us : 0;

	if (!s->forecast_us || !over || cwnd <= 2)
		return cwnd;
	/* (Q - Qm) / forecast in 20 fraction bits (< 1), so that
	 * cwnd * delta * r stays below 2^62 for any 32-bit window */
	r = (over << 20) / s->forecast_us;
	cut = ((__u64)cwnd * delta * r >> 20) / PPQD_ONE;
	return cwnd - cut > 2 ? cwnd - (__u32)cut : 2;
}

/* ACKs per +1 segment of the growth, LIA's count (lia_cnt()) / delta. */
static inline __u64 ppqd_cnt(__u64 lia_cnt, __u32 delta)
{
	if (lia_cnt > ~0ULL / PPQD_ONE)
		return ~0ULL / delta;
	return lia_cnt * PPQD_ONE / delta;
}

/*
 * Yielding to a loss-based flow.  A delay-based window beside a flow that
 * grows until the buffer overflows (Reno, CUBIC) stops growing and cuts
 * while the other fills the queue, and ends with a fraction of its share.
 * Alone, a connection owns its queue: above the mean its windows do not
 * grow, so the queue stays or, after a cut, shrinks.  The queueing delay
 * averaged over the first RTT spent above the mean is the reference; when
 * the RTT's average is still higher @yield RTTs later, and the
 * connection's window has not grown meanwhile, the queue is someone
 * else's: the subflow competes (LIA, no delay cuts) until its next loss,
 * then tries delay control again.  After a loss that ended a competition
 * it is wary: it does not cut, and one RTT of a queue above the reference
 * is enough to compete; a queue that does not rise ends the wariness.
 * yield = 0: never compete (the PPQD paper's algorithm as written).
 */
enum ppqd_mode {
	PPQD_DELAY,   /* the paper's delay control */
	PPQD_COMPETE, /* LIA until the next loss */
};

static inline const char *ppqd_mode_name(__u8 mode)
{
	return mode == PPQD_COMPETE ? "compete" : "delay";
}

struct ppqd_guard {
	__u64 rtt_sum_us; /* RTT samples since the last look, for their mean */
	__u32 rtt_cnt;
	__u32 ref_q_us; /* queueing delay over the first RTT above the mean */
	__u32 ref_w;	/* the connection's window when it went above (segments) */
	__u8 looks;	/* looks above the mean so far (0: below; at most 255) */
	__u8 mode;	/* enum ppqd_mode */
	__u8 wary;	/* the last loss ended a competition */
	__u8 pad;
};

#define PPQD_GUARD_CNT_MAX (1U << 20) /* samples averaged at most (bounds the sum) */
#define PPQD_YIELD_MAX	   100

/* Every RTT sample, for the mean over the RTT ppqd_judge() looks at. */
static inline void ppqd_guard_sample(struct ppqd_guard *g, __u32 rtt_us)
{
	if (g->rtt_cnt >= PPQD_GUARD_CNT_MAX)
		return;
	g->rtt_sum_us += rtt_us;
	g->rtt_cnt++;
}

static inline void ppqd_guard_restart(struct ppqd_guard *g)
{
	g->looks = 0;
	g->rtt_sum_us = 0;
	g->rtt_cnt = 0;
}

/*
 * Once per RTT with the forecast above its mean, before any cut: the
 * queueing delay over the RTT since the last look (mean of its samples
 * less @base_us, or @q_us without samples) against the reference, with
 * the connection's window @w now.  The first look (the RTT the forecast
 * crossed the mean in) only starts the averaging, the second makes the
 * reference.  True when the subflow now competes.
 */
static inline int ppqd_judge(struct ppqd_guard *g, __u32 base_us, __u32 q_us, __u32 w, __u32 yield)
{
	__u32 need = g->wary ? 1 : yield;
	__u64 m;

	if (g->rtt_cnt) {
		m = g->rtt_sum_us / g->rtt_cnt;
		q_us = m > base_us ? (__u32)(m - base_us) : 0;
	}
	g->rtt_sum_us = 0;
	g->rtt_cnt = 0;
	if (g->looks < 0xff)
		g->looks++;
	if (g->looks == 1) {
		g->ref_w = w;
		return 0;
	}
	if (g->looks == 2) {
		g->ref_q_us = q_us;
		return 0;
	}
	if (q_us <= g->ref_q_us)
		g->wary = 0; /* the queue answered: its own */
	/* RTTs since the reference: looks - 2 */
	if (!yield || g->looks - 2U < need || q_us <= g->ref_q_us || w > g->ref_w)
		return 0;
	g->mode = PPQD_COMPETE;
	ppqd_guard_restart(g);
	return 1;
}

/* After ppqd_judge() said no: whether this RTT may cut (not while wary). */
static inline int ppqd_may_cut(const struct ppqd_guard *g)
{
	return !g->wary;
}

/* The forecast below its mean: the queue answered. */
static inline void ppqd_below_mean(struct ppqd_guard *g)
{
	ppqd_guard_restart(g);
}

/* A loss: delay control again, wary if it competed. */
static inline void ppqd_guard_loss(struct ppqd_guard *g)
{
	g->wary = g->mode == PPQD_COMPETE;
	g->mode = PPQD_DELAY;
	ppqd_guard_restart(g);
}

/*
 * A subflow's smoothing state as the CC keeps it (its sk_storage, map
 * ppqd_sk) and as ccload ppqd flows reads it (iterator ppqd_flows, one
 * record per subflow).
 */
struct ppqd_sk {
	struct ppqd_smooth sm;
	__u32 cwnd; /* the window when the state last moved */
	__u32 ssthresh;
	__u64 netns;	 /* the connection's key (coupled.h); 0 when it has none */
	__u32 token;	 /* the MPTCP connection's; 0: a plain TCP flow */
	__u32 decreases; /* delay decreases (before loss) */
	__u32 losses;
	__u32 competes; /* times it yielded to a loss-based flow (ppqd_judge()) */
	struct ppqd_guard guard;
};

struct ppqd_flow_rec {
	__u32 saddr[4]; /* IPv4 as v4-mapped IPv6, network order */
	__u32 daddr[4];
	__u16 sport; /* host order */
	__u16 dport;
	__u16 family;
	__u16 pad;
	struct ppqd_sk st;
};

/* Stats of bpf_ppqd: the coupling's (CPL_STATS), then these (lib/stats.h). */
#define PPQD_OWN_STATS(X, P)                                                                       \
	X(P, DELAY_DECREASES, delay_decreases, COUNTER,                                            \
	  "window decreases on queueing delay above its mean (before loss)")                       \
	X(P, DELAY_GROWTH, delay_growth, COUNTER, "ACKs that grew the window below the mean")      \
	X(P, WARMUP, warmup_acks, COUNTER, "ACKs in the warm-up (smoothing only, no decrease)")    \
	X(P, SAMPLES, rtt_samples, COUNTER, "RTT samples smoothed")                                \
	X(P, NO_STATE, no_state, COUNTER, "flows without smoothing state (no memory): run as LIA") \
	X(P, COMPETES, competes, COUNTER,                                                          \
	  "yields to a loss-based flow: queue higher, connection's window not grown")              \
	X(P, COMPETE_ACKS, compete_acks, COUNTER, "ACKs while competing (LIA, no delay cuts)")

enum ppqd_stat {
	PPQD_STAT__BASE = CPL_STAT_MAX - 1,
	PPQD_OWN_STATS(CCS_STAT_ENUM, PPQD) PPQD_STAT_MAX,
};

/* Tunables of bpf_ppqd (lib/tunables.h). */
#define PPQD_TUNABLES(X)                                                                    \
	X(a, UINT, 1, 999, 125,                                                             \
	  "Brown smoothing factor a, 1/1000 (125 = 1/8, the kernel's srtt gain; the "       \
	  "paper's 0.5 reads RTT noise as queueing)")                                       \
	X(delta, UINT, 1, 1000, 900, "growth intensity delta, 1/1000; also the cut's gain") \
	X(warmup, UINT, 0, 1000000, 15, "RTT samples that only smooth before any decrease") \
	X(yield, UINT, 0, PPQD_YIELD_MAX, 2,                                                \
	  "RTTs after its first RTT above the mean at which a queue still higher, with "    \
	  "the connection's window not grown, makes the subflow compete as LIA until "      \
	  "its next loss (0: never)")

#endif /* CCSUITE_PPQD_H */
