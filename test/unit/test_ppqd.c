// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for PPQD's arithmetic in bpf/ppqd.h: Brown's double
 * exponential smoothing and its one-step forecast (worked out by hand
 * from S1 <- a x + (1-a) S1, S2 <- a S1 + (1-a) S2, forecast =
 * S1 + (S1 - S2) / (1 - a)), the queueing delay against its mean, the
 * bounded decrease, the warm-up and the delta-scaled growth.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "ppqd.h"

#define A_HALF 500

Test(ppqd, constant_rtt_forecasts_itself)
{
	struct ppqd_smooth s = {};

	for (int i = 0; i < 50; i++)
		ppqd_sample(&s, 20000, A_HALF);
	cr_assert_eq(s.forecast_us, 20000);
	cr_assert_eq(s.base_us, 20000);
	cr_assert_eq(s.q_us, 0);
	cr_assert_eq(s.qmean_us, 0);
}

/* A ramp: double smoothing tracks a linear trend with no lag, so once
 * converged the forecast is the next sample (within fixed-point
 * rounding: 1 us). */
Test(ppqd, ramp_forecast_is_the_next_sample)
{
	struct ppqd_smooth s = {};
	uint32_t x = 10000, slope = 100;
	int i;

	for (i = 0; i < 60; i++, x += slope)
		ppqd_sample(&s, x, A_HALF);
	/* x is now the sample that comes next */
	cr_assert(abs((int)s.forecast_us - (int)x) <= 1, "forecast %u, next %u", s.forecast_us, x);
	/* the same with a = 0.2: slower, still no lag once converged */
	memset(&s, 0, sizeof(s));
	for (i = 0, x = 10000; i < 300; i++, x += slope)
		ppqd_sample(&s, x, 200);
	cr_assert(abs((int)s.forecast_us - (int)x) <= 2, "forecast %u, next %u", s.forecast_us, x);
}

/* A step from 10 ms to 20 ms with a = 0.5: by hand, the first sample
 * after it gives S1 = 15000, S2 = 12500, forecast 20000; the second
 * S1 = 17500, S2 = 15000, forecast 22500 (the trend overshoots); then it
 * settles on 20000. */
Test(ppqd, step_overshoots_then_settles)
{
	struct ppqd_smooth s = {};
	int i;

	for (i = 0; i < 30; i++)
		ppqd_sample(&s, 10000, A_HALF);
	ppqd_sample(&s, 20000, A_HALF);
	cr_assert_eq(s.forecast_us, 20000);
	ppqd_sample(&s, 20000, A_HALF);
	cr_assert_eq(s.forecast_us, 22500);
	cr_assert_eq(s.q_us, 12500);
	for (i = 0; i < 40; i++)
		ppqd_sample(&s, 20000, A_HALF);
	cr_assert(abs((int)s.forecast_us - 20000) <= 1, "forecast %u", s.forecast_us);
	cr_assert_eq(s.base_us, 10000);
	/* mean of 30 x 10 ms and 42 x 20 ms, less BaseRTT */
	cr_assert_eq(s.qmean_us, (30 * 10000 + 42 * 20000) / 72 - 10000);
}

/* A falling RTT: the trend is negative, the forecast below S1, and
 * never below 0. */
Test(ppqd, falling_rtt)
{
	struct ppqd_smooth s = {};

	for (int i = 0; i < 20; i++)
		ppqd_sample(&s, 50000, A_HALF);
	ppqd_sample(&s, 1000, A_HALF);
	ppqd_sample(&s, 1000, A_HALF);
	cr_assert_lt(s.forecast_us, (uint32_t)(s.s1 >> PPQD_FRAC_SHIFT));
	cr_assert_eq(s.base_us, 1000);
	memset(&s, 0, sizeof(s));
	ppqd_sample(&s, 1000000, 990);
	ppqd_sample(&s, 1, 990); /* forecast S1 + 99 (S1 - S2) < 0 */
	cr_assert_eq(s.forecast_us, 0);
	cr_assert_eq(s.q_us, 0);
}

Test(ppqd, warmup_holds_off_the_decrease)
{
	struct ppqd_smooth s = {};
	int i;

	for (i = 0; i < 5; i++)
		ppqd_sample(&s, 10000, A_HALF);
	for (i = 0; i < 5; i++)
		ppqd_sample(&s, 30000, A_HALF); /* queueing far above the mean */
	cr_assert_gt(s.q_us, s.qmean_us);
	cr_assert(!ppqd_above_mean(&s, 15));
	cr_assert(ppqd_above_mean(&s, 10));
	cr_assert(ppqd_above_mean(&s, 0));
}

Test(ppqd, decrease_proportional_and_bounded)
{
	struct ppqd_smooth s = { .forecast_us = 20000, .q_us = 15000, .qmean_us = 5000 };

	/* cut = 0.9 * (15000 - 5000) / 20000 = 45 % */
	cr_assert_eq(ppqd_decrease(100, &s, 900), 55);
	/* never below 2, and a window of 2 or less stays */
	cr_assert_eq(ppqd_decrease(3, &s, 1000), 2);
	cr_assert_eq(ppqd_decrease(2, &s, 1000), 2);
	cr_assert_eq(ppqd_decrease(1, &s, 1000), 1);
	/* at or below the mean: nothing */
	s.q_us = 5000;
	cr_assert_eq(ppqd_decrease(100, &s, 900), 100);
	/* the largest possible cut: Q - Qm just under the forecast, delta 1 */
	s = (struct ppqd_smooth){ .forecast_us = 20000, .q_us = 19999, .qmean_us = 0 };
	/* 999950 by hand; the ratio's 20 fraction bits leave it 1 short */
	cr_assert(abs((int)ppqd_decrease(1000000, &s, 1000) - 50) <= 1);
	/* a window of 2^32 - 1 does not overflow */
	cr_assert_geq(ppqd_decrease(0xffffffffU, &s, 1000), 2);
	cr_assert_leq(ppqd_decrease(0xffffffffU, &s, 1000), 0xffffffffU / 10000 * 2);
	cr_assert_geq(ppqd_decrease(4, &s, 1000), 2);
}

Test(ppqd, growth_is_lia_over_delta)
{
	cr_assert_eq(ppqd_cnt(900, 900), 1000);
	cr_assert_eq(ppqd_cnt(256 * 40, 1000), 256 * 40);
	cr_assert_eq(ppqd_cnt(~0ULL, 900), ~0ULL / 900);
}

/* The guard's look once per RTT above the mean, its RTT's samples being
 * @rtt_us each (BaseRTT 20 ms), the connection's window @w. */
static int look(struct ppqd_guard *g, uint32_t rtt_us, uint32_t w, uint32_t yield)
{
	for (int i = 0; i < 10; i++)
		ppqd_guard_sample(g, rtt_us);
	return ppqd_judge(g, 20000, 1, w, yield);
}

/* A queue that keeps rising above the mean while the window holds is
 * someone else's: the subflow competes yield RTTs after the reference
 * (the first whole RTT above the mean), not before. */
Test(ppqd, yields_to_a_rising_queue)
{
	struct ppqd_guard g = {};

	cr_assert(!look(&g, 24000, 10, 2)); /* crossed: averaging starts */
	cr_assert(!look(&g, 25000, 10, 2)); /* the reference, 5 ms */
	cr_assert_eq(g.ref_q_us, 5000);
	cr_assert(!look(&g, 26000, 10, 2)); /* one RTT: not yet */
	cr_assert(look(&g, 27000, 10, 2));  /* two, and higher: compete */
	cr_assert_eq(g.mode, PPQD_COMPETE);
	cr_assert_eq(g.looks, 0);
	/* yield 1, not wary: one RTT after the reference */
	ppqd_guard_loss(&g);
	g.wary = 0;
	cr_assert(!look(&g, 25000, 10, 1));
	cr_assert(!look(&g, 25000, 10, 1));
	cr_assert(look(&g, 25100, 10, 1));
}

/* Alone, the window holds or is cut and the queue does not rise: no
 * yield however long it stays above the mean. */
Test(ppqd, holds_delay_control_when_the_queue_answers)
{
	struct ppqd_guard g = {};
	int i;

	cr_assert(!look(&g, 30000, 10, 2));
	cr_assert(!look(&g, 25000, 10, 2));
	for (i = 0; i < 300; i++)
		cr_assert(!look(&g, i % 2 ? 25000 : 24000, 10, 2));
	cr_assert_eq(g.mode, PPQD_DELAY);
	cr_assert_eq(g.looks, 0xff); /* counts, saturated */
	cr_assert(ppqd_may_cut(&g));
}

/* The queue rose, but so did the connection's window: its own doing (a
 * sibling subflow below its mean, say). */
Test(ppqd, own_growth_is_no_competitor)
{
	struct ppqd_guard g = {};

	cr_assert(!look(&g, 25000, 20, 2));
	cr_assert(!look(&g, 25000, 21, 2));
	cr_assert(!look(&g, 26000, 21, 2));
	cr_assert(!look(&g, 27000, 22, 2));
	/* back to the window it went above with: the rise counts */
	cr_assert(look(&g, 28000, 20, 2));
}

/* The samples of an RTT below the mean are not the reference's: below the
 * mean, or a loss, starts over. */
Test(ppqd, below_the_mean_starts_over)
{
	struct ppqd_guard g = {};

	for (int i = 0; i < 1000; i++)
		ppqd_guard_sample(&g, 20500);
	ppqd_below_mean(&g);
	cr_assert_eq(g.rtt_cnt, 0);
	cr_assert(!look(&g, 26000, 10, 2));
	cr_assert(!look(&g, 26000, 10, 2));
	cr_assert_eq(g.ref_q_us, 6000, "the reference: the RTT above the mean only");
	cr_assert(!look(&g, 26000, 10, 2));
	cr_assert(!look(&g, 26000, 10, 2), "a queue as high as the reference is no rise");
	ppqd_guard_sample(&g, 90000);
	ppqd_guard_loss(&g);
	cr_assert_eq(g.rtt_cnt, 0);
	cr_assert_eq(g.looks, 0);
	/* yield 0 never competes */
	for (int i = 0; i < 100; i++)
		cr_assert(!look(&g, 25000 + 100 * i, 10, 0));
}

/* The look takes the mean of the RTT's samples, not one noisy forecast;
 * without samples the forecast's queueing delay; the sum is bounded. */
Test(ppqd, judges_the_mean_of_an_rtt)
{
	struct ppqd_guard g = {};

	cr_assert(!ppqd_judge(&g, 20000, 9000, 10, 1));
	/* samples 21..29 ms: mean 25 ms, 5 ms of queue, whatever the
	 * forecast (@q_us) said */
	for (uint32_t x = 21000; x <= 29000; x += 1000)
		ppqd_guard_sample(&g, x);
	cr_assert(!ppqd_judge(&g, 20000, 9000, 10, 1));
	cr_assert_eq(g.ref_q_us, 5000);
	cr_assert_eq(g.rtt_cnt, 0);
	/* no sample: the forecast's 4 ms, lower: no yield */
	cr_assert(!ppqd_judge(&g, 20000, 4000, 10, 1));
	/* a mean below BaseRTT is no queue */
	memset(&g, 0, sizeof(g));
	g.looks = 1;
	ppqd_guard_sample(&g, 10000);
	cr_assert(!ppqd_judge(&g, 20000, 9000, 10, 1));
	cr_assert_eq(g.ref_q_us, 0);
	/* bounded: no more samples than PPQD_GUARD_CNT_MAX */
	g.rtt_cnt = PPQD_GUARD_CNT_MAX;
	ppqd_guard_sample(&g, 0xffffffffU);
	cr_assert_eq(g.rtt_cnt, PPQD_GUARD_CNT_MAX);
	cr_assert_eq(g.rtt_sum_us, 0);
}

/* After a loss that ended a competition: no cut, and one RTT of a queue
 * above the reference is enough; a queue that does not rise makes it as
 * patient as before. */
Test(ppqd, wary_after_a_competition)
{
	struct ppqd_guard g = {};

	for (int i = 0; i < 4; i++)
		look(&g, 25000 + 1000 * i, 10, 3);
	cr_assert(look(&g, 29000, 10, 3));
	ppqd_guard_loss(&g);
	cr_assert(g.wary);
	cr_assert(!ppqd_may_cut(&g));
	cr_assert(!look(&g, 25000, 10, 3));
	cr_assert(!look(&g, 25000, 10, 3));
	cr_assert(!ppqd_may_cut(&g), "wary: holds without cutting");
	cr_assert(look(&g, 25500, 10, 3), "one RTT of a rising queue");
	/* a loss that ends a competition makes it wary, one in delay
	 * control does not */
	ppqd_guard_loss(&g);
	cr_assert(g.wary);
	ppqd_guard_loss(&g);
	cr_assert(!g.wary);
	/* wary, but the queue answers: back to yield RTTs, and cuts */
	g.wary = 1;
	cr_assert(!look(&g, 25000, 10, 3));
	cr_assert(!look(&g, 25000, 10, 3));
	cr_assert(!look(&g, 24000, 10, 3));
	cr_assert(!g.wary);
	cr_assert(ppqd_may_cut(&g));
	cr_assert(!look(&g, 26000, 10, 3));
	cr_assert(look(&g, 27000, 10, 3));
	/* yield 0: never, wary or not */
	memset(&g, 0, sizeof(g));
	g.wary = 1;
	for (int i = 0; i < 10; i++)
		cr_assert(!look(&g, 25000 + 1000 * i, 10, 0));
}

/*
 * RTT noise without a queue (samples 20 and 24 ms in turn, 2 ms either
 * side of the mean): the forecast with a = 0.5 swings past the running
 * mean by 1.56 ms, with the default 1/8 by 0.28 ms.
 */
Test(ppqd, slow_smoothing_damps_noise)
{
	struct ppqd_smooth fast = {}, slow = {};
	uint32_t over_fast = 0, over_slow = 0;
	int i;

	for (i = 0; i < 200; i++) {
		uint32_t x = i % 2 ? 24000 : 20000;

		ppqd_sample(&fast, x, A_HALF);
		ppqd_sample(&slow, x, 125);
		if (i < 100)
			continue;
		if (fast.q_us > fast.qmean_us && fast.q_us - fast.qmean_us > over_fast)
			over_fast = fast.q_us - fast.qmean_us;
		if (slow.q_us > slow.qmean_us && slow.q_us - slow.qmean_us > over_slow)
			over_slow = slow.q_us - slow.qmean_us;
	}
	cr_assert_gt(over_fast, 1000, "a = 0.5: %u us over the mean", over_fast);
	cr_assert_lt(over_slow, 500, "a = 1/8: %u us over the mean", over_slow);
}
