/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LIA, RFC 6356's coupled increase, in integers: shared by bpf/lia.bpf.c,
 * bpf/ppqd.bpf.c and the host unit tests.  No kernel types.
 *
 * For a connection whose subflows i have windows w_i (segments) and RTTs
 * r_i, RFC 6356 section 3:
 *
 *	alpha = w_total * max_i(w_i / r_i^2) / (sum_i w_i / r_i)^2
 *
 * and each ACK of one segment on subflow r grows w_r by
 * min(alpha / w_total, 1 / w_r).  The RFC warns that the terms need
 * scaling in integer arithmetic; here the division by r_b^2 (b the subflow
 * with the largest w_i / r_i^2) is taken out of the sum:
 *
 *	D = sum_i w_i * r_b / r_i	(segments; D >= w_b)
 *	alpha / w_total = w_b / D^2
 *
 * so the increase is one segment per max(D^2 / w_b, w_r) ACKed segments,
 * a count that stays within 64 bits where the RFC's quotients would not.
 * D is kept with LIA_FRAC_SHIFT fraction bits, and so is the count (the
 * CC accumulates ACKed segments in the same units).  A connection of one
 * subflow gets D = w_r: Reno.
 *
 * Inputs are bounded first: w_i to LIA_CWND_MAX, r_i to [1, LIA_RTT_MAX_US]
 * (an RTT above 2 s counts as 2 s), so w_a * r_b^2 < 2^62 and the products
 * below fit.
 */
#ifndef CCSUITE_LIA_H
#define CCSUITE_LIA_H

#include "coupled.h"
#include "tunables.h"

#define LIA_FRAC_SHIFT	8
#define LIA_ALPHA_SHIFT 10 /* alpha in 1/1024 */
#define LIA_CWND_MAX	(1U << 20)
#define LIA_RTT_MAX_US	(1U << 21)

struct lia_coupling {
	__u64 w_total; /* segments */
	__u64 cnt;     /* ACKed segments per +1 segment under the coupled
			 * term (D^2 / w_b), << LIA_FRAC_SHIFT; 0: nothing to
			 * couple with (no subflow with an RTT) */
	__u32 alpha;   /* << LIA_ALPHA_SHIFT */
	__u32 n;       /* subflows counted */
};

static inline __u64 lia_clamp(__u64 v, __u64 lo, __u64 hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The coupling of @n slots (cwnd 0: empty, not counted). */
static inline void lia_couple(const struct cpl_sub *sub, __u32 n, struct lia_coupling *c)
{
	__u64 wb = 0, rb = 1, d = 0, w, r;
	__u32 i;

	c->w_total = 0;
	c->cnt = 0;
	c->alpha = 0;
	c->n = 0;
	for (i = 0; i < n && i < CPL_MAX_SUBFLOWS; i++) {
		if (!sub[i].cwnd)
			continue;
		w = lia_clamp(sub[i].cwnd, 1, LIA_CWND_MAX);
		r = lia_clamp(sub[i].rtt_us, 1, LIA_RTT_MAX_US);
		c->w_total += w;
		c->n++;
		/* w / r^2 > wb / rb^2, exactly */
		if (!wb || w * rb * rb > wb * r * r) {
			wb = w;
			rb = r;
		}
	}
	if (!wb)
		return;
	for (i = 0; i < n && i < CPL_MAX_SUBFLOWS; i++) {
		if (!sub[i].cwnd)
			continue;
		w = lia_clamp(sub[i].cwnd, 1, LIA_CWND_MAX);
		r = lia_clamp(sub[i].rtt_us, 1, LIA_RTT_MAX_US);
		d += ((w * rb) << LIA_FRAC_SHIFT) / r; /* < 2^49 a term */
	}
	/* cnt = D^2 / w_b in the same fixed point: d^2 / (wb << FRAC) */
	if (d < (1ULL << 32)) {
		c->cnt = d * d / (wb << LIA_FRAC_SHIFT);
	} else {
		/* d >> FRAC is below 2^44 (d < 2^52) and at least 2^24; with
		 * q >= 2^19 the count is above 2^43, far past any window
		 * (2^28 in these units): saturated instead of overflowing */
		__u64 q = d / wb;

		c->cnt = q < (1ULL << 19) ? q * (d >> LIA_FRAC_SHIFT) : 1ULL << 63;
	}
	if (!c->cnt)
		c->cnt = 1;
	/* alpha = w_total / (D^2 / w_b) */
	w = (c->w_total << (LIA_ALPHA_SHIFT + LIA_FRAC_SHIFT)) / c->cnt;
	c->alpha = w > 0xffffffffULL ? 0xffffffffU : (__u32)w;
}

/*
 * ACKed segments (<< LIA_FRAC_SHIFT) per +1 segment of subflow @w_r: the
 * coupled term, bounded by the uncoupled one (never faster than Reno on
 * the subflow alone).  *@coupled: the coupled term set it.
 */
static inline __u64 lia_cnt(const struct lia_coupling *c, __u32 w_r, int *coupled)
{
	__u64 own = (__u64)lia_clamp(w_r, 1, LIA_CWND_MAX) << LIA_FRAC_SHIFT;

	*coupled = c->cnt > own;
	return *coupled ? c->cnt : own;
}

/*
 * Grow a window of @cwnd by @acked segments under @cnt (lia_cnt()), with
 * the fraction carried in *@acc (<< LIA_FRAC_SHIFT); the new window, at
 * most @clamp.
 */
static inline __u32 lia_grow(__u32 cwnd, __u32 acked, __u64 cnt, __u64 *acc, __u32 clamp)
{
	__u64 inc;

	if (!cnt)
		return cwnd;
	/* credit built up against a larger count (another subflow left, or
	 * cut its window) is not paid out at once: one segment at most */
	if (*acc > cnt)
		*acc = cnt;
	*acc += (__u64)acked << LIA_FRAC_SHIFT;
	if (*acc < cnt)
		return cwnd;
	inc = *acc / cnt;
	*acc -= inc * cnt;
	if (inc > clamp || cwnd + inc > clamp) {
		*acc = 0;
		return cwnd > clamp ? cwnd : clamp;
	}
	return cwnd + (__u32)inc;
}

/* The loss response: Reno's halving, at least 2 segments. */
static inline __u32 lia_halve(__u32 cwnd)
{
	return cwnd / 2 > 2 ? cwnd / 2 : 2;
}

/* Stats of bpf_lia: the coupling's, after the common ones (lib/stats.h). */
#define LIA_STATS(X, P) CPL_STATS(X, P)
#define LIA_STAT_MAX	CPL_STAT_MAX

#endif /* CCSUITE_LIA_H */
