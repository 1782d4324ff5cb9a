// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of bpf/flashpass/rc.h, the emulation rate: the rate control (the project's Algorithm 1),
 * jitter, the emulation queue's rate, expected credits and demand, the
 * credit loop's window:
 * against the definitions of the FlashPass paper and of this project's,
 * with values worked out by hand.  Only that part is included: each part
 * of bpf/flashpass.h stands alone.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "flashpass/rc.h"

static const struct fp_rc_params RC = {
	.max_loss = 102, /* 0.10 (0.0996) */
	.min_loss = 10,	 /* 0.01 (0.0098) */
	.w_min = 8,
	.w_max = 512,
};

Test(fp_rc, decrease_above_max_target_loss)
{
	struct fp_rc rc = { .rate = 10000, .w = 512 };

	/* L = 300 / 1000 -> 307/1024; r (1 - L)(1 + 0.0996) */
	cr_assert_eq(fp_rc_update(&rc, &RC, 1000, 700, 10, 100000), FP_RC_DOWN);
	cr_assert_eq(rc.last_loss, 307);
	cr_assert_eq(rc.rate, 10000ULL * (1024 - 307) / 1024 * (1024 + 102) / 1024);
	cr_assert_eq(rc.w, 256, "w halves on a decrease");
	cr_assert_eq(rc.decreases, 1);
}

Test(fp_rc, increase_below_min_target_loss_with_weight_w)
{
	struct fp_rc rc = { .rate = 1000, .w = 256, .decreases = 1 }; /* past its start */

	cr_assert_eq(fp_rc_update(&rc, &RC, 1000, 1000, 10, 100000), FP_RC_UP);
	/* a part w of the gap to r_max: 1000 * 768/1024 + 100000 * 256/1024 */
	cr_assert_eq(rc.rate, 750 + 25000, "first increase uses w as it is");
	cr_assert_eq(rc.w, 256);
	cr_assert_eq(fp_rc_update(&rc, &RC, 1000, 995, 10, 100000), FP_RC_UP, "L 5/1024 < min");
	cr_assert_eq(rc.w, (256 + 512) / 2, "consecutive increases grow w back toward w_max");
	cr_assert_eq(rc.rate, 25750ULL * 640 / 1024 + 100000ULL * 384 / 1024);
}

Test(fp_rc, equal_loss_moves_toward_equal_rates)
{
	struct fp_rc a = { .rate = 100, .w = 64, .decreases = 1 },
		     b = { .rate = 4000, .w = 64, .decreases = 1 };

	/* the same loss pattern on both: the gap between them narrows */
	for (int i = 0; i < 40; i++) {
		int lossy = i % 3 == 2;

		fp_rc_update(&a, &RC, 1000, lossy ? 850 : 1000, 10, 8000);
		fp_rc_update(&b, &RC, 1000, lossy ? 850 : 1000, 10, 8000);
	}
	cr_assert(a.rate + 400 > b.rate && b.rate + 400 > a.rate,
		  "4000 vs 100 at the start: %llu vs %llu now", (unsigned long long)b.rate,
		  (unsigned long long)a.rate);
}

Test(fp_rc, hold_between_the_targets)
{
	struct fp_rc rc = { .rate = 5000, .w = 512, .last_up = 1 };

	cr_assert_eq(fp_rc_update(&rc, &RC, 1000, 950, 10, 100000), FP_RC_HOLD, "L = 0.05");
	cr_assert_eq(rc.rate, 5000);
	cr_assert_eq(rc.last_up, 0, "a hold ends a run of increases");
}

Test(fp_rc, clamped_to_r_min_and_r_max)
{
	struct fp_rc rc = { .rate = 100000, .w = 512 };

	fp_rc_update(&rc, &RC, 1000, 1000, 10, 100000);
	cr_assert_eq(rc.rate, 100000, "never above r_max");
	rc.rate = 20;
	fp_rc_update(&rc, &RC, 1000, 0, 10, 100000);
	cr_assert_eq(rc.rate, 10, "total loss: down to r_min, not 0");
	cr_assert_eq(rc.w, 256, "the increase kept w at 512; the decrease halved it");
	for (int i = 0; i < 10; i++)
		fp_rc_update(&rc, &RC, 1000, 0, 10, 100000);
	cr_assert_eq(rc.w, RC.w_min, "w stops at w_min");
}

Test(fp_rc, nothing_sent_nothing_judged)
{
	struct fp_rc rc = { .rate = 777, .w = 512 };

	cr_assert_eq(fp_rc_update(&rc, &RC, 0, 5, 10, 100000), FP_RC_HOLD);
	cr_assert_eq(rc.rate, 777);
	cr_assert_eq(fp_loss(100, 150), 0, "late credits of an earlier interval are no loss");
}

Test(fp_rc, a_new_flow_starts_at_its_fraction_of_r_max)
{
	struct fp_rc_params p = RC;

	p.start = FP_ONE;
	cr_assert_eq(fp_rc_start(&p, 7706), 7706, "the paper's start: r_max");
	p.start = 256;
	cr_assert_eq(fp_rc_start(&p, 7706), 1926);
	p.start = 1;
	cr_assert_eq(fp_rc_start(&p, 7706), 7);
	cr_assert_eq(fp_rc_start(&p, 1000), 1, "at least a packet a second");
}

Test(fp_rc, doubles_until_its_first_decrease)
{
	struct fp_rc rc = { .rate = 1926, .w = 64 };

	cr_assert_eq(fp_rc_update(&rc, &RC, 100, 100, 10, 7706), FP_RC_UP);
	cr_assert_eq(rc.rate, 3852);
	cr_assert_eq(fp_rc_update(&rc, &RC, 100, 100, 10, 7706), FP_RC_UP);
	cr_assert_eq(rc.rate, 7704);
	cr_assert_eq(fp_rc_update(&rc, &RC, 100, 100, 10, 7706), FP_RC_UP);
	cr_assert_eq(rc.rate, 7706, "not above r_max");
	cr_assert_eq(fp_rc_update(&rc, &RC, 100, 50, 10, 7706), FP_RC_DOWN);
	cr_assert_eq(rc.rate, 4236);
	/* after it, an increase closes w of the gap (w: 64, then 288 and 400
	 * over the increases, halved by the decrease) */
	cr_assert_eq(rc.w, 200);
	cr_assert_eq(fp_rc_update(&rc, &RC, 100, 100, 10, 7706), FP_RC_UP);
	cr_assert_eq(rc.rate, 4236 * (1024 - 200) / 1024 + 7706 * 200 / 1024);
}

static const struct fp_rc_params RC_SETTLE = { .max_loss = 102,
					       .min_loss = 10,
					       .w_min = 8,
					       .w_max = 512,
					       .settle = 1 };

Test(fp_rc, a_change_waits_for_its_first_credit)
{
	struct fp_rc rc = { .rate = 10000, .w = 512 };

	fp_rc_settle(&rc, &RC, FP_RC_DOWN, 5000);
	cr_assert(fp_rc_settled(&rc, 0), "not asked for: no wait");
	fp_rc_settle(&rc, &RC_SETTLE, fp_rc_update(&rc, &RC, 1000, 700, 10, 100000), 5000);
	cr_assert(!fp_rc_settled(&rc, 4999), "credits of the old rate: not yet");
	cr_assert(fp_rc_settled(&rc, 5000), "the new rate's first packet credited");
	cr_assert(fp_rc_settled(&rc, 5100));
	fp_rc_settle(&rc, &RC_SETTLE, fp_rc_update(&rc, &RC, 1000, 1000, 10, 100000), 6000);
	cr_assert(rc.settling, "an increase waits too");
	fp_rc_settle(&rc, &RC_SETTLE, fp_rc_update(&rc, &RC, 1000, 950, 10, 100000), 7000);
	cr_assert(fp_rc_settled(&rc, 0), "a hold changed nothing: nothing to wait for");
}

Test(fp_rc, settling_across_sequence_wrap)
{
	struct fp_rc rc = { 0 };

	fp_rc_settle(&rc, &RC_SETTLE, FP_RC_DOWN, 0xfffffff0U);
	cr_assert(!fp_rc_settled(&rc, 0xffffffe0U));
	cr_assert(fp_rc_settled(&rc, 0xfffffff0U));
	cr_assert(fp_rc_settled(&rc, 5), "past the wrap");
	fp_rc_settle(&rc, &RC_SETTLE, FP_RC_UP, 3);
	cr_assert(!fp_rc_settled(&rc, 0xfffffffeU), "before the wrap");
}

Test(fp_gap, jitter_stays_within_its_span_and_keeps_the_rate)
{
	__u64 sum = 0, lo = ~0ULL, hi = 0, x = 88172645463325252ULL;

	cr_assert_eq(fp_gap_jitter(130000, 0, 12345), 130000, "no jitter: the rate's gap");
	for (int i = 0; i < 100000; i++) {
		__u64 g;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		g = fp_gap_jitter(130000, 90, x);
		sum += g;
		lo = g < lo ? g : lo;
		hi = g > hi ? g : hi;
	}
	cr_assert_geq(lo, 13000, "never below gap (1 - 0.9): %llu", (unsigned long long)lo);
	cr_assert_leq(hi, 247000, "never above gap (1 + 0.9): %llu", (unsigned long long)hi);
	cr_assert(lo < 20000 && hi > 240000, "the span is used: %llu..%llu", (unsigned long long)lo,
		  (unsigned long long)hi);
	/* the mean of 100 000 uniform draws: within 0.5 % of the gap */
	cr_assert(sum / 100000 > 129350 && sum / 100000 < 130650, "mean %llu",
		  (unsigned long long)(sum / 100000));
	cr_assert_eq(fp_gap_jitter(1, 90, ~0ULL), 1, "a gap of 1 ns has no span");
	cr_assert_geq(fp_gap_jitter(1000, 250, 0), 10, "above 99 %% is 99 %%: a gap never 0");
}

Test(fp_rate, emulation_queue_rate_is_84_of_1622)
{
	/* 100 Mbit/s: 100e6 / (1622 * 8) = 7706 packets/s */
	cr_assert_eq(fp_emu_pps_max(100000000ULL), 7706);
	cr_assert_eq(fp_emu_bps(100000000ULL), 100000000ULL / 1622 * 84, "about 5.2 %%");
	cr_assert_eq(fp_rate_min(20000000ULL, 7706), 50, "one packet per 20 ms RTT");
	cr_assert_eq(fp_rate_min(0, 7706), 1);
	cr_assert_eq(fp_rate_min(5000000000ULL, 7706), 1, "an RTT above 1 s still 1 pps");
	cr_assert_eq(fp_rate_min(100000ULL, 7706), 7706 / 64, "a 0.1 ms RTT: r_max / 64");
	cr_assert_eq(fp_rate_min(100000ULL, 10), 1, "never 0");
}

Test(fp_marking, expected_credits_against_demand)
{
	/* 100 in flight, 10 % target loss: 90 expected */
	cr_assert_eq(fp_expected_credits(100, 102), 100 * (1024 - 102) / 1024);
	cr_assert(fp_over_provisioned(100, 102, 90), "expected credits cover 90 segments");
	cr_assert_not(fp_over_provisioned(100, 102, 91), "not 91: normal, ECT");
	cr_assert(fp_over_provisioned(0, 102, 0), "no demand: everything is spare");
	cr_assert_not(fp_over_provisioned(0, 102, 1));
	cr_assert_eq(fp_expected_credits(100, 1024), 0, "a target loss of 1 expects nothing");
}

Test(fp_marking, without_over_provisioning_no_spare_packet)
{
	struct fp_rc_params p = { .max_loss = 102 };

	cr_assert(fp_emu_wanted(&p, 0), "a normal packet is sent");
	cr_assert(fp_emu_wanted(&p, 1), "the paper's: an over-provisioned one too");
	p.no_over = 1;
	cr_assert(fp_emu_wanted(&p, 0), "without: a normal packet still is");
	cr_assert_not(fp_emu_wanted(&p, 1), "without: no over-provisioned one");
}

Test(fp_marking, demand_in_segments)
{
	cr_assert_eq(fp_demand_segs(1000 + 2897, 1000, 1448, 0), 3, "2897 bytes: 3 segments");
	cr_assert_eq(fp_demand_segs(1000, 1000, 1448, 0), 0);
	cr_assert_eq(fp_demand_segs(100, 0xFFFFFF00U, 1448, 0), 1,
		     "across the sequence wrap (356)");
	cr_assert_eq(fp_demand_segs(1000, 2000, 1448, 0), 0, "snd_nxt past write_seq: none");
	cr_assert_eq(fp_demand_segs(5000, 1000, 0, 0), 0, "no mss yet");
	cr_assert_eq(fp_demand_segs(1000 + 2897, 1000, 1448, 1), FP_DEMAND_OPEN,
		     "a full send buffer: the writer has more, demand open");
	cr_assert_eq(fp_demand_segs(1000, 1000, 1448, FP_SND_FULL), 0,
		     "nothing queued: none, full or not");
	cr_assert_eq(fp_demand_segs(1000, 1000, 1448, FP_SND_WRITER_WAITS), FP_DEMAND_OPEN,
		     "nothing unsent but a writer blocked: it has more");
	cr_assert_eq(fp_demand_segs(1000 + 2897, 1000, 1448, FP_SND_WRITER_WAITS), FP_DEMAND_OPEN);
	cr_assert_eq(fp_demand_segs(5000, 1000, 0, FP_SND_WRITER_WAITS), 0, "no mss yet");
	cr_assert(!fp_over_provisioned(1000000, 102, FP_DEMAND_OPEN),
		  "open demand is never covered");
	cr_assert(fp_sndbuf_full(200000, 300000), "two thirds: a writer may wait");
	cr_assert(!fp_sndbuf_full(199999, 300000));
	cr_assert(!fp_sndbuf_full(0, 0), "no buffer size yet");
}

/* The loop's in-flight count by sequence numbers, across the wrap. */
Test(fp_loop, in_flight_and_lost_by_numbers)
{
	cr_assert_eq(fp_loop_in_flight(10, 4), 5, "5..9 out");
	cr_assert_eq(fp_loop_in_flight(5, 4), 0, "none out");
	cr_assert_eq(fp_loop_in_flight(4, 4), 0, "a credit ahead of the numbering: none");
	cr_assert_eq(fp_loop_in_flight(3, 0xfffffffeU), 4, "across the wrap");
	cr_assert_eq(fp_loop_lost(4, 5, 0), 0);
	cr_assert_eq(fp_loop_lost(4, 8, 0), 3, "5, 6, 7 lost");
	cr_assert_eq(fp_loop_lost(4, 3, 0), 0, "reordered: nothing");
	cr_assert_eq(fp_loop_lost(0, 100, 1), 0, "a loop's first credit: nothing");
	cr_assert_eq(fp_loop_lost(0xfffffffeU, 1, 0), 2, "across the wrap");
}

Test(fp_loop, window_and_emit)
{
	cr_assert_eq(fp_loop_window(7706, 20000000ULL), 154, "r_max at 100 Mbit/s over 20 ms");
	cr_assert_eq(fp_loop_window(10, 1000000ULL), 1, "never below one packet");
	cr_assert_eq(fp_loop_window(~0ULL / 2, NSEC_PER_SEC), FP_LOOP_WIN_MAX);
	cr_assert_eq(fp_loop_window(1000000, 100ULL * NSEC_PER_SEC), FP_LOOP_WIN_MAX,
		     "an absurd round trip is capped, not overflowed");
	cr_assert_eq(fp_loop_emit(0, 10), 2);
	cr_assert_eq(fp_loop_emit(8, 10), 2);
	cr_assert_eq(fp_loop_emit(9, 10), 1, "at the window: one for one");
	cr_assert_eq(fp_loop_emit(10, 10), 0, "above it: the loop shrinks");
	cr_assert_eq(fp_loop_emit(0, 1), 1);
	cr_assert_eq(fp_loop_seeds(1926, 20000000ULL), 16, "a quarter of r_max over 20 ms: capped");
	cr_assert_eq(fp_loop_seeds(1926, 2000000ULL), 3);
	cr_assert_eq(fp_loop_seeds(1926, 0), 1);
}

/*
 * A loop of one flow, its credits coming back in order one round trip
 * later: from two seeds it doubles each round trip at most, reaches its
 * window and holds it there; a window cut in half drains the loop to it.
 * Numbers as the egress gives them, in flight as the ingress counts.
 */
Test(fp_loop, grows_to_its_window_and_holds)
{
	__u32 seq = 0, credited = 0, out[8192], n_out = 2, win = 100, prev = 2, rt;

	out[0] = seq++;
	out[1] = seq++;
	for (rt = 0; rt < 12; rt++) {
		__u32 next[8192], n_next = 0, i, k;

		if (rt == 9)
			win = 50;
		for (i = 0; i < n_out; i++) {
			credited = out[i];
			k = fp_loop_emit(fp_loop_in_flight(seq, credited), win);
			while (k--)
				next[n_next++] = seq++;
		}
		cr_assert_leq(n_next, 2 * n_out, "round trip %u: %u from %u", rt, n_next, n_out);
		cr_assert_leq(n_next, win, "round trip %u: %u over the window %u", rt, n_next, win);
		memcpy(out, next, n_next * sizeof(*out));
		n_out = n_next;
		if (rt == 3)
			cr_assert_eq(n_out, 32, "doubled each round trip: %u", n_out);
		prev = n_out;
	}
	cr_assert_eq(prev, 50, "held at the window: %u", prev);
}
