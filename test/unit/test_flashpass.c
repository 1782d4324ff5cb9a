// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the FlashPass arithmetic and wire format in
 * bpf/flashpass.h, against the definitions of the FlashPass paper and of
 * this project's rate control, with values worked out by hand.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <string.h>

#include "csum.h"
#include "flashpass.h"

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

Test(fp_calibration, usable_at_t_plus_t_wait)
{
	cr_assert_eq(fp_t_wait(0, 20000000ULL), 40000000ULL, "unset: 2 x min RTT");
	cr_assert_eq(fp_t_wait(50000000ULL, 20000000ULL), 50000000ULL, "the tunable when set");
	/* T = 1 s, T_wait 40 ms, arrived after 25 ms: usable at 1.040 s */
	cr_assert_eq(fp_usable_at(1000000000ULL, 40000000ULL, 1025000000ULL), 1040000000ULL);
	/* a credit slower than T_wait is usable when it arrives, not before */
	cr_assert_eq(fp_usable_at(1000000000ULL, 40000000ULL, 1060000000ULL), 1060000000ULL);
}

Test(fp_calibration, a_batch_keeps_its_packets_spacing)
{
	__u64 t = 1000000000ULL; /* the batch's last packet left at 1 s */

	cr_assert_eq(fp_emu_gap_ns(4000), 250000, "4000 packets/s: 250 us apart");
	cr_assert_eq(fp_emu_gap_ns(0), 0, "no rate: no spacing");
	cr_assert_eq(fp_batch_time(t, 250000, 0), t, "the last credit: its own time");
	cr_assert_eq(fp_batch_time(t, 250000, 3), t - 750000, "three back");
	cr_assert_eq(fp_batch_time(t, 0, 15), t, "no rate known: all at the last's time");
	cr_assert_eq(fp_batch_time(500, 250000, 15), 0, "no wrap below the clock's start");
}

Test(fp_calibration, wire_time_expands_across_its_wrap)
{
	__u64 now = 5000000000000ULL; /* 5000 s */
	__u32 t_now = (__u32)(now / 1000);

	cr_assert_eq(fp_time_expand(now, t_now - 20000), now - 20000000ULL, "20 ms ago");
	cr_assert_eq(fp_time_expand(now, t_now + 3000), now + 3000000ULL, "3 ms ahead");
	/* now just past a wrap of the 32-bit us stamp, T just before it */
	now = (1ULL << 32) * 1000 + 5000000ULL; /* 5 ms after the wrap */
	cr_assert_eq(fp_time_expand(now, 0xFFFFFFFFU - 999), (1ULL << 32) * 1000 - 1000000ULL);
	cr_assert_eq(fp_time_expand(1000000ULL, 0xFFFFFFF0U), 0, "before the clock began");
	cr_assert(fp_after_eq(5, 0xFFFFFFF0U), "5 follows a stamp just before the wrap");
	cr_assert_not(fp_after_eq(0xFFFFFFF0U, 5));
}

Test(fp_ring, credits_become_usable_in_time_order)
{
	static struct fp_ring r;

	memset(&r, 0, sizeof(r));
	cr_assert(fp_ring_put(&r, 100));
	cr_assert(fp_ring_put(&r, 200));
	cr_assert(fp_ring_put(&r, 300));
	cr_assert_eq(fp_ring_take(&r, 99, 64), 0, "none is due yet");
	cr_assert_eq(fp_ring_take(&r, 200, 64), 2);
	cr_assert_eq(fp_ring_fill(&r), 1);
	cr_assert_eq(fp_ring_take(&r, 1000, 64), 1);
	cr_assert_eq(fp_ring_take(&r, 1000, 64), 0, "empty");
}

Test(fp_ring, due_tells_without_taking)
{
	static struct fp_ring r;

	cr_assert_not(fp_ring_due(&r, 1000), "empty: nothing due");
	cr_assert(fp_ring_put(&r, 100));
	cr_assert_not(fp_ring_due(&r, 99), "not yet");
	cr_assert(fp_ring_due(&r, 100));
	cr_assert(fp_ring_due(&r, 100), "looking takes nothing");
	cr_assert_eq(fp_ring_take_one(&r, 100), 100);
	cr_assert_not(fp_ring_due(&r, 1000), "taken");
}

Test(fp_ring, lag_is_the_oldest_credits_age)
{
	static struct fp_ring r;

	cr_assert_eq(fp_ring_lag_us(&r, 1000), 0, "empty: no lag");
	cr_assert(fp_ring_put(&r, 100));
	cr_assert(fp_ring_put(&r, 300));
	cr_assert_eq(fp_ring_lag_us(&r, 99), 0, "not due yet");
	cr_assert_eq(fp_ring_lag_us(&r, 100), 0, "due just now");
	cr_assert_eq(fp_ring_lag_us(&r, 450), 350, "the oldest, not the newest");
	cr_assert_eq(fp_ring_take_one(&r, 450), 100);
	cr_assert_eq(fp_ring_lag_us(&r, 450), 150);
	r.tail = r.head = 0xfffffffeU; /* counters and stamps across their wrap */
	cr_assert(fp_ring_put(&r, 0xfffffff0U));
	cr_assert_eq(fp_ring_lag_us(&r, 0x10), 0x20);
}

Test(fp_ring, a_release_expires_the_credits_well_before_it)
{
	static struct fp_ring r;

	cr_assert(fp_ring_put(&r, 1000));
	cr_assert(fp_ring_put(&r, 1899));
	cr_assert(fp_ring_put(&r, 1900), "within the slack of the release's stamp");
	cr_assert(fp_ring_put(&r, 2000), "the release's own");
	cr_assert_eq(fp_ring_take(&r, fp_expire_before(2000), FP_RING), 2);
	cr_assert_eq(fp_ring_oldest(&r), 1900);
	cr_assert_eq(fp_ring_take(&r, fp_expire_before(50), FP_RING), 0,
		     "serial arithmetic: a stamp after the wrap expires nothing newer");
}

Test(fp_ring, banked_credits_tell_a_lost_packet_from_one_in_flight)
{
	const __u32 off[] = { 500, 1900, 2600, 5000 };

	cr_assert_eq(fp_ring_says(off, 4, 1900), FP_RING_CREDITED);
	cr_assert_eq(fp_ring_says(off, 4, 1950), FP_RING_CREDITED, "T_wait moved by 50 us");
	cr_assert_eq(fp_ring_says(off, 4, 400), FP_RING_CREDITED, "just before the first");
	cr_assert_eq(fp_ring_says(off, 4, 3500), FP_RING_LOST, "1.5 ms before a banked one");
	cr_assert_eq(fp_ring_says(off, 4, 2300), FP_RING_LOST, "none within 100 us of it");
	cr_assert_eq(fp_ring_says(off, 4, 4500), FP_RING_UNKNOWN,
		     "the newest came only 500 us after: this one may still come");
	cr_assert_eq(fp_ring_says(off, 4, 6000), FP_RING_UNKNOWN, "after every banked one");
	cr_assert_eq(fp_ring_says(off, 0, 100), FP_RING_UNKNOWN, "nothing banked");
	cr_assert_eq(fp_ring_says(off, 4, 0xfffffff0U), FP_RING_UNKNOWN, "no overflow");
}

Test(fp_ring, a_credit_is_overdue_an_rtt_and_a_queue_later)
{
	/* 20 ms RTT, 100 Mbit/s (7706 packets/s): 20 + 5 + 1 + 2.076 ms */
	cr_assert_eq(fp_credit_overdue_us(20000000, 7706), 28076);
	cr_assert_eq(fp_credit_overdue_us(0, 7706), 1000 + 2076, "no RTT yet: the queue");
	cr_assert_eq(fp_credit_overdue_us(20000000, 0), 26000, "no rate: no queue term");
	cr_assert_eq(fp_credit_overdue_us(~0ULL, 1), 0x7fffffffU, "bounded");
}

Test(fp_marking, in_flight_is_at_most_an_overdue_time_of_packets)
{
	cr_assert_eq(fp_emu_in_flight(100, 60, 10, 7706, 28076), 30);
	cr_assert_eq(fp_emu_in_flight(100, 90, 20, 7706, 28076), 0,
		     "more credited and lost than sent");
	/* 2200 sent at the start, no credit: 7706/s for 28 ms is 216 */
	cr_assert_eq(fp_emu_in_flight(2200, 0, 0, 7706, 28076), 217);
	cr_assert(!fp_over_provisioned(fp_emu_in_flight(2200, 0, 0, 7706, 28076), 102, 1000),
		  "a bulk flow with no credit yet keeps asking at normal priority");
	cr_assert_eq(fp_emu_in_flight(5, 0, 0, 0, 28076), 1, "no rate: one");
}

Test(fp_window, a_drought_is_t_wait_without_credit)
{
	const __u64 ms = 1000000;

	cr_assert(fp_credit_drought(0, 40 * ms, 5 * ms), "no credit yet");
	cr_assert_not(fp_credit_drought(100 * ms, 40 * ms, 140 * ms), "T_wait since the last");
	cr_assert(fp_credit_drought(100 * ms, 40 * ms, 141 * ms));
	cr_assert_not(fp_credit_drought(100 * ms, 1 * ms, 110 * ms), "10 ms at least");
	cr_assert(fp_credit_drought(100 * ms, 1 * ms, 111 * ms));
}

Test(fp_ring, full_ring_refuses_and_take_is_bounded)
{
	static struct fp_ring r;
	__u32 i;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < FP_RING - FP_RING_SLACK; i++)
		cr_assert(fp_ring_put(&r, 10 + i));
	cr_assert_not(fp_ring_put(&r, 5000), "full: the credit is refused, none overwritten");
	cr_assert_eq(r.head, FP_RING - FP_RING_SLACK, "a refusal reserves nothing");
	cr_assert_eq(fp_ring_take(&r, 100000, 64), 64, "at most max per call");
	cr_assert_eq(r.at[0], 0, "taken slots are cleared");
	cr_assert(fp_ring_put(&r, 6000), "room again");
}

Test(fp_ring, counters_wrap_around)
{
	static struct fp_ring r;
	__u32 n = 0;

	memset(&r, 0, sizeof(r));
	r.head = r.tail = 0xFFFFFFFEU; /* two slots before the counters wrap */
	for (int i = 0; i < 5; i++)
		cr_assert(fp_ring_put(&r, 0xFFFFFFF0U + i), "stamps wrap too"); /* and 0 -> 1 */
	cr_assert_eq(fp_ring_fill(&r), 5, "head wrapped past tail: fill still 5");
	n = fp_ring_take(&r, 0xFFFFFFF2U, 64);
	cr_assert_eq(n, 3);
	n = fp_ring_take(&r, 10, 64);
	cr_assert_eq(n, 2, "the rest after the stamp wrap");
	cr_assert_eq(r.tail, 3);
	cr_assert_eq(fp_ring_put(&r, 0), 1);
	cr_assert_eq(r.at[3 & (FP_RING - 1)], 1, "a 0 stamp is stored as 1: 0 is an empty slot");
}

Test(fp_ring, unfilled_slot_stops_the_consumer)
{
	static struct fp_ring r;

	memset(&r, 0, sizeof(r));
	fp_ring_put(&r, 100);
	r.head++; /* a producer reserved slot 1 but has not written it */
	cr_assert_eq(fp_ring_take(&r, 1000, 64), 1);
	cr_assert_eq(r.tail, 1, "waits at the reserved slot");
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

static enum fp_wire_err check(const void *p, __u32 len, enum fp_type t)
{
	return fp_wire_check(p, len, t);
}

Test(fp_wire, every_malformed_case_is_told_apart)
{
	struct fp_wire w = { .magic = FP_MAGIC,
			     .ver_type = FP_VERSION << 4 | FP_EMULATION,
			     .count = 1 };

	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_EMULATION), FP_WIRE_OK);
	cr_assert_eq(check(&w, FP_WIRE_LEN - 1, FP_EMULATION), FP_WIRE_SHORT);
	cr_assert_eq(check(&w, 0, FP_EMULATION), FP_WIRE_SHORT);
	cr_assert_eq(check(&w, FP_WIRE_LEN + 1, FP_EMULATION), FP_WIRE_LONG);
	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_CREDIT), FP_WIRE_TYPE);
	w.count = 0;
	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_EMULATION), FP_WIRE_COUNT);
	w.count = 1;
	w.ver_type = (FP_VERSION + 1) << 4 | FP_EMULATION;
	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_EMULATION), FP_WIRE_VERSION);
	w.magic = 0;
	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_EMULATION), FP_WIRE_MAGIC);
	cr_assert_eq(sizeof(struct fp_wire), 18, "IPv4 + UDP + fp_wire is a minimum frame");
}

Test(fp_wire, a_credit_stands_for_at_most_a_batch)
{
	struct fp_wire w = { .magic = FP_MAGIC, .ver_type = FP_VERSION << 4 | FP_CREDIT };

	w.count = FP_BATCH_MAX;
	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_CREDIT), FP_WIRE_OK);
	w.count = FP_BATCH_MAX + 1;
	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_CREDIT), FP_WIRE_COUNT);
	w.count = 255;
	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_CREDIT), FP_WIRE_COUNT);
	/* the pacer sends one emulation packet per credit it asks for */
	w.ver_type = FP_VERSION << 4 | FP_EMULATION;
	w.count = 2;
	cr_assert_eq(check(&w, FP_WIRE_LEN, FP_EMULATION), FP_WIRE_COUNT);
}

Test(fp_replay, each_credit_is_taken_once)
{
	struct fp_replay_win w = { 0 };

	/* the first credit sets the window, whatever its number */
	cr_assert_eq(fp_replay_check(&w, 0x90000000u), FP_REPLAY_NEW);
	cr_assert_eq(w.last, 0x90000000u);
	cr_assert_eq(fp_replay_check(&w, 0x90000000u), FP_REPLAY_DUP);
	cr_assert_eq(fp_replay_check(&w, 0x90000001u), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check(&w, 0x90000001u), FP_REPLAY_DUP);
	cr_assert_eq(fp_replay_check(&w, 0x90000000u), FP_REPLAY_DUP);
	cr_assert_eq(w.seen, 0x3);
}

Test(fp_replay, reordered_within_the_window)
{
	struct fp_replay_win w = { 0 };

	cr_assert_eq(fp_replay_check(&w, 100), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check(&w, 105), FP_REPLAY_NEW); /* 101..104 late */
	cr_assert_eq(w.seen, (1u << 5) | 1u);
	cr_assert_eq(fp_replay_check(&w, 103), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check(&w, 103), FP_REPLAY_DUP);
	cr_assert_eq(fp_replay_check(&w, 101), FP_REPLAY_NEW);
	cr_assert_eq(w.last, 105);
	/* the oldest the window holds is last - 31; last - 32 is too old */
	cr_assert_eq(fp_replay_check(&w, 105 - 31), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check(&w, 105 - 32), FP_REPLAY_OLD);
}

Test(fp_replay, a_jump_beyond_the_window_starts_it_again)
{
	struct fp_replay_win w = { 0 };

	cr_assert_eq(fp_replay_check(&w, 7), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check(&w, 7 + FP_REPLAY_WIN), FP_REPLAY_NEW);
	cr_assert_eq(w.seen, 1u);
	cr_assert_eq(fp_replay_check(&w, 7), FP_REPLAY_OLD);
	/* and across the sequence numbers' wrap */
	w = (struct fp_replay_win){ 0 };
	cr_assert_eq(fp_replay_check(&w, 0xfffffffeu), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check(&w, 1), FP_REPLAY_NEW);
	cr_assert_eq(w.seen, (1u << 3) | 1u);
	cr_assert_eq(fp_replay_check(&w, 0xfffffffeu), FP_REPLAY_DUP);
	cr_assert_eq(fp_replay_check(&w, 0xffffffffu), FP_REPLAY_NEW);
}

Test(fp_replay, a_credit_far_ahead_is_not_the_flows)
{
	struct fp_replay_win w = { 0 };

	cr_assert_eq(fp_replay_check(&w, 100), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check(&w, 100 + FP_REPLAY_JUMP), FP_REPLAY_AHEAD);
	cr_assert_eq(w.last, 100, "the window did not move");
	cr_assert_eq(fp_replay_check(&w, 101), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check(&w, 101 + FP_REPLAY_JUMP - 1), FP_REPLAY_NEW);
}

/* The pacer's IPv6 emulation packets carry a UDP checksum (loader/lib/csum.h):
 * over the pseudo-header (addresses, length, next header), worked by hand. */
struct udp6_case {
	uint8_t src[16], dst[16];
	uint8_t udp[10]; /* ports 1 -> 2, length, check, 2 bytes of payload */
};

static struct udp6_case udp6(uint16_t len, uint8_t p0, uint8_t p1)
{
	struct udp6_case c = { .src[15] = 1, .dst[15] = 2 };
	uint8_t h[] = { 0, 1, 0, 2, 0, (uint8_t)len, 0, 0, p0, p1 };

	memcpy(c.udp, h, sizeof(h));
	return c;
}

Test(csum, rfc1071_example)
{
	/* RFC 1071 1.4: 0001 f203 f4f5 f6f7 sums to 2ddf0, folds to ddf2 */
	const uint8_t b[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

	cr_assert_eq(csum_add(0, b, sizeof(b)), 0x2ddf0);
	cr_assert_eq(ntohs(csum_fold(csum_add(0, b, sizeof(b)))), (uint16_t)~0xddf2);
	/* an odd last byte is the high half of a word */
	cr_assert_eq(csum_add(0, b, 3), 0x0001 + 0xf200);
}

Test(csum, udp_over_ipv6_pseudo_header)
{
	struct udp6_case c = udp6(8, 0, 0);

	/* ::1 -> ::2, ports 1 -> 2, length 8 (twice: pseudo-header and UDP),
	 * next header 17: 1 + 2 + 8 + 17 + 1 + 2 + 8 = 0x27, ~0x27 = 0xffd8 */
	cr_assert_eq(ntohs(udp_check(c.src, c.dst, 16, c.udp, 8)), 0xffd8);
	memcpy(c.udp + 6, (uint8_t[]){ 0xff, 0xd8 }, 2);
	cr_assert_eq(udp_csum(c.src, c.dst, 16, c.udp, 8), 0, "a correct one sums to 0");
	c.dst[0] = 0xfd;
	cr_assert_neq(udp_csum(c.src, c.dst, 16, c.udp, 8), 0, "the addresses count");
}

Test(csum, a_zero_udp_checksum_is_sent_as_ffff)
{
	/* length 10: 1 + 2 + 10 + 17 + 1 + 2 + 10 = 0x2b; a payload word of
	 * 0xffd4 makes the sum 0xffff, whose complement is 0: "no checksum" */
	struct udp6_case c = udp6(10, 0xff, 0xd4);

	cr_assert_eq(udp_csum(c.src, c.dst, 16, c.udp, 10), 0);
	cr_assert_eq(udp_check(c.src, c.dst, 16, c.udp, 10), 0xffff);
	memcpy(c.udp + 6, (uint8_t[]){ 0xff, 0xff }, 2);
	cr_assert_eq(udp_csum(c.src, c.dst, 16, c.udp, 10), 0, "and 0xffff checks as correct");
}

/* fe80::/10: fe80:: to febf:ffff:...; the key takes the interface only then */
Test(fp_key, link_local_flows_are_scoped_by_their_interface)
{
	const char *ll[] = { "fe80::1", "febf:ffff::1" },
		   *other[] = { "fec0::1", "fe7f::1", "fd00::1", "::ffff:10.0.0.1" };
	struct fp_key k;

	for (size_t i = 0; i < 2; i++) {
		memset(&k, 0, sizeof(k));
		cr_assert_eq(inet_pton(AF_INET6, ll[i], k.daddr), 1);
		fp_key_scope(&k, 7);
		cr_assert_eq(k.scope, 7, "%s: link-local", ll[i]);
	}
	for (size_t i = 0; i < 4; i++) {
		memset(&k, 0, sizeof(k));
		cr_assert_eq(inet_pton(AF_INET6, other[i], k.daddr), 1);
		fp_key_scope(&k, 7);
		cr_assert_eq(k.scope, 0, "%s: not link-local", other[i]);
	}
}

/* fp_ack_plausible(): an ack of what the socket sent, across the wrap. */
Test(fp_ack, plausible_within_what_was_sent)
{
	const __u32 una = 0xfffffc00U, nxt = 0x400U;

	cr_assert(fp_ack_plausible(una, una, nxt), "acking nothing new");
	cr_assert(fp_ack_plausible(nxt, una, nxt), "acking all that was sent");
	cr_assert_not(fp_ack_plausible(nxt + 1, una, nxt), "acking unsent data");
	cr_assert_not(fp_ack_plausible(una - 1, una, nxt), "before snd_una");
	cr_assert_not(fp_ack_plausible(una + (1U << 30), una, nxt), "2^30 ahead");
	cr_assert_not(fp_ack_plausible(una + (1U << 31), una, nxt), "2^31 ahead");
}

/* fp_sent_end(): the egress's mark only where it is believable. */
Test(fp_ack, what_was_sent_by_the_cc_and_the_egress)
{
	cr_assert_eq(fp_sent_end(1000, 5000), 5000, "sent since the last ACK");
	cr_assert_eq(fp_sent_end(5000, 1000), 5000, "a retransmission's end is older");
	cr_assert_eq(fp_sent_end(0xfffff000U, 0x1000), 0x1000, "across the wrap");
	cr_assert_eq(fp_sent_end(0x90000000U, 0), 0x90000000U,
		     "no mark yet (0): not 2^31 of acks accepted");
	cr_assert_eq(fp_sent_end(1000, 1000 + (1U << 30)), 1000, "2^30 ahead: not believed");
}

/* fp_replay_check_n(): a batch takes all its numbers, or none. */
Test(fp_replay, a_batch_takes_its_numbers)
{
	struct fp_replay_win w = { 0 };

	cr_assert_eq(fp_replay_check_n(&w, 4, 4), FP_REPLAY_NEW, "1..4");
	cr_assert_eq(fp_replay_check_n(&w, 8, 4), FP_REPLAY_NEW, "5..8");
	cr_assert_eq(fp_replay_check_n(&w, 10, 4), FP_REPLAY_DUP, "7..10 claims 7 and 8 again");
	cr_assert_eq(w.last, 8, "a refused batch takes nothing");
	cr_assert_eq(fp_replay_check_n(&w, 9, 1), FP_REPLAY_NEW, "9 is still free");
	cr_assert_eq(fp_replay_check_n(&w, 8, 1), FP_REPLAY_DUP, "8 was the second batch's");
	cr_assert_eq(fp_replay_check_n(&w, 30, 16), FP_REPLAY_NEW, "15..30, a gap before it");
	cr_assert_eq(fp_replay_check_n(&w, 12, 2), FP_REPLAY_NEW, "11..12, late, in the window");
}

Test(fp_replay, a_batch_across_the_wrap)
{
	struct fp_replay_win w = { 0 };

	cr_assert_eq(fp_replay_check_n(&w, 0xfffffffeU, 2), FP_REPLAY_NEW);
	cr_assert_eq(fp_replay_check_n(&w, 2, 4), FP_REPLAY_NEW, "0xffffffff..2");
	cr_assert_eq(fp_replay_check_n(&w, 0xffffffffU, 1), FP_REPLAY_DUP);
}

Test(fp_credit, a_t_ahead_of_this_clock_is_refused)
{
	const __u64 now = 5000000000ULL;

	cr_assert_not(fp_t_in_future(now - 1000, now), "in the past");
	cr_assert_not(fp_t_in_future(now + FP_T_AHEAD_MAX_NS, now), "the pacer's lead");
	cr_assert(fp_t_in_future(now + FP_T_AHEAD_MAX_NS + 1, now));
	cr_assert(fp_t_in_future(fp_time_expand(now, (__u32)(now / 1000) + 2000000000U), now),
		  "33 minutes ahead on the wire");
}

/* A credit left in the ring of a flow idle past the stamps' wrap. */
Test(fp_ring, credits_before_a_long_gap_are_stale_and_dropped)
{
	static struct fp_ring r;
	__u32 then = 1000, now_us = then + 0x80000010U; /* 2^31 us and more later */

	memset(&r, 0, sizeof(r));
	fp_ring_mark(&r, 0);
	cr_assert(fp_ring_put(&r, then) && fp_ring_put(&r, then + 10));
	cr_assert_not(fp_ring_due(&r, now_us), "before: the old stamp reads as in the future");
	cr_assert_eq(fp_ring_take(&r, now_us, 8), 0, "and blocks the ring");
	fp_ring_mark(&r, FP_RING_STALE_NS + 1); /* the next credit, after the gap */
	cr_assert(fp_ring_put(&r, now_us + 5));
	cr_assert(fp_ring_is_stale(&r));
	cr_assert(fp_ring_due(&r, now_us), "a release wakes the CC to drop them");
	cr_assert(fp_ring_drop_one(&r) && fp_ring_drop_one(&r), "the two old ones go");
	cr_assert_not(fp_ring_drop_one(&r), "not the new one");
	cr_assert_not(fp_ring_is_stale(&r));
	cr_assert_eq(fp_ring_take(&r, now_us + 5, 8), 1, "which is taken at its time");
}

Test(fp_ring, the_mark_follows_the_tail_without_gaps)
{
	static struct fp_ring r;
	__u32 i;

	memset(&r, 0, sizeof(r));
	r.head = r.tail = r.stale = 0xfffffff0U; /* the counters wrap too */
	for (i = 0; i < 64; i++) {
		fp_ring_mark(&r, 1000);
		cr_assert(fp_ring_put(&r, 100 + i));
		cr_assert_not(fp_ring_is_stale(&r), "credit %u", i);
		cr_assert_eq(fp_ring_take(&r, 100 + i, 1), 1);
	}
}

/* fp_rx_admit(): a burst at once, then one an interval; idle time does
 * not save up more than a burst. */
Test(fp_rx, a_burst_then_the_rate)
{
	const __u64 I = 1000, now = 1000000;
	__u64 tat = 0, next, t;
	__u32 i, n = 0;

	for (i = 0; i < 4; i++) {
		next = fp_rx_admit(tat, now, I, 4);
		cr_assert_neq(next, 0, "packet %u of the burst", i);
		tat = next;
	}
	cr_assert_eq(fp_rx_admit(tat, now, I, 4), 0, "the fifth at once is refused");
	/* offered ten an interval for 100 intervals: the burst and 100 */
	for (t = now; t < now + 100 * I; t += I / 10) {
		next = fp_rx_admit(tat, t, I, 4);
		if (next) {
			tat = next;
			n++;
		}
	}
	cr_assert_eq(n, 100, "admitted %u after the burst", n);
	/* a long silence: the next burst is again 4, not more */
	t = now + 1000 * I;
	for (i = 0; i < 4; i++)
		cr_assert_neq(tat = fp_rx_admit(tat, t, I, 4), 0);
	cr_assert_eq(fp_rx_admit(tat, t, I, 4), 0);
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

/* fp_gcra_take(): as fp_rx_admit() a packet at a time; of two, the one
 * the burst still has room for. */
Test(fp_loop, gcra_takes_what_the_burst_allows)
{
	const __u64 I = 1000, now = 1000000;
	__u64 tat = 0;

	cr_assert_eq(fp_gcra_take(&tat, now, I, 5, 2), 2);
	cr_assert_eq(fp_gcra_take(&tat, now, I, 5, 2), 2, "two pairs at once");
	cr_assert_eq(fp_gcra_take(&tat, now, I, 5, 2), 1, "the fifth alone");
	cr_assert_eq(fp_gcra_take(&tat, now, I, 5, 2), 0, "then none");
	cr_assert_eq(tat, now + 5 * I);
	cr_assert_eq(fp_gcra_take(&tat, now + I, I, 5, 2), 1, "an interval on: one");
	cr_assert_eq(fp_gcra_take(&tat, now, I, 5, 0), 0, "none asked");
}
