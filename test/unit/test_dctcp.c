// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the DCTCP (RFC 8257) arithmetic in bpf/dctcp.h.
 *
 * alpha is fixed point, 1024 = 1.0.  With the default shift_g = 4 (g = 1/16)
 * one window does
 *   alpha <- alpha - (alpha >> 4)  [all of alpha when alpha >> 4 == 0]
 *            + (delivered_ce << 6) / delivered          (clamped to 1024)
 * Expected values below are worked out by hand from RFC 8257's
 * alpha <- (1 - g) * alpha + g * F, not taken from running the code.
 */
#include <criterion/criterion.h>
#include <stdint.h>

#include "dctcp.h"

#define G4 4U	/* the default shift_g: g = 1/16 */

/* Run @windows updates with a constant marking fraction ce/delivered. */
static __u32 run_windows(__u32 alpha, unsigned windows, __u32 delivered,
			 __u32 delivered_ce, __u32 shift_g)
{
	while (windows--)
		alpha = dctcp_alpha_next(alpha, delivered, delivered_ce, shift_g);
	return alpha;
}

/* ---- convergence to the marking fraction ---- */

/*
 * Tolerance for the fixed point.  With g = 1/16 the per-window gain is
 * gain = floor(64 * F) (in 1/1024 units) and the decay is floor(alpha / 16),
 * so alpha stops moving exactly when floor(alpha / 16) == gain, i.e. anywhere
 * in [16 * gain, 16 * gain + 15].  Since 1024 * F lies in
 * [16 * gain, 16 * gain + 16), the truncations leave
 *   |alpha - 1024 * F| < 16,  i.e. within 1/64 of F
 * (16 units of 1/1024, not 1: the decay's truncation is a dead band one
 * gain step wide).  500 windows is far more than the ~100 that (15/16)^k
 * needs to shrink the distance from 1024 to under one unit.
 */
#define CONV_TOL	16
#define CONV_WINDOWS	500

static const struct {
	__u32 ce;		/* of 100 delivered */
	double f;
} fractions[] = {
	{ 0, 0.0 }, { 10, 0.1 }, { 25, 0.25 }, { 50, 0.5 }, { 100, 1.0 },
};

static void assert_converged(__u32 alpha, double f, __u32 from)
{
	double want = f * 1024.0;
	double err = (double)alpha - want;

	cr_assert(err > -CONV_TOL && err < CONV_TOL,
		  "F=%.2f from alpha=%u: alpha=%u (%.4f), want %.1f +- %d/1024",
		  f, from, alpha, alpha / 1024.0, want, CONV_TOL);
}

/* From the kernel's (and bpf_dctcp's default) initial alpha, 1.0. */
Test(dctcp_alpha, converges_to_F_from_one)
{
	for (size_t i = 0; i < sizeof(fractions) / sizeof(fractions[0]); i++) {
		__u32 a = run_windows(DCTCP_MAX_ALPHA, CONV_WINDOWS, 100,
				      fractions[i].ce, G4);

		assert_converged(a, fractions[i].f, DCTCP_MAX_ALPHA);
	}
}

/* From alpha = 0 with F >= 1/4: the gain is >= 16 per window, so alpha
 * climbs out of the region where the decay rounds to zero. */
Test(dctcp_alpha, converges_to_F_from_zero_for_heavy_marking)
{
	for (size_t i = 0; i < sizeof(fractions) / sizeof(fractions[0]); i++) {
		if (fractions[i].f < 0.25)
			continue;
		assert_converged(run_windows(0, CONV_WINDOWS, 100, fractions[i].ce, G4),
				 fractions[i].f, 0);
	}
	/* Approaching from below alpha lands on the low edge of the dead band
	 * (the last steps add gain - floor(alpha/16) = 1): exactly 1024 * F
	 * for these F, which are multiples of 1/64. */
	cr_assert_eq(run_windows(0, CONV_WINDOWS, 100, 25, G4), 256u);
	cr_assert_eq(run_windows(0, CONV_WINDOWS, 100, 50, G4), 512u);
	cr_assert_eq(run_windows(0, CONV_WINDOWS, 100, 100, G4), 1024u);
}

/*
 * From alpha = 0 with light marking (F = 0.1, gain 6 per window): RFC 8257's
 * recurrence climbs to 0.1.  min_not_zero() wipes any alpha < 16 before the
 * gain is added, so an alpha below 16 with a gain below 16 is pinned at the
 * gain.  Any flow whose alpha decayed to ~0 (no marking for a while) then sees
 * F = 0.1 reacts as if F were 0.006.  This test documents that behaviour as a
 * defect (it is inherited from Linux's tcp_dctcp.c).
 */
Test(dctcp_alpha, converges_to_F_from_zero_for_light_marking)
{
	__u32 a = run_windows(0, CONV_WINDOWS, 100, 10, G4);

	cr_assert(a > 0, "alpha stays 0 under marking");
	assert_converged(a, 0.1, 0);
}

/* ---- speed of convergence: g = 1/16 ---- */

Test(dctcp_alpha, one_window_moves_by_g)
{
	/* 0 + (1/16) * (1 - 0) = 1/16 = 64/1024 */
	cr_assert_eq(dctcp_alpha_next(0, 100, 100, G4), 64u,
		     "one fully marked window from 0 must give 1024/16");
	/* 1024 - 1024/16 = 960: one clean window from 1.0 */
	cr_assert_eq(dctcp_alpha_next(1024, 100, 0, G4), 960u);
	/* 512 - 32 + 64 * 1/2 = 512: F equal to alpha is a fixed point */
	cr_assert_eq(dctcp_alpha_next(512, 100, 50, G4), 512u);
}

/*
 * After k fully marked windows from 0 the exact value is 1024(1 - (15/16)^k).
 * The only rounding is the floor in the decay, which leaves alpha higher by
 * less than 1 unit per window, and older excess shrinks by 15/16 per window:
 * 0 <= alpha_k - exact < min(k, 16).  The gain (1 << 6) * 100 / 100 is exact.
 */
Test(dctcp_alpha, k_windows_follow_one_minus_15_16_pow_k)
{
	double keep = 1.0;	/* (15/16)^k */
	__u32 a = 0;

	for (unsigned k = 1; k <= 120; k++) {
		double exact, err, bound = k < 16 ? k : 16;

		a = dctcp_alpha_next(a, 100, 100, G4);
		keep *= 15.0 / 16.0;
		exact = 1024.0 * (1.0 - keep);
		err = (double)a - exact;
		cr_assert(err > -1e-9 && err < bound,
			  "k=%u: alpha=%u, exact %.3f, error %.3f not in [0, %.0f)",
			  k, a, exact, err, bound);
		cr_assert(a <= DCTCP_MAX_ALPHA, "k=%u: alpha=%u > 1024", k, a);
	}
	/* By hand: 64, 64 - 4 + 64 = 124, 124 - 7 + 64 = 181. */
	cr_assert_eq(run_windows(0, 2, 100, 100, G4), 124u);
	cr_assert_eq(run_windows(0, 3, 100, 100, G4), 181u);
}

/* ---- decay when marking stops ---- */

Test(dctcp_alpha, decays_to_exactly_zero)
{
	__u32 a = DCTCP_MAX_ALPHA;
	unsigned w;

	/* Each clean window takes off floor(alpha/16) (>= 1 while alpha >= 16)
	 * and all of alpha below 16, so alpha strictly falls and reaches 0.
	 * alpha' <= (15 * alpha + 15) / 16, so alpha - 15 shrinks by 15/16 a
	 * window: from 1024 it is below 16 within ln(1009) / ln(16/15) ~ 107.2,
	 * i.e. 108 windows, and 0 one window later. */
	for (w = 0; a && w < 200; w++) {
		__u32 next = dctcp_alpha_next(a, 100, 0, G4);

		cr_assert(next < a, "window %u: alpha %u -> %u did not fall", w, a, next);
		a = next;
	}
	cr_assert_eq(a, 0u, "alpha stuck at %u after %u clean windows", a, w);
	cr_assert(w <= 109, "took %u windows to reach 0", w);
	cr_assert_eq(dctcp_alpha_next(0, 100, 0, G4), 0u, "0 must stay 0");

	/* min_not_zero(alpha, alpha >> 4): the switch-over at 16. */
	cr_assert_eq(dctcp_alpha_next(16, 100, 0, G4), 15u);
	cr_assert_eq(dctcp_alpha_next(15, 100, 0, G4), 0u);
	cr_assert_eq(dctcp_alpha_next(1, 100, 0, G4), 0u);
}

/* ---- input clamping ---- */

Test(dctcp_alpha, shift_g_above_10_is_10)
{
	static const __u32 big[] = { 11, 12, 31, 32, 63, 64, 1000, UINT32_MAX };
	static const __u32 alphas[] = { 0, 1, 512, 1023, 1024 };

	/* By hand for g = 1/1024: 1024 - 1 + (100 << 0) / 100 = 1024, and
	 * 1024 - 1 = 1023 without marking.  Shifts of 32 and more would be
	 * undefined without the clamp. */
	cr_assert_eq(dctcp_alpha_next(1024, 100, 100, 10), 1024u);
	cr_assert_eq(dctcp_alpha_next(1024, 100, 0, 10), 1023u);

	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		cr_assert_eq(dctcp_alpha_next(1024, 100, 100, big[i]), 1024u,
			     "shift_g=%u", big[i]);
		cr_assert_eq(dctcp_alpha_next(1024, 100, 0, big[i]), 1023u,
			     "shift_g=%u", big[i]);
		for (size_t j = 0; j < sizeof(alphas) / sizeof(alphas[0]); j++)
			for (__u32 ce = 0; ce <= 100; ce += 25)
				cr_assert_eq(dctcp_alpha_next(alphas[j], 100, ce, big[i]),
					     dctcp_alpha_next(alphas[j], 100, ce, 10),
					     "shift_g=%u alpha=%u ce=%u differs from 10",
					     big[i], alphas[j], ce);
	}
}

Test(dctcp_alpha, shift_g_zero_is_F)
{
	/* g = 1: alpha is the last window's F, 1024 * ce / delivered. */
	cr_assert_eq(dctcp_alpha_next(1024, 100, 25, 0), 256u);
	cr_assert_eq(dctcp_alpha_next(0, 3, 1, 0), 341u);	/* 1024/3 */
	cr_assert_eq(dctcp_alpha_next(700, 100, 0, 0), 0u);
}

Test(dctcp_alpha, ce_above_delivered_is_F_one)
{
	/* Same as delivered_ce == delivered: 0 + 1024/16. */
	cr_assert_eq(dctcp_alpha_next(0, 100, 200, G4), 64u);
	cr_assert_eq(dctcp_alpha_next(0, 1, UINT32_MAX, G4), 64u);
	cr_assert_eq(dctcp_alpha_next(1024, 100, 101, G4), 1024u);
	cr_assert_eq(dctcp_alpha_next(1024, 1, UINT32_MAX, 0), 1024u);

	/* Many windows of nonsense input: alpha climbs to 1.0, never above. */
	__u32 a = 0;

	for (int w = 0; w < 300; w++) {
		a = dctcp_alpha_next(a, 100, 5000, G4);
		cr_assert(a <= DCTCP_MAX_ALPHA, "window %d: alpha=%u > 1024", w, a);
	}
	cr_assert_eq(a, 1024u);
}

Test(dctcp_alpha, nothing_delivered_only_decays)
{
	/* No division by zero, no gain: 1024 - 64, 512 - 32. */
	cr_assert_eq(dctcp_alpha_next(1024, 0, 0, G4), 960u);
	cr_assert_eq(dctcp_alpha_next(512, 0, 0, G4), 480u);
	cr_assert_eq(dctcp_alpha_next(0, 0, 0, G4), 0u);
	/* ce > delivered = 0 is clamped to 0, so it decays as well. */
	cr_assert_eq(dctcp_alpha_next(1024, 0, 7, G4), 960u);
}

Test(dctcp_alpha, alpha_above_one_is_one)
{
	/* A stored alpha above 1.0 is read as 1.0: 1024 - 64. */
	cr_assert_eq(dctcp_alpha_next(5000, 100, 0, G4), 960u);
	cr_assert_eq(dctcp_alpha_next(UINT32_MAX, 100, 100, G4), 1024u);
}

/* Large counts do not overflow: (ce << 10) is done in 64 bits. */
Test(dctcp_alpha, large_counts)
{
	/* F = 1/2 with 2^31 deliveries, g = 1: 512. */
	cr_assert_eq(dctcp_alpha_next(0, 1u << 31, 1u << 30, 0), 512u);
	/* F = 1 with UINT32_MAX deliveries, g = 1/16: 64. */
	cr_assert_eq(dctcp_alpha_next(0, UINT32_MAX, UINT32_MAX, G4), 64u);
}

/* ---- window reductions ---- */

Test(dctcp_ssthresh, cut_by_alpha_over_two)
{
	cr_assert_eq(dctcp_ssthresh_of(100, 1024), 50u, "alpha=1: halve");
	cr_assert_eq(dctcp_ssthresh_of(100, 0), 100u, "alpha=0: no cut");
	cr_assert_eq(dctcp_ssthresh_of(100, 512), 75u, "alpha=1/2: cut a quarter");
	cr_assert_eq(dctcp_ssthresh_of(100, 256), 88u, "100 - floor(12.5)");
	cr_assert_eq(dctcp_ssthresh_of(1000, 64), 969u, "1000 - floor(31.25)");
}

Test(dctcp_ssthresh, floor_of_two)
{
	cr_assert_eq(dctcp_ssthresh_of(4, 1024), 2u);
	cr_assert_eq(dctcp_ssthresh_of(3, 1024), 2u, "3 - 1 = 2");
	cr_assert_eq(dctcp_ssthresh_of(2, 1024), 2u, "2 - 1 = 1, floored");
	cr_assert_eq(dctcp_ssthresh_of(1, 0), 2u);
	cr_assert_eq(dctcp_ssthresh_of(0, 1024), 2u);
	cr_assert_eq(dctcp_ssthresh_of(5, 1024), 3u, "5 - floor(2.5)");
}

Test(dctcp_ssthresh, large_cwnd_no_overflow)
{
	/* cwnd * alpha is 4e12, far past 32 bits. */
	cr_assert_eq(dctcp_ssthresh_of(4000000000u, 1024), 2000000000u);
	cr_assert_eq(dctcp_ssthresh_of(4000000000u, 512), 3000000000u);
	cr_assert_eq(dctcp_ssthresh_of(4000000000u, 0), 4000000000u);
	/* (2^32 - 1) - floor((2^32 - 1) / 2) = 2^31 */
	cr_assert_eq(dctcp_ssthresh_of(UINT32_MAX, 1024), 2147483648u);
}

Test(dctcp_ssthresh, loss_halves)
{
	cr_assert_eq(dctcp_loss_ssthresh(100), 50u);
	cr_assert_eq(dctcp_loss_ssthresh(101), 50u);
	cr_assert_eq(dctcp_loss_ssthresh(6), 3u);
	cr_assert_eq(dctcp_loss_ssthresh(5), 2u);
	cr_assert_eq(dctcp_loss_ssthresh(4), 2u);
	cr_assert_eq(dctcp_loss_ssthresh(3), 2u, "floor of 2");
	cr_assert_eq(dctcp_loss_ssthresh(1), 2u, "floor of 2");
	cr_assert_eq(dctcp_loss_ssthresh(0), 2u, "floor of 2");
	cr_assert_eq(dctcp_loss_ssthresh(UINT32_MAX), 2147483647u);
}
