// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for RFC 6356's coupled increase in bpf/lia.h.  Expected
 * values come from the RFC's formula in doubles:
 *   alpha = w_total * max_i(w_i / r_i^2) / (sum_i w_i / r_i)^2
 * and the per-ACK increase min(alpha / w_total, 1 / w_r), i.e. one
 * segment per max(w_total / alpha, w_r) ACKed segments.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "lia.h"

#define ONE_CNT (1U << LIA_FRAC_SHIFT)

static double rfc_alpha(const struct cpl_sub *s, unsigned n)
{
	double wt = 0, best = 0, den = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!s[i].cwnd)
			continue;
		wt += s[i].cwnd;
		best = fmax(best, s[i].cwnd / ((double)s[i].rtt_us * s[i].rtt_us));
		den += s[i].cwnd / (double)s[i].rtt_us;
	}
	return wt * best / (den * den);
}

static double wtotal(const struct cpl_sub *s, unsigned n)
{
	double wt = 0;

	for (unsigned i = 0; i < n; i++)
		wt += s[i].cwnd;
	return wt;
}

/* alpha within 0.5 % (1/1024 units and the 8-bit fraction of D), and the
 * coupled count w_total / alpha likewise. */
static void check_rfc(const struct cpl_sub *s, unsigned n)
{
	struct lia_coupling c;
	double a = rfc_alpha(s, n), cnt = wtotal(s, n) / a;

	lia_couple(s, n, &c);
	cr_assert_eq(c.w_total, (uint64_t)wtotal(s, n));
	cr_assert(fabs(c.alpha / 1024.0 - a) <= 0.005 * a + 1.0 / 1024, "alpha %.5f, RFC 6356 %.5f",
		  c.alpha / 1024.0, a);
	cr_assert(fabs((double)c.cnt / ONE_CNT - cnt) <= 0.005 * cnt + 1.0 / ONE_CNT,
		  "count %.3f, RFC 6356 %.3f", (double)c.cnt / ONE_CNT, cnt);
}

Test(lia, one_subflow_is_reno)
{
	struct cpl_sub s = { .cwnd = 37, .rtt_us = 20000 };
	struct lia_coupling c;
	int coupled;

	lia_couple(&s, 1, &c);
	cr_assert_eq(c.alpha, 1024);
	cr_assert_eq(c.cnt, 37U * ONE_CNT);
	cr_assert_eq(lia_cnt(&c, 37, &coupled), 37U * ONE_CNT);
}

Test(lia, two_equal_subflows_alpha_half)
{
	struct cpl_sub s[2] = { { 20, 10000 }, { 20, 10000 } };
	struct lia_coupling c;
	int coupled;

	lia_couple(s, 2, &c);
	cr_assert_eq(c.alpha, 512);
	/* w_total / alpha = 80 ACKs a segment: a quarter of Reno's rate on
	 * each, half of one TCP flow's over both */
	cr_assert_eq(c.cnt, 80U * ONE_CNT);
	cr_assert_eq(lia_cnt(&c, 20, &coupled), 80U * ONE_CNT);
	cr_assert(coupled);
}

Test(lia, rfc_formula_on_mixed_paths)
{
	const struct cpl_sub cases[][4] = {
		{ { 10, 10000 }, { 20, 40000 } },
		{ { 100, 2000 }, { 60, 1000 } },
		{ { 3, 150000 }, { 200, 5000 }, { 45, 30000 } },
		{ { 1, 1 }, { 1000, 2000000 } },
		{ { 5000, 800 }, { 7, 90000 }, { 64, 12000 }, { 900, 3000 } },
	};
	const unsigned n[] = { 2, 2, 3, 2, 4 };

	for (unsigned i = 0; i < sizeof(n) / sizeof(n[0]); i++)
		check_rfc(cases[i], n[i]);
}

/* The paper's two paths (15 Mbit/s 2 ms, 10 Mbit/s 1 ms) at their BDPs */
Test(lia, paper_paths)
{
	struct cpl_sub s[2] = { { 4, 4000 }, { 2, 2000 } };

	check_rfc(s, 2);
}

Test(lia, coupled_never_faster_than_uncoupled)
{
	/* one subflow far smaller than the other at a far shorter RTT: its
	 * coupled term would exceed Reno's on it */
	struct cpl_sub s[2] = { { 2, 1000 }, { 100, 100000 } };
	struct lia_coupling c;
	int coupled;

	lia_couple(s, 2, &c);
	for (uint32_t w = 1; w < 200; w++)
		cr_assert_geq(lia_cnt(&c, w, &coupled), (uint64_t)w * ONE_CNT);
	cr_assert_eq(lia_cnt(&c, 2, &coupled), c.cnt > 2U * ONE_CNT ? c.cnt : 2U * ONE_CNT);
}

Test(lia, empty_slots_are_not_counted)
{
	struct cpl_sub s[CPL_MAX_SUBFLOWS] = { [1] = { 20, 10000 }, [6] = { 20, 10000 } };
	struct lia_coupling c;

	lia_couple(s, CPL_MAX_SUBFLOWS, &c);
	cr_assert_eq(c.n, 2);
	cr_assert_eq(c.w_total, 40);
	cr_assert_eq(c.alpha, 512);
}

Test(lia, no_subflow_no_coupling)
{
	struct cpl_sub s[2] = {};
	struct lia_coupling c;
	int coupled;

	lia_couple(s, 2, &c);
	cr_assert_eq(c.cnt, 0);
	cr_assert_eq(lia_cnt(&c, 10, &coupled), 10U * ONE_CNT);
	cr_assert(!coupled);
}

/* Windows at the bound, RTTs from 1 us to past the clamp: no overflow
 * (the count saturates far above any window, never wraps low). */
Test(lia, extremes_do_not_overflow)
{
	struct cpl_sub s[CPL_MAX_SUBFLOWS];
	struct lia_coupling c;

	for (unsigned i = 0; i < CPL_MAX_SUBFLOWS; i++)
		s[i] = (struct cpl_sub){ 0xffffffffU, i ? 0xffffffffU : 1 };
	lia_couple(s, CPL_MAX_SUBFLOWS, &c);
	cr_assert_eq(c.w_total, (uint64_t)CPL_MAX_SUBFLOWS * LIA_CWND_MAX);
	cr_assert_geq(c.cnt, (uint64_t)LIA_CWND_MAX * ONE_CNT);
	for (unsigned i = 0; i < CPL_MAX_SUBFLOWS; i++)
		s[i] = (struct cpl_sub){ LIA_CWND_MAX, i ? 1 : LIA_RTT_MAX_US };
	lia_couple(s, CPL_MAX_SUBFLOWS, &c);
	check_rfc(s, CPL_MAX_SUBFLOWS);
	/* an RTT above the clamp counts as the clamp */
	s[0].rtt_us = 10 * LIA_RTT_MAX_US;
	{
		struct lia_coupling c2;

		lia_couple(s, CPL_MAX_SUBFLOWS, &c2);
		cr_assert_eq(c2.cnt, c.cnt);
	}
}

Test(lia, grow_carries_the_fraction)
{
	__u64 acc = 0;
	uint32_t w = 10;

	/* 2.5 ACKed segments per +1: 10 ACKs give 4 */
	for (int i = 0; i < 10; i++)
		w = lia_grow(w, 1, 5 * ONE_CNT / 2, &acc, 1000);
	cr_assert_eq(w, 14);
	cr_assert_eq(acc, 0);
	/* a stretch ACK of 7 at 2.5: +2, 2 left over */
	w = lia_grow(w, 7, 5 * ONE_CNT / 2, &acc, 1000);
	cr_assert_eq(w, 16);
	cr_assert_eq(acc, 2U * ONE_CNT);
	/* the clamp */
	w = lia_grow(999, 100, ONE_CNT, &acc, 1000);
	cr_assert_eq(w, 1000);
}

/* A count that falls (the other subflow left) pays built-up credit out
 * as one segment, not as a burst. */
Test(lia, a_falling_count_is_no_burst)
{
	__u64 acc = 0, big = 1020ULL * ONE_CNT, small = 10ULL * ONE_CNT;
	uint32_t w = 10;

	for (int i = 0; i < 1019; i++)
		w = lia_grow(w, 1, big, &acc, 100000);
	cr_assert_eq(w, 10);
	w = lia_grow(w, 1, small, &acc, 100000);
	cr_assert_eq(w, 11);
	cr_assert_lt(acc, small);
}

Test(lia, halve)
{
	cr_assert_eq(lia_halve(100), 50);
	cr_assert_eq(lia_halve(5), 2);
	cr_assert_eq(lia_halve(1), 2);
}

/* cut_once: one halving per congestion event of the connection, an event
 * lasting the subflow's RTT from the halving that began it. */
Test(lia, one_halving_per_congestion_event)
{
	const __u64 rtt = 20000000; /* 20 ms */

	cr_assert(!cpl_same_event(1000000000, 0, rtt), "no halving yet");
	cr_assert(cpl_same_event(1000000000 + rtt - 1, 1000000000, rtt));
	cr_assert(!cpl_same_event(1000000000 + rtt, 1000000000, rtt));
	/* a halving stamped a little later on another CPU */
	cr_assert(cpl_same_event(999999000, 1000000000, rtt));
	/* no RTT yet: every loss is its own event */
	cr_assert(!cpl_same_event(1000000001, 1000000000, 0));
	cr_assert(!cpl_same_event(~0ULL, 1, rtt));
}
