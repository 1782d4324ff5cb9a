// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_bbr's pieces that Linux has but BPF cannot call: the windowed max
 * filter (bpf/lib/minmax.h) and BBR's arithmetic (bpf/bbr.h).  Expected
 * values are worked out from the definitions, not from running the code.
 */
#include <criterion/criterion.h>

#include "minmax.h"
#include "bbr.h"

/* ---- windowed max filter ---- */

Test(minmax, keeps_the_max_within_the_window)
{
	struct minmax m;

	ccs_minmax_reset(&m, 0, 100);
	cr_assert_eq(ccs_minmax_running_max(&m, 10, 1, 50), 100u);
	cr_assert_eq(ccs_minmax_running_max(&m, 10, 5, 80), 100u);
	cr_assert_eq(ccs_minmax_running_max(&m, 10, 9, 120), 120u, "a new max replaces at once");
}

/* The max expires after the window and the best later sample takes over:
 * samples 100 @0, 80 @4, 60 @8; at t=11 (> 10 after 0) 100 is gone and the
 * filter answers 80, at t=15 (> 10 after 4) it answers 60's successor. */
Test(minmax, best_sample_expires_and_the_next_best_takes_over)
{
	struct minmax m;

	ccs_minmax_reset(&m, 0, 100);
	ccs_minmax_running_max(&m, 10, 4, 80);
	ccs_minmax_running_max(&m, 10, 8, 60);
	cr_assert_eq(ccs_minmax_running_max(&m, 10, 11, 10), 80u, "100 from t=0 expired");
	cr_assert_eq(ccs_minmax_running_max(&m, 10, 15, 10), 60u, "80 from t=4 expired");
}

Test(minmax, empty_window_resets_to_the_new_sample)
{
	struct minmax m;

	ccs_minmax_reset(&m, 0, 100);
	/* nothing newer than t=0 and now t=50: the window holds only this */
	cr_assert_eq(ccs_minmax_running_max(&m, 10, 50, 7), 7u);
	cr_assert_eq(m.s[0].t, 50u);
}

/* A steady decline: the reported max never lags by more than the window. */
Test(minmax, decreasing_samples_are_tracked_within_one_window)
{
	struct minmax m;
	__u32 t, got;

	ccs_minmax_reset(&m, 0, 1000);
	for (t = 1; t < 100; t++) {
		got = ccs_minmax_running_max(&m, 10, t, 1000 - 10 * t);
		/* the max of the samples in [t - 10, t] is the one at t - 10
		 * (or at 0): the filter may answer a sample up to 10 + 10/4
		 * rounds old (its sub-window granularity), never older */
		cr_assert(got <= 1000 - 10 * (t > 10 ? t - 13 : 0) && got >= 1000 - 10 * t,
			  "t=%u: %u", t, got);
	}
}

Test(minmax, wraparound_of_the_round_counter)
{
	struct minmax m;

	ccs_minmax_reset(&m, 0xfffffffe, 500);
	cr_assert_eq(ccs_minmax_running_max(&m, 10, 3, 100), 500u, "5 rounds later, across 2^32");
	cr_assert_eq(ccs_minmax_running_max(&m, 10, 12, 100), 100u, "14 rounds later: expired");
}

/* ---- BBR arithmetic ---- */

/* 100 Mbit/s with 1448-byte segments is 8633 packets/s = 0.008633 pkt/us;
 * in BW_UNIT that is 0.008633 * 2^24 = 144837. */
#define BW_100M ((__u32)(100e6 / 8 / 1448 / 1e6 * (1 << 24)))

Test(bbr, rate_conversion_has_the_pacing_margin)
{
	__u64 r = bbr_rate_bytes_per_sec(BW_100M, 1448, BBR_UNIT, 1);

	/* 12.5 MB/s less 1 %, within the rounding of BW_100M */
	cr_assert(r > 12375000 * 0.999 && r < 12375000 * 1.001, "%llu", (unsigned long long)r);
	/* twice the gain, twice the rate (to the unit: each is floored) */
	cr_assert(bbr_rate_bytes_per_sec(BW_100M, 1448, 2 * BBR_UNIT, 0) -
			  2 * bbr_rate_bytes_per_sec(BW_100M, 1448, BBR_UNIT, 0) <=
		  1);
	/* 3 Tbit/s-class rates and a 2.89 gain do not overflow */
	cr_assert(bbr_rate_bytes_per_sec(0xffffffffU, 9000, 739, 1) > 0);
}

/* BDP: 100 Mbit/s x 20 ms = 250 KB = 172.7 packets of 1448 -> 173 (rounded up). */
Test(bbr, bdp_rounds_up_and_applies_the_gain)
{
	cr_assert_eq(bbr_bdp_of(BW_100M, 20000, BBR_UNIT), 173u);
	cr_assert_eq(bbr_bdp_of(BW_100M, 20000, 2 * BBR_UNIT), 346u);
	cr_assert_eq(bbr_bdp_of(BW_100M, ~0U, BBR_UNIT), (__u32)TCP_INIT_CWND, "no RTT yet");
	cr_assert_eq(bbr_bdp_of(0, 20000, BBR_UNIT), 0u);
}

Test(bbr, tso_goal_and_quantization)
{
	/* 12.5 MB/s >> 10 = 12207 bytes = 8 segments of 1448 */
	cr_assert_eq(bbr_tso_segs_of(12500000, 10, 1448), 8u);
	/* below 1.2 Mbit/s: 1 segment minimum, else 2 */
	cr_assert_eq(bbr_tso_segs_of(100000, 10, 1448), 1u);
	cr_assert_eq(bbr_tso_segs_of(1000000, 10, 1448), 2u);
	/* capped by the GSO size: 64 KB - headers = 44 segments of 1448 */
	cr_assert_eq(bbr_tso_segs_of(10000000000ULL, 0, 1448), (__u32)(BBR_GSO_MAX_BYTES / 1448));
	/* and at most 127, as Linux's bbr_tso_segs_goal(): an MSS of 88 bytes
	 * would otherwise ask for 740 */
	cr_assert_eq(bbr_tso_segs_of(10000000000ULL, 0, 88), 127u);
	cr_assert_eq(bbr_tso_segs_of(10000000000ULL, 0, 536), (__u32)(BBR_GSO_MAX_BYTES / 536));
	/* +3 skbs, rounded up to even, +2 when probing */
	cr_assert_eq(bbr_quantize(173, 8, 0), 198u);
	cr_assert_eq(bbr_quantize(173, 8, 1), 200u);
	cr_assert_eq(bbr_quantize(4, 1, 0), 8u);
}

Test(bbr, gains_are_linux_defaults)
{
	cr_assert_eq(BBR_UNIT * 2885 / 1000 + 1, 739, "high gain 2/ln2 = 2.885");
	cr_assert_eq(BBR_UNIT * 1000 / 2885, 88, "drain gain ln2/2 = 0.347");
	/* high_gain * drain_gain ~ 1: DRAIN undoes STARTUP's queue in a round */
	cr_assert((739 * 88) >> BBR_SCALE == 254);
}

/* Full pipe: growth below 25 % for 3 rounds in a row. */
Test(bbr, full_bw_after_three_rounds_without_25_percent_growth)
{
	__u32 full = 0, cnt = 0;

	cnt = bbr_full_bw_step(1000, &full, cnt); /* from 0: growth */
	cr_assert_eq(cnt, 0u);
	cr_assert_eq(full, 1000u);
	cnt = bbr_full_bw_step(1300, &full, cnt); /* +30 %: growth */
	cr_assert_eq(cnt, 0u);
	cnt = bbr_full_bw_step(1500, &full, cnt); /* +15 %: no */
	cnt = bbr_full_bw_step(1600, &full, cnt); /* +23 %: no */
	cr_assert_eq(cnt, 2u);
	cr_assert_eq(full, 1300u, "the bw to beat stays");
	cnt = bbr_full_bw_step(1624, &full, cnt); /* exactly 1.25 x 1300 = 1625? no */
	cr_assert_eq(cnt, 3u, "third round without growth: full");
}

Test(bbr, long_term_bw_consistency)
{
	/* within 1/8 */
	cr_assert(bbr_lt_consistent(1000, 1100, 1448, 1));
	cr_assert(!bbr_lt_consistent(1000, 2000, 1448, 1));
	/* or within 4 kbit/s: a 5-unit difference is 5 / 2^24 pkt/us of 1448
	 * bytes = 427 B/s = 3.4 kbit/s, though 1/3 of the rate */
	cr_assert(bbr_lt_consistent(10, 15, 1448, 1));
	cr_assert(!bbr_lt_consistent(10, 20, 1448, 1), "10 units = 6.9 kbit/s apart");
}
