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
#include "tunables.h"

#define DCTCP_ALPHA_SHIFT 20
#define DCTCP_ALPHA_ONE	  (1U << DCTCP_ALPHA_SHIFT)
#define DCTCP_MAX_ALPHA	  1024U /* 1.0 in the tunables' 1/1024 units */
#define DCTCP_MAX_SHIFT_G 16

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
/* DCTCP's stats, which bpf_tldct has as well (lib/stats.h). */
#define DCTCP_STATS(X, P)                                                            \
	X(P, ALPHA_UPDATES, alpha_updates, COUNTER, "once-per-window alpha updates") \
	X(P, DELIVERED, delivered, COUNTER, "packets delivered (summed per window)") \
	X(P, DELIVERED_CE, delivered_ce, COUNTER, "of which CE-marked")              \
	X(P, CE_FLIPS, ce_flips, COUNTER, "receiver: CE state changes")              \
	X(P, DELAYED_ACK_FLUSH, delayed_ack_flush, COUNTER,                          \
	  "receiver: delayed ACK sent before a flip")                                \
	X(P, NO_ECN, no_ecn, COUNTER, "flows without ECN negotiated")                \
	X(P, TO_RENO, to_reno, COUNTER, "of which went to the kernel's reno (not ECN-capable)")

enum dctcp_stat {
	DCTCP_STAT__BASE = CCS_STAT_ALGO - 1,
	DCTCP_STATS(CCS_STAT_ENUM, DCTCP) DCTCP_STAT_MAX,
};

/*
 * Tunables (ccload attach ... --set name=value), listed once: the BPF
 * object's `const volatile` defaults and ccload's registry come from the
 * list (lib/tunables.h).  X(name, kind, min, max, default, help).
 * DCTCP's own, which bpf_tldct has as well, then bpf_dctcp's only one.
 */
#define DCTCP_TUNABLES(X)                                           \
	X(shift_g, UINT, 0, DCTCP_MAX_SHIFT_G, 4,                   \
	  "alpha gain g = 1/2^shift_g (RFC 8257 suggests 1/16)")    \
	X(alpha_on_init, UINT, 0, DCTCP_MAX_ALPHA, DCTCP_MAX_ALPHA, \
	  "initial alpha in 1/1024 units (1024 = start cautious)")
#define DCTCP_ONLY_TUNABLES(X) \
	X(clamp_alpha_on_loss, BOOL, 0, 1, 0, "set alpha to 1 after a retransmission timeout")

/*
 * One once-per-window update: decay by g (at least 1 unit, so alpha reaches
 * exactly 0 when marking stops), then add g * F with F's fraction bits.
 */
static inline __u32 dctcp_alpha_next(__u32 alpha, __u32 delivered, __u32 delivered_ce,
				     __u32 shift_g)
{
	__u32 decay;

	if (shift_g > DCTCP_MAX_SHIFT_G)
		shift_g = DCTCP_MAX_SHIFT_G;
	if (alpha > DCTCP_ALPHA_ONE)
		alpha = DCTCP_ALPHA_ONE;
	if (delivered_ce > delivered) /* cannot happen; keep F <= 1 */
		delivered_ce = delivered;

	decay = alpha >> shift_g;
	alpha -= decay ? decay : alpha; /* min_not_zero(alpha, alpha >> g) */
	if (delivered_ce) {
		__u64 gain = ((__u64)delivered_ce << (DCTCP_ALPHA_SHIFT - shift_g)) / delivered;

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
