// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of bpf/flashpass/cc.h, the CC's window under credits, its bank, a drought and the pacing
 * from credits' gaps:
 * against the definitions of the FlashPass paper and of this project's,
 * with values worked out by hand.  Only that part is included: each part
 * of bpf/flashpass.h stands alone.
 */
#include <criterion/criterion.h>

#include "flashpass/cc.h"

Test(fp_window, a_drought_is_t_wait_without_credit)
{
	const __u64 ms = 1000000;

	cr_assert(fp_credit_drought(0, 40 * ms, 5 * ms), "no credit yet");
	cr_assert_not(fp_credit_drought(100 * ms, 40 * ms, 140 * ms), "T_wait since the last");
	cr_assert(fp_credit_drought(100 * ms, 40 * ms, 141 * ms));
	cr_assert_not(fp_credit_drought(100 * ms, 1 * ms, 110 * ms), "10 ms at least");
	cr_assert(fp_credit_drought(100 * ms, 1 * ms, 111 * ms));
}

Test(fp_window, credits_are_taken_a_little_ahead)
{
	/* 1500-byte packets at 12 MB/s: 125 us each, 4 of them 500 us: 1 ms */
	cr_assert_eq(fp_lead_ns(20000000, 12000000, 1500, 4), FP_LEAD_MIN_NS, "at least 1 ms");
	/* at 600 kB/s (one of 20 flows): 2.5 ms each, 10 ms for 4 */
	cr_assert_eq(fp_lead_ns(20000000, 600000, 1500, 4), 10000000);
	cr_assert_eq(fp_lead_ns(4000000, 600000, 1500, 4), 4000000, "at most an RTT");
	cr_assert_eq(fp_lead_ns(200000, 12000000, 1500, 4), 200000, "a short RTT bounds it");
	cr_assert_eq(fp_lead_ns(3000000, 0, 1500, 4), 3000000, "no rate yet: an RTT");
	cr_assert_eq(fp_lead_ns(20000000, 600000, 1500, 1), 2500000, "one credit's time");
	cr_assert_eq(fp_lead_ns(20000000, 600000, 1500, 0), 0, "none: only usable credits");
}

Test(fp_window, the_bank_is_time_at_the_credit_rate)
{
	/* 8 000 credits/s of 1448 bytes: 16 in 2 ms, at most bank_max */
	cr_assert_eq(fp_bank_limit(11584000, 1448, 2000, 64), 16);
	cr_assert_eq(fp_bank_limit(11584000, 1448, 2000, 12), 12, "bank_max bounds it");
	/* 20 flows sharing that rate: each its own share of the 2 ms */
	cr_assert_eq(fp_bank_limit(11584000 / 2, 1448, 2000, 64), 8);
	cr_assert_eq(fp_bank_limit(11584000 / 20, 1448, 2000, 64), FP_BANK_MIN,
		     "a slow flow keeps FP_BANK_MIN");
	cr_assert_eq(fp_bank_limit(11584000 / 20, 1448, 2000, 2), 2, "bank_max below the floor");
	cr_assert_eq(fp_bank_limit(0, 1448, 2000, 64), FP_BANK_MIN, "no rate yet: the floor");
	cr_assert_eq(fp_bank_limit(11584000, 0, 2000, 64), FP_BANK_MIN, "no segment size yet");
	cr_assert_eq(fp_bank_limit(11584000, 1448, 0, 64), 64, "bank_us 0: bank_max alone");
	cr_assert_eq(fp_bank_limit(~0ULL >> 20, 1, 1000000, 1024), 1024, "no overflow");
	cr_assert_eq(fp_bank_limit(11584000, 1448, 1000001, 64), 64, "over a second: bank_max");
}

Test(fp_window, credits_open_the_window)
{
	cr_assert_eq(fp_credit_cwnd(10, 3, 4, 1), 13, "in flight + the spare credits");
	cr_assert_eq(fp_credit_cwnd(10, 30, 4, 1), 14, "at most a burst of them at once");
	cr_assert_eq(fp_credit_cwnd(10, 0, 4, 1), 10, "no spare: what is in flight");
	cr_assert_eq(fp_credit_cwnd(0, 0, 4, 1), 1, "a floor of 1: a probe");
	cr_assert_eq(fp_credit_cwnd(0, 0, 4, 0), 0, "a floor of 0: wait for a credit");
	cr_assert_eq(fp_credit_cwnd(0, 2, 4, 0), 2, "the floor only below");
	cr_assert_eq(fp_credit_cwnd(0x7ffffff0U, 1ULL << 40, 64, 1), 0x7fffffffU, "clamped");
	/* 101 credits stamped over 10 ms at mss 1448: 100 gaps, 14.48 MB/s */
	cr_assert_eq(fp_pacing_rate(101, 10000, 1448), 14480000ULL);
	cr_assert_eq(fp_pacing_rate(1, 10000, 1448), 0, "one credit: no gap");
	cr_assert_eq(fp_pacing_rate(5, 0, 1448), 0, "stamps all equal: nothing to measure");
	cr_assert_eq(fp_pace_smooth(1000, 2000), 1250);
}

Test(fp_window, pacing_follows_the_last_credits)
{
	__u32 avg = 0, at = 1000, i;

	cr_assert_eq(fp_gap_avg(0, 0, 1000, 8), 0, "the first credit: no gap yet");
	avg = fp_gap_avg(0, 1000, 1130, 8);
	cr_assert_eq(avg, 130 << FP_GAP_SHIFT, "the first gap is the average");
	/* mss 1448 every 130 us: 11.14 MB/s */
	cr_assert_eq(fp_gap_rate(avg, 1448), 1448ULL * 1000000 * 256 / (130 << 8));
	/* the credit rate halves: within 3N credits the average is 95 % there */
	for (i = 0, at = 1130; i < 24; i++, at += 260)
		avg = fp_gap_avg(avg, at, at + 260, 8);
	cr_assert_gt(avg, 247 << FP_GAP_SHIFT);
	cr_assert_leq(avg, 260 << FP_GAP_SHIFT);
	cr_assert_eq(fp_gap_avg(avg, 5000, 4990, 8), avg, "out of order: ignored");
	cr_assert_eq(fp_gap_avg(avg, 5000, 5000 + FP_GAP_MAX_US + 1, 8), avg, "a drought: ignored");
	cr_assert_eq(fp_gap_avg(avg, 0xfffffff0U, 0x10, 8), (avg * 7 + (0x20 << 8)) / 8,
		     "the stamps wrap");
	cr_assert_eq(fp_gap_avg(0, 5000, 5000, 8), 1 << FP_GAP_SHIFT,
		     "equal stamps first: 1 us, not an unbounded rate");
	cr_assert_eq(fp_gap_avg(0, 5000, 5000, 1), 1 << FP_GAP_SHIFT, "N = 1 alike");
	cr_assert_eq(fp_gap_avg(256, 5000, 5000, 8), 224, "within an average a 0 gap counts");
	cr_assert_eq(fp_gap_avg(avg, 5000, 5100, 1), 100 << FP_GAP_SHIFT, "N = 1: the last gap");
	cr_assert_eq(fp_gap_rate(0, 1448), 0, "no average: no rate");
}
