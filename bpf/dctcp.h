/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DCTCP (RFC 8257) arithmetic, shared by bpf/dctcp.bpf.c and the host unit
 * tests.  No kernel types: every input is a plain integer.
 *
 * alpha is a fixed-point fraction, 1.0 = 2^20, updated once per window with
 * g = 2^-shift_g without a division by g:
 *   alpha <- (1 - g) * alpha + g * F,   F = delivered_ce / delivered
 * and the window on a congestion signal is cwnd <- cwnd * (1 - alpha / 2).
 *
 * Linux keeps alpha in 10 bits (1.0 = 1024).  There, once alpha is below
 * 2^shift_g units, the decay alpha >> shift_g is 0 and min_not_zero() wipes
 * alpha instead, so under light marking (g * F < 2^shift_g units, F < 1/4
 * with g = 1/16) alpha sticks at g * F instead of converging to F.  With 20
 * bits the same rule only ends in 0 below 16 * 2^-20, i.e. when marking
 * has stopped.  Tunables and stats keep the familiar 1/1024 units.
 */
#ifndef CCSUITE_DCTCP_H
#define CCSUITE_DCTCP_H

#include "stats.h"

#define DCTCP_ALPHA_SHIFT	20
#define DCTCP_ALPHA_ONE		(1U << DCTCP_ALPHA_SHIFT)
#define DCTCP_MAX_ALPHA		1024U	/* 1.0 in the tunables' 1/1024 units */
#define DCTCP_MAX_SHIFT_G	16

static inline __u32 dctcp_alpha_from_1024(__u32 a1024)
{
	if (a1024 > DCTCP_MAX_ALPHA)
		a1024 = DCTCP_MAX_ALPHA;
	return a1024 << (DCTCP_ALPHA_SHIFT - 10);
}

static inline __u32 dctcp_alpha_to_1024(__u32 alpha)
{
	return alpha >> (DCTCP_ALPHA_SHIFT - 10);
}

/* Stats slots of bpf_dctcp, after the common ones (bpf/lib/stats.h). */
enum dctcp_stat {
	DCTCP_STAT_ALPHA_UPDATES = CCS_STAT_ALGO,	/* once-per-window updates */
	DCTCP_STAT_DELIVERED,		/* packets delivered, summed per window */
	DCTCP_STAT_DELIVERED_CE,	/* of which were CE-marked */
	DCTCP_STAT_CE_FLIPS,		/* receiver: CE state changes */
	DCTCP_STAT_DELAYED_ACK_FLUSH,	/* receiver: delayed ACK sent before a flip */
	DCTCP_STAT_NO_ECN,		/* flows without ECN negotiated */
	DCTCP_STAT_TO_RENO,		/* of which went to the kernel's reno (Not-ECT) */
	DCTCP_STAT_MAX,
};

/*
 * One once-per-window update: decay by g (at least 1 unit, so alpha reaches
 * exactly 0 when marking stops), then add g * F with F's fraction bits.
 */
static inline __u32 dctcp_alpha_next(__u32 alpha, __u32 delivered,
				     __u32 delivered_ce, __u32 shift_g)
{
	__u32 decay;

	if (shift_g > DCTCP_MAX_SHIFT_G)
		shift_g = DCTCP_MAX_SHIFT_G;
	if (alpha > DCTCP_ALPHA_ONE)
		alpha = DCTCP_ALPHA_ONE;
	if (delivered_ce > delivered)	/* cannot happen; keep F <= 1 */
		delivered_ce = delivered;

	decay = alpha >> shift_g;
	alpha -= decay ? decay : alpha;	/* min_not_zero(alpha, alpha >> g) */
	if (delivered_ce) {
		__u64 gain = ((__u64)delivered_ce << (DCTCP_ALPHA_SHIFT - shift_g)) /
			     delivered;

		alpha += (__u32)gain;
		if (alpha > DCTCP_ALPHA_ONE)
			alpha = DCTCP_ALPHA_ONE;
	}
	return alpha;
}

/* cwnd * (1 - alpha/2), at least 2 segments. */
static inline __u32 dctcp_ssthresh_of(__u32 cwnd, __u32 alpha)
{
	__u32 cut, next;

	if (alpha > DCTCP_ALPHA_ONE)
		alpha = DCTCP_ALPHA_ONE;
	cut = (__u32)(((__u64)cwnd * alpha) >> (DCTCP_ALPHA_SHIFT + 1));
	next = cwnd - cut;
	return next > 2 ? next : 2;
}

/* Reno's answer to loss (no ECN on the path, or a real drop): halve. */
static inline __u32 dctcp_loss_ssthresh(__u32 cwnd)
{
	return (cwnd >> 1) > 2 ? (cwnd >> 1) : 2;
}

#endif /* CCSUITE_DCTCP_H */
