// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the DCTCP (RFC 8257) arithmetic in bpf/dctcp.h.
 *
 * alpha is fixed point, 1.0 = ONE = 2^20.  With shift_g = 4 (g = 1/16) one
 * window does
 *   alpha <- alpha - (alpha >> 4)   [all of alpha when alpha >> 4 == 0]
 *            + (delivered_ce << 16) / delivered        (clamped to ONE)
 * Expected values are worked out from alpha <- (1 - g) alpha + g F, not
 * taken from running the code.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "dctcp.h"

#define ONE DCTCP_ALPHA_ONE
#define G4  4U /* the default: g = 1/16 */

static __u32 run_windows(__u32 alpha, unsigned windows, __u32 delivered, __u32 delivered_ce,
			 __u32 shift_g)
{
	while (windows--)
		alpha = dctcp_alpha_next(alpha, delivered, delivered_ce, shift_g);
	return alpha;
}

/*
 * Tolerance: alpha stops moving where floor(alpha/16) == gain, a dead band
 * 16 units (16 * 2^-20 of 1.0) wide, and gain = floor(2^16 F) is off by less
 * than one unit, so |alpha - F| < 17 * 2^-20 once converged.  300 windows
 * bring (15/16)^k below 2^-27: convergence is complete.
 */
#define TOL	(17.0 / ONE)
#define WINDOWS 300

static void assert_near(__u32 alpha, double f, const char *what)
{
	double a = (double)alpha / ONE;

	cr_assert(fabs(a - f) < TOL, "%s: alpha %.6f, want %.6f +- %.1e", what, a, f, TOL);
}

/* Every marking fraction, from both ends (1.0 = the default initial alpha,
 * and 0 = a flow whose alpha decayed while nothing was marked).  Light
 * marking from 0 is the case Linux's 10-bit alpha gets wrong (stuck at
 * g * F): see the comment in dctcp.h. */
Test(dctcp_alpha, converges_to_the_marking_fraction)
{
	static const __u32 ce[] = { 0, 1, 5, 10, 25, 50, 75, 100 };

	for (size_t i = 0; i < sizeof(ce) / sizeof(ce[0]); i++) {
		double f = ce[i] / 100.0;

		assert_near(run_windows(ONE, WINDOWS, 100, ce[i], G4), f, "from 1");
		assert_near(run_windows(0, WINDOWS, 100, ce[i], G4), f, "from 0");
	}
}

Test(dctcp_alpha, one_window_moves_by_g)
{
	cr_assert_eq(dctcp_alpha_next(0, 100, 100, G4), ONE / 16, "0 + g * 1");
	cr_assert_eq(dctcp_alpha_next(ONE, 100, 0, G4), ONE - ONE / 16, "1 - g * 1");
	cr_assert_eq(dctcp_alpha_next(ONE / 2, 100, 50, G4), ONE / 2, "F = alpha is a fixed point");
}

/* k fully marked windows from 0: 1 - (15/16)^k, each step truncating at
 * most 2 units (decay and gain). */
Test(dctcp_alpha, k_windows_follow_one_minus_15_16_pow_k)
{
	__u32 a = 0;

	for (int k = 1; k <= 40; k++) {
		double exact = 1.0 - pow(15.0 / 16.0, k);

		a = dctcp_alpha_next(a, 100, 100, G4);
		cr_assert(fabs((double)a / ONE - exact) <= 2.0 * k / ONE, "k=%d: %.6f vs %.6f", k,
			  (double)a / ONE, exact);
	}
}

Test(dctcp_alpha, decays_to_exactly_zero_when_marking_stops)
{
	__u32 a = run_windows(ONE, 400, 100, 0, G4);

	cr_assert_eq(a, 0u, "alpha %u after 400 clean windows", a);
	/* and monotonically: never grows without marks */
	for (__u32 x = ONE, y; x; x = y) {
		y = dctcp_alpha_next(x, 100, 0, G4);
		cr_assert(y < x, "%u -> %u", x, y);
	}
}

Test(dctcp_alpha, other_gains)
{
	/* g = 1: alpha is the last window's F */
	cr_assert_eq(dctcp_alpha_next(ONE, 100, 30, 0), (__u32)((30ULL << 20) / 100));
	/* g = 1/256: one marked window from 0 moves 1/256 */
	cr_assert_eq(dctcp_alpha_next(0, 10, 10, 8), ONE / 256);
	/* shift_g above the maximum behaves as the maximum (16) */
	cr_assert_eq(dctcp_alpha_next(0, 10, 10, 40), dctcp_alpha_next(0, 10, 10, 16));
	cr_assert_eq(dctcp_alpha_next(0, 10, 10, 16), ONE >> 16);
}

Test(dctcp_alpha, untrusted_counts_keep_alpha_in_range)
{
	/* more CE than delivered (cannot happen) is F = 1, never above 1 */
	cr_assert_eq(dctcp_alpha_next(ONE, 10, 50, G4), ONE);
	cr_assert_eq(dctcp_alpha_next(0, 10, 50, G4), ONE / 16);
	/* nothing delivered: decay only, no division by zero */
	cr_assert_eq(dctcp_alpha_next(ONE, 0, 0, G4), ONE - ONE / 16);
	/* alpha above 1 is clamped first */
	cr_assert_eq(dctcp_alpha_next(0xffffffffu, 100, 100, G4), ONE);
	/* 2^32-1 packets: the gain's shift is done in 64 bits */
	cr_assert_eq(dctcp_alpha_next(0, 0xffffffffu, 0xffffffffu, G4), ONE / 16);
	assert_near(dctcp_alpha_next(0, 0xffffffffu, 0x7fffffffu, 0), 0.5, "F=1/2, g=1");
}

Test(dctcp_alpha, tunable_units)
{
	cr_assert_eq(dctcp_alpha_from_1024(1024), ONE);
	cr_assert_eq(dctcp_alpha_from_1024(512), ONE / 2);
	cr_assert_eq(dctcp_alpha_from_1024(5000), ONE, "clamped to 1.0");
	cr_assert_eq(dctcp_alpha_to_1024(ONE / 4), 256u);
}

/* ---- window reduction: cwnd * (1 - alpha / 2) ---- */

Test(dctcp_ssthresh, cut_by_alpha_over_two)
{
	cr_assert_eq(dctcp_ssthresh_of(100, ONE), 50u, "alpha 1 halves");
	cr_assert_eq(dctcp_ssthresh_of(100, 0), 100u, "alpha 0 keeps");
	cr_assert_eq(dctcp_ssthresh_of(100, ONE / 2), 75u, "alpha 1/2 cuts a quarter");
	cr_assert_eq(dctcp_ssthresh_of(1000, ONE / 4), 875u, "alpha 1/4 cuts an eighth");
	cr_assert_eq(dctcp_ssthresh_of(1000, ONE / 10), 951u, "the cut (49.99) is floored");
}

Test(dctcp_ssthresh, floor_of_two)
{
	cr_assert_eq(dctcp_ssthresh_of(2, ONE), 2u);
	cr_assert_eq(dctcp_ssthresh_of(3, ONE), 2u);
	cr_assert_eq(dctcp_ssthresh_of(1, 0), 2u);
	cr_assert_eq(dctcp_ssthresh_of(0, ONE), 2u);
}

Test(dctcp_ssthresh, large_values_do_not_overflow)
{
	cr_assert_eq(dctcp_ssthresh_of(4000000000u, ONE), 2000000000u);
	cr_assert_eq(dctcp_ssthresh_of(4000000000u, ONE / 2), 3000000000u);
	cr_assert_eq(dctcp_ssthresh_of(100, 0xffffffffu), 50u, "alpha clamped to 1");
}

Test(dctcp_ssthresh, loss_halves)
{
	cr_assert_eq(dctcp_loss_ssthresh(100), 50u);
	cr_assert_eq(dctcp_loss_ssthresh(101), 50u);
	cr_assert_eq(dctcp_loss_ssthresh(4), 2u);
	cr_assert_eq(dctcp_loss_ssthresh(3), 2u);
	cr_assert_eq(dctcp_loss_ssthresh(0), 2u);
	cr_assert_eq(dctcp_loss_ssthresh(0xffffffffu), 0x7fffffffu);
}
