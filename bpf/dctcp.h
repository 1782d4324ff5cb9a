/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DCTCP (RFC 8257) arithmetic, shared by bpf/dctcp.bpf.c and the host unit
 * tests.  No kernel types: every input is a plain integer.
 *
 * alpha is a fixed-point fraction in [0, DCTCP_MAX_ALPHA] (1024 = 1.0), kept
 * as Linux keeps it, so that g = 2^-shift_g needs no division:
 *   alpha <- (1 - g) * alpha + g * F,   F = delivered_ce / delivered
 * and the window on a congestion signal is
 *   cwnd <- cwnd * (1 - alpha / 2).
 */
#ifndef CCSUITE_DCTCP_H
#define CCSUITE_DCTCP_H

#include "stats.h"

#define DCTCP_MAX_ALPHA		1024U
#define DCTCP_ALPHA_SHIFT	10	/* log2(DCTCP_MAX_ALPHA) */
#define DCTCP_MAX_SHIFT_G	DCTCP_ALPHA_SHIFT

/* Stats slots of bpf_dctcp, after the common ones (bpf/lib/stats.h). */
enum dctcp_stat {
	DCTCP_STAT_ALPHA_UPDATES = CCS_STAT_ALGO,	/* once-per-window updates */
	DCTCP_STAT_DELIVERED,		/* packets delivered, summed per window */
	DCTCP_STAT_DELIVERED_CE,	/* of which were CE-marked */
	DCTCP_STAT_CE_FLIPS,		/* receiver: CE state changes */
	DCTCP_STAT_DELAYED_ACK_FLUSH,	/* receiver: delayed ACK sent before a flip */
	DCTCP_STAT_NO_ECN,		/* flows without ECN: Reno fallback */
	DCTCP_STAT_MAX,
};

/*
 * One once-per-window update.  The gain keeps alpha's fraction bits so that
 * a small F still moves it: g * F = delivered_ce * 2^(10 - shift_g) / delivered.
 * Decay subtracts at least 1 so alpha reaches 0 when marking stops.
 */
static inline __u32 dctcp_alpha_next(__u32 alpha, __u32 delivered,
				     __u32 delivered_ce, __u32 shift_g)
{
	__u32 decay;

	if (shift_g > DCTCP_MAX_SHIFT_G)
		shift_g = DCTCP_MAX_SHIFT_G;
	if (alpha > DCTCP_MAX_ALPHA)
		alpha = DCTCP_MAX_ALPHA;
	if (delivered_ce > delivered)	/* cannot happen; keep F <= 1 */
		delivered_ce = delivered;

	decay = alpha >> shift_g;
	alpha -= decay ? decay : alpha;	/* min_not_zero(alpha, alpha >> g) */
	if (delivered_ce) {
		__u64 gain = ((__u64)delivered_ce << (DCTCP_ALPHA_SHIFT - shift_g)) /
			     delivered;

		alpha += (__u32)gain;
		if (alpha > DCTCP_MAX_ALPHA)
			alpha = DCTCP_MAX_ALPHA;
	}
	return alpha;
}

/* cwnd * (1 - alpha/2), at least 2 segments. */
static inline __u32 dctcp_ssthresh_of(__u32 cwnd, __u32 alpha)
{
	__u32 cut = (__u32)(((__u64)cwnd * alpha) >> (DCTCP_ALPHA_SHIFT + 1));
	__u32 next = cwnd - cut;

	return next > 2 ? next : 2;
}

/* Reno's answer to loss (no ECN on the path, or a real drop): halve. */
static inline __u32 dctcp_loss_ssthresh(__u32 cwnd)
{
	return (cwnd >> 1) > 2 ? (cwnd >> 1) : 2;
}

#endif /* CCSUITE_DCTCP_H */
