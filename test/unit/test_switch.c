// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the test switch's virtual queue, tc/switch.h.
 *
 * Rates are bits/s, so a link of R bit/s sends R / 8e9 bytes per ns:
 *   100 Mbit/s -> 12.5 bytes/us, 1 Gbit/s -> 125 bytes/us (1500 B in 12 us),
 *   10 Gbit/s -> 1.25 bytes/ns.
 * The time integral "area" is in byte*us.  Expected values are worked out
 * by hand in the comments.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "switch.h"

#define MBIT 1000000ULL
#define GBIT 1000000000ULL
#define MS   1000000ULL
#define US   1000ULL
/* sw_advance() reads last_ns == 0 as "no packet yet": start the clock later. */
#define T0   (5 * NSEC_PER_SEC)

static struct sw_config config(__u64 rate, __u32 buffer, __u32 ecn_k)
{
	struct sw_config c;

	memset(&c, 0, sizeof(c));
	c.rate_bps = rate;
	c.buffer = buffer;
	c.ecn_k = ecn_k;
	return c;
}

/* A state whose clock is running at @now with @backlog bytes queued. */
static struct sw_state state_at(__u64 now, __u64 backlog)
{
	struct sw_state s;

	memset(&s, 0, sizeof(s));
	s.last_ns = now;
	s.backlog = backlog;
	return s;
}

/* ---- drain arithmetic ---- */

Test(sw_bytes_in, rates)
{
	/* 1 ms at 100 Mbit/s: 1e5 bits = 12500 bytes */
	cr_assert_eq(sw_bytes_in(MS, 100 * MBIT), 12500ULL);
	/* 12 us at 1 Gbit/s: one 1500-byte packet */
	cr_assert_eq(sw_bytes_in(12 * US, GBIT), 1500ULL);
	/* 1 ns at 1 Mbit/s: 1/8000 byte, truncated */
	cr_assert_eq(sw_bytes_in(1, MBIT), 0ULL);
	cr_assert_eq(sw_bytes_in(0, SW_RATE_MAX), 0ULL);
}

/* dt * rate would pass 2^64 (1.8e19) from 1.8 s at 10 Gbit/s on. */
Test(sw_bytes_in, no_overflow_at_max_rate)
{
	/* 1 s at 10 Gbit/s: 1.25e9 bytes */
	cr_assert_eq(sw_bytes_in(NSEC_PER_SEC, SW_RATE_MAX), 1250000000ULL);
	/* just under 1 s: (1e9 - 1) * 1.25 = 1249999998.75 */
	cr_assert_eq(sw_bytes_in(NSEC_PER_SEC - 1, SW_RATE_MAX), 1249999998ULL);
	/* 1.5 s: 1.25e9 + 0.625e9 */
	cr_assert_eq(sw_bytes_in(1500 * MS, SW_RATE_MAX), 1875000000ULL);
	/* 3.7 s: 3.75e9 + 0.875e9 (3.7e19 unsplit) */
	cr_assert_eq(sw_bytes_in(3700 * MS, SW_RATE_MAX), 4625000000ULL);
	/* 1000 s: 1.25e12 */
	cr_assert_eq(sw_bytes_in(1000 * NSEC_PER_SEC, SW_RATE_MAX), 1250000000000ULL);
}

Test(sw_ns_for, rates)
{
	cr_assert_eq(sw_ns_for(12500, 100 * MBIT), MS);
	cr_assert_eq(sw_ns_for(1500, GBIT), 12 * US);
	/* a full 64 MiB buffer at 1 Mbit/s: 2^26 * 8 us = 536.870912 s */
	cr_assert_eq(sw_ns_for(SW_BUFFER_MAX, SW_RATE_MIN), 536870912000ULL);
	cr_assert_eq(sw_ns_for(1, SW_RATE_MAX), 0ULL, "0.8 ns truncated");
	cr_assert_eq(sw_ns_for(1500, 0), 0ULL, "rate 0 must not divide");
}

/* ---- sw_advance: draining and the time integral ---- */

Test(sw_advance, first_packet_starts_the_clock)
{
	struct sw_state s;

	memset(&s, 0, sizeof(s));
	s.backlog = 5000;
	sw_advance(&s, T0, GBIT);
	cr_assert_eq(s.last_ns, T0);
	cr_assert_eq(s.backlog, 5000ULL, "nothing to drain before the first packet");
	cr_assert_eq(s.busy_ns, 0ULL);
	cr_assert_eq(s.area, 0ULL);
}

Test(sw_advance, clock_going_back_is_ignored)
{
	struct sw_state s = state_at(T0, 5000);

	sw_advance(&s, T0 - US, GBIT);
	sw_advance(&s, T0, GBIT);
	cr_assert_eq(s.last_ns, T0);
	cr_assert_eq(s.backlog, 5000ULL);
	cr_assert_eq(s.busy_ns, 0ULL);
	cr_assert_eq(s.area, 0ULL);
}

Test(sw_advance, empty_queue_counts_time_only)
{
	struct sw_state s = state_at(T0, 0);

	sw_advance(&s, T0 + 3 * MS, GBIT);
	cr_assert_eq(s.backlog, 0ULL);
	cr_assert_eq(s.busy_ns, 3 * MS);
	cr_assert_eq(s.area, 0ULL);
	cr_assert_eq(s.last_ns, T0 + 3 * MS);
}

/* 12500 bytes at 100 Mbit/s empty in 1 ms = 1000 us; 2 ms pass.  The area
 * is the triangle 12500 * 1000 / 2, not 12500 * 2000 / 2. */
Test(sw_advance, drains_to_empty_triangle)
{
	struct sw_state s = state_at(T0, 12500);

	sw_advance(&s, T0 + 2 * MS, 100 * MBIT);
	cr_assert_eq(s.backlog, 0ULL);
	cr_assert_eq(s.area, 6250000ULL, "area %llu, want the triangle 6250000",
		     (unsigned long long)s.area);
	cr_assert_eq(s.busy_ns, 2 * MS, "busy time is the whole interval");
	cr_assert_eq(s.last_ns, T0 + 2 * MS);
}

/* Exactly the time to empty: still the triangle. */
Test(sw_advance, drains_to_empty_exactly)
{
	struct sw_state s = state_at(T0, 1500);

	sw_advance(&s, T0 + 12 * US, GBIT);
	cr_assert_eq(s.backlog, 0ULL);
	cr_assert_eq(s.area, 9000ULL, "1500 * 12 / 2");
}

/* 400 us at 100 Mbit/s send 5000 of 12500 bytes: trapezoid (12500 + 7500) / 2
 * * 400 us.  Then 600 us empty the rest: triangle 7500 * 600 / 2.  The two
 * add up to the single-step triangle above. */
Test(sw_advance, partial_drain_trapezoid)
{
	struct sw_state s = state_at(T0, 12500);

	sw_advance(&s, T0 + 400 * US, 100 * MBIT);
	cr_assert_eq(s.backlog, 7500ULL);
	cr_assert_eq(s.area, 4000000ULL, "area %llu, want trapezoid 4000000",
		     (unsigned long long)s.area);
	cr_assert_eq(s.busy_ns, 400 * US);

	sw_advance(&s, T0 + 1000 * US, 100 * MBIT);
	cr_assert_eq(s.backlog, 0ULL);
	cr_assert_eq(s.area, 4000000ULL + 2250000ULL);
	cr_assert_eq(s.busy_ns, 1000 * US);
}

/*
 * Sub-microsecond steps.  At 10 Gbit/s, 800 ns send exactly 1000 bytes, so
 * 50 steps take 100000 bytes to 50000 over 40 us: the area is the trapezoid
 * (100000 + 50000) / 2 * 40 = 3000000 byte*us, as one 40 us step gives.
 * sw_advance() truncates each step's duration to whole microseconds before
 * multiplying, so steps under 1 us (packets 1.2 us apart at 10 Gbit/s lose a
 * sixth) add nothing, and loader/cmd_switch.c's average backlog (area / busy_ns)
 * comes out low.  Allow 1% for per-step rounding.
 */
Test(sw_advance, area_independent_of_step_size)
{
	struct sw_state one = state_at(T0, 100000), many = state_at(T0, 100000);

	sw_advance(&one, T0 + 40 * US, SW_RATE_MAX);
	cr_assert_eq(one.backlog, 50000ULL);
	cr_assert_eq(one.area, 3000000ULL);

	for (int i = 1; i <= 50; i++)
		sw_advance(&many, T0 + (__u64)i * 800, SW_RATE_MAX);
	cr_assert_eq(many.backlog, 50000ULL, "800 ns at 10 Gbit/s is 1000 bytes exactly");
	cr_assert(many.area >= 2970000 && many.area <= 3030000,
		  "area %llu byte*us in 800 ns steps, want 3000000 +- 1%%",
		  (unsigned long long)many.area);
}

/*
 * The queue drains at the link rate whatever the packet spacing.  At
 * 1 Gbit/s 15000 bytes take 120 us; in 100 ns steps (12.5 bytes each) the
 * per-step truncation to 12 bytes leaves 600 bytes (4%) behind, so frequent
 * packets see a virtual queue slower than the link.  Allow 1/1000.
 */
Test(sw_advance, drain_independent_of_step_size)
{
	struct sw_state s = state_at(T0, 15000);

	for (int i = 1; i <= 1200; i++)
		sw_advance(&s, T0 + (__u64)i * 100, GBIT);
	cr_assert(s.backlog <= 15, "%llu bytes left after the 120 us 15000 bytes take",
		  (unsigned long long)s.backlog);
}

/* ---- sw_decide ---- */

Test(sw_decide, ecn_threshold)
{
	struct sw_config c = config(GBIT, 100000, 30000);

	cr_assert_eq(sw_decide(&c, 0, 1500, 0, 1), SW_PASS);
	cr_assert_eq(sw_decide(&c, 30000, 1500, 0, 1), SW_PASS, "at K is not above K");
	cr_assert_eq(sw_decide(&c, 30001, 1500, 0, 1), SW_MARK);
	cr_assert_eq(sw_decide(&c, 90000, 1500, 0, 1), SW_MARK);
	/* Not-ECT above K passes: only a drop can signal it. */
	cr_assert_eq(sw_decide(&c, 30001, 1500, 0, 0), SW_PASS);
	cr_assert_eq(sw_decide(&c, 90000, 1500, 0, 0), SW_PASS);
}

Test(sw_decide, no_marking_when_k_is_zero)
{
	struct sw_config c = config(GBIT, 100000, 0);

	cr_assert_eq(sw_decide(&c, 90000, 1500, 0, 1), SW_PASS);
	cr_assert_eq(sw_decide(&c, 99000, 1500, 0, 1), SW_DROP);
}

Test(sw_decide, buffer_overflow_drops)
{
	struct sw_config c = config(GBIT, 100000, 30000);

	/* 98500 + 1500 = 100000 fits exactly (and is marked, being above K) */
	cr_assert_eq(sw_decide(&c, 98500, 1500, 0, 1), SW_MARK);
	cr_assert_eq(sw_decide(&c, 98500, 1500, 0, 0), SW_PASS);
	/* 98501 + 1500 does not: a drop beats a mark */
	cr_assert_eq(sw_decide(&c, 98501, 1500, 0, 1), SW_DROP);
	cr_assert_eq(sw_decide(&c, 98501, 1500, 0, 0), SW_DROP);
	/* even on an empty queue a packet larger than the buffer */
	cr_assert_eq(sw_decide(&c, 0, 100001, 0, 1), SW_DROP);
	/* a large backlog does not wrap the sum */
	cr_assert_eq(sw_decide(&c, UINT32_MAX, UINT32_MAX, 0, 0), SW_DROP);
}

Test(sw_decide, class_limit_drops_earlier)
{
	struct sw_config c = config(GBIT, 100000, 30000);

	c.class_limit[2] = 20000;
	/* 19000 + 1500 > 20000: class 2 drops, class 0 (the buffer) passes */
	cr_assert_eq(sw_decide(&c, 19000, 1500, 2, 0), SW_DROP);
	cr_assert_eq(sw_decide(&c, 19000, 1500, 0, 0), SW_PASS);
	cr_assert_eq(sw_decide(&c, 18500, 1500, 2, 0), SW_PASS, "18500 + 1500 fits");
	/* classes with limit 0 use the buffer */
	cr_assert_eq(sw_decide(&c, 19000, 1500, 1, 0), SW_PASS);
	cr_assert_eq(sw_decide(&c, 19000, 1500, 3, 0), SW_PASS);
}

Test(sw_decide, class_limit_zero_or_above_buffer_is_buffer)
{
	struct sw_config c = config(GBIT, 100000, 0);

	c.class_limit[1] = 0;
	c.class_limit[2] = 200000;
	c.class_limit[3] = UINT32_MAX;
	for (__u32 cls = 1; cls <= 3; cls++) {
		cr_assert_eq(sw_decide(&c, 98500, 1500, cls, 0), SW_PASS, "class %u", cls);
		cr_assert_eq(sw_decide(&c, 99000, 1500, cls, 0), SW_DROP,
			     "class %u: limit above the buffer must not raise it", cls);
	}
	c.class_limit[1] = 100000; /* equal to the buffer: the same */
	cr_assert_eq(sw_decide(&c, 98500, 1500, 1, 0), SW_PASS);
	cr_assert_eq(sw_decide(&c, 99000, 1500, 1, 0), SW_DROP);
}

Test(sw_decide, class_out_of_range_is_class_0)
{
	struct sw_config c = config(GBIT, 100000, 0);
	static const __u32 bad[] = { SW_CLASSES, SW_CLASSES + 1, 63, 255, UINT32_MAX };

	/* class 0 gets a distinctive limit; class 1 keeps the buffer */
	c.class_limit[0] = 50000;
	cr_assert_eq(sw_decide(&c, 49000, 1500, 0, 0), SW_DROP);
	cr_assert_eq(sw_decide(&c, 49000, 1500, 1, 0), SW_PASS);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(sw_decide(&c, 49000, 1500, bad[i], 0), SW_DROP,
			     "class %u should use class 0's limit", bad[i]);
		cr_assert_eq(sw_decide(&c, 48500, 1500, bad[i], 0), SW_PASS, "class %u", bad[i]);
	}
}

/* ---- sw_packet: decisions plus accounting ---- */

Test(sw_packet, not_ect_over_k_counted)
{
	struct sw_config c = config(GBIT, 100000, 30000);
	struct sw_state s = state_at(T0, 40000);

	/* Same instant, so no draining: 40000 > K for both packets. */
	cr_assert_eq(sw_packet(&s, &c, T0, 0, 1000, 1, 0), SW_PASS);
	cr_assert_eq(sw_packet(&s, &c, T0, 0, 1000, 1, 1), SW_MARK);
	cr_assert_eq(s.cls[1].not_ect_over_k, 1ULL);
	cr_assert_eq(s.cls[1].marked, 1ULL);
	cr_assert_eq(s.cls[1].pkts, 2ULL);
	cr_assert_eq(s.cls[1].bytes, 2000ULL);
	cr_assert_eq(s.backlog, 42000ULL);

	/* Below K a Not-ECT packet is just a packet. */
	struct sw_state low = state_at(T0, 1000);

	cr_assert_eq(sw_packet(&low, &c, T0, 0, 1000, 1, 0), SW_PASS);
	cr_assert_eq(low.cls[1].not_ect_over_k, 0ULL);
	cr_assert_eq(low.cls[1].marked, 0ULL);
}

Test(sw_packet, bad_class_accounted_as_class_0)
{
	struct sw_config c = config(GBIT, 100000, 0);
	struct sw_state s = state_at(T0, 0);

	cr_assert_eq(sw_packet(&s, &c, T0, 0, 700, 200, 0), SW_PASS);
	cr_assert_eq(s.cls[0].pkts, 1ULL);
	cr_assert_eq(s.cls[0].bytes, 700ULL);
	for (int i = 1; i < SW_CLASSES; i++)
		cr_assert_eq(s.cls[i].pkts, 0ULL, "class %d touched", i);
}

/*
 * 100 packets of 1500 bytes at one instant into a 100000-byte buffer with
 * K = 30000: a packet passes while backlog + 1500 <= 100000, i.e. the first
 * floor(100000 / 1500) = 66 (backlog 99000); the other 34 drop.  Packet i
 * (1-based) sees backlog (i - 1) * 1500, above K from i = 22: packets 1..21
 * pass unmarked, 22..66 (45) are marked.
 */
Test(sw_packet, burst_fills_buffer_then_drops)
{
	struct sw_config c = config(GBIT, 100000, 30000);
	struct sw_state s;
	int pass = 0, mark = 0, drop = 0;

	memset(&s, 0, sizeof(s));
	for (int i = 1; i <= 100; i++) {
		enum sw_verdict v = sw_packet(&s, &c, T0, 0, 1500, 0, 1);

		pass += v == SW_PASS;
		mark += v == SW_MARK;
		drop += v == SW_DROP;
		if (i <= 66)
			cr_assert_eq(s.backlog, (__u64)i * 1500, "backlog after packet %d", i);
	}
	cr_assert_eq(pass, 21);
	cr_assert_eq(mark, 45);
	cr_assert_eq(drop, 34);
	cr_assert_eq(s.backlog, 99000ULL);
	cr_assert_eq(s.max_backlog, 99000ULL);
	cr_assert_eq(s.cls[0].pkts, 66ULL);
	cr_assert_eq(s.cls[0].bytes, 99000ULL);
	cr_assert_eq(s.cls[0].marked, 45ULL);
	cr_assert_eq(s.cls[0].dropped, 34ULL);
	cr_assert_eq(s.cls[0].dropped_bytes, 34ULL * 1500);
	cr_assert_eq(s.cls[0].not_ect_over_k, 0ULL);
	cr_assert_eq(s.busy_ns, 0ULL, "no time passed");
}

/* A class limited to 20000 in the same burst keeps floor(20000/1500) = 13. */
Test(sw_packet, burst_in_limited_class)
{
	struct sw_config c = config(GBIT, 100000, 0);
	struct sw_state s;
	int drop = 0;

	c.class_limit[3] = 20000;
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 100; i++)
		drop += sw_packet(&s, &c, T0, 0, 1500, 3, 0) == SW_DROP;
	cr_assert_eq(drop, 87);
	cr_assert_eq(s.backlog, 13ULL * 1500);
	cr_assert_eq(s.cls[3].pkts, 13ULL);
	cr_assert_eq(s.cls[3].dropped, 87ULL);
}

/*
 * 1500-byte packets every 12 us at 1 Gbit/s: each finds the previous one
 * just sent, so the backlog never exceeds one packet.  Each gap adds the
 * triangle 1500 * 12 / 2 = 9000 byte*us.
 */
Test(sw_packet, link_rate_arrivals_stay_bounded)
{
	struct sw_config c = config(GBIT, 100000, 3000);
	struct sw_state s;
	const int n = 10000;

	memset(&s, 0, sizeof(s));
	for (int i = 0; i < n; i++) {
		enum sw_verdict v = sw_packet(&s, &c, T0 + (__u64)i * 12 * US, 0, 1500, 0, 1);

		cr_assert_eq(v, SW_PASS, "packet %d: verdict %d", i, v);
		cr_assert_eq(s.backlog, 1500ULL, "packet %d: backlog %llu", i,
			     (unsigned long long)s.backlog);
	}
	cr_assert_eq(s.max_backlog, 1500ULL);
	cr_assert_eq(s.cls[0].pkts, (__u64)n);
	cr_assert_eq(s.cls[0].dropped, 0ULL);
	cr_assert_eq(s.cls[0].marked, 0ULL);
	cr_assert_eq(s.busy_ns, (__u64)(n - 1) * 12 * US);
	cr_assert_eq(s.area, (__u64)(n - 1) * 9000);
}

/* Twice the link rate (a packet every 6 us): half of each packet drains
 * before the next, so the queue grows by 750 bytes a packet. */
Test(sw_packet, double_rate_arrivals_grow_queue)
{
	struct sw_config c = config(GBIT, 1000000, 0);
	struct sw_state s;

	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 100; i++)
		sw_packet(&s, &c, T0 + (__u64)i * 6 * US, 0, 1500, 0, 0);
	/* 1500 + 99 * 750 */
	cr_assert_eq(s.backlog, 75750ULL);
	cr_assert_eq(s.max_backlog, 75750ULL);
}

Test(sw_packet, max_backlog_is_the_maximum)
{
	struct sw_config c = config(GBIT, 100000, 0);
	struct sw_state s;
	__u64 t = T0;

	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 10; i++) /* burst of 10: 15000 */
		sw_packet(&s, &c, t, 0, 1500, 0, 0);
	cr_assert_eq(s.max_backlog, 15000ULL);

	t += 120 * US;		    /* exactly drains 15000 */
	for (int i = 0; i < 5; i++) /* smaller burst: 7500 */
		sw_packet(&s, &c, t, 0, 1500, 0, 0);
	cr_assert_eq(s.backlog, 7500ULL);
	cr_assert_eq(s.max_backlog, 15000ULL, "a lower peak must not lower the max");

	t += 30 * US;		     /* drains 3750: 3750 left */
	for (int i = 0; i < 20; i++) /* 3750 + 30000 */
		sw_packet(&s, &c, t, 0, 1500, 0, 0);
	cr_assert_eq(s.backlog, 33750ULL);
	cr_assert_eq(s.max_backlog, 33750ULL);

	/* Dropped packets never count towards the maximum. */
	for (int i = 0; i < 100; i++)
		sw_packet(&s, &c, t, 0, 1500, 0, 0);
	cr_assert_eq(s.max_backlog, 33750ULL + 44 * 1500ULL,
		     "floor((100000 - 33750) / 1500) = 44 more fit");
	cr_assert(s.max_backlog <= c.buffer);
}

/* ---- SW_QUEUE_QDISC: the real queue is judged ---- */

/* The qdisc's backlog decides, whatever the rate says: a queue that did
 * not drain (tbf behind its rate) still drops, one that drained faster
 * (tbf burst) does not. */
Test(sw_queue_qdisc, judges_the_observed_backlog)
{
	struct sw_config c = config(GBIT, 100000, 30000);
	struct sw_state s;

	c.queue = SW_QUEUE_QDISC;
	memset(&s, 0, sizeof(s));
	cr_assert_eq(sw_packet(&s, &c, T0, 99000, 1500, 0, 1), SW_DROP,
		     "99000 + 1500 is over the buffer");
	/* 1 s later a virtual queue would be empty; the real one is not. */
	cr_assert_eq(sw_packet(&s, &c, T0 + 1000000 * US, 99000, 1500, 0, 1), SW_DROP);
	cr_assert_eq(sw_packet(&s, &c, T0 + 1000001 * US, 31000, 1500, 0, 1), SW_MARK);
	cr_assert_eq(sw_packet(&s, &c, T0 + 1000002 * US, 29000, 1500, 0, 1), SW_PASS);
	cr_assert_eq(s.backlog, 29000ULL + 1500, "what the packet adds counts until the next one");
	/* Back-to-back packets the qdisc has not seen yet still see their
	 * predecessors only through the qdisc: no double counting. */
	cr_assert_eq(sw_packet(&s, &c, T0 + 1000002 * US, 0, 1500, 0, 1), SW_PASS);
	cr_assert_eq(s.backlog, 1500ULL);
	cr_assert_eq(s.cls[0].dropped, 2ULL);
	cr_assert_eq(s.cls[0].marked, 1ULL);
	cr_assert_eq(s.cls[0].pkts, 3ULL);
}

/* The time integral runs linearly from the backlog left after the last
 * packet to the one observed at this packet. */
Test(sw_queue_qdisc, time_average_and_max)
{
	struct sw_config c = config(GBIT, 100000, 0);
	struct sw_state s;

	c.queue = SW_QUEUE_QDISC;
	memset(&s, 0, sizeof(s));
	sw_packet(&s, &c, T0, 8500, 1500, 0, 0); /* first packet: clock starts */
	cr_assert_eq(s.busy_ns, 0ULL);
	cr_assert_eq(s.max_backlog, 10000ULL);
	sw_packet(&s, &c, T0 + 1000 * US, 0, 1500, 0, 0); /* 10000 -> 0 over 1 ms */
	cr_assert_eq(s.busy_ns, 1000 * US);
	cr_assert_eq(s.area, 5000ULL * 1000, "mean 5000 bytes for 1000 us");
	cr_assert_eq(s.max_backlog, 10000ULL);
	/* A clock that steps back changes nothing but the backlog. */
	sw_packet(&s, &c, T0, 4000, 1500, 0, 0);
	cr_assert_eq(s.busy_ns, 1000 * US);
	cr_assert_eq(s.backlog, 5500ULL);
}

/* stats --reset starts the counters again and keeps the queue: its bytes,
 * its clock and the drain remainder the program carries between packets. */
Test(sw_reset_counters, counters_go_the_queue_stays)
{
	struct sw_state s;

	memset(&s, 0, sizeof(s));
	s.backlog = 30000;
	s.last_ns = 123456789;
	s.drain_rem = 777;
	s.max_backlog = 90000;
	s.busy_ns = 5;
	s.area = 6;
	s.area_rem = 7;
	s.malformed = 8;
	s.cls[1].pkts = 9;
	s.cls[3].dropped = 10;
	sw_reset_counters(&s, 4);
	cr_assert_eq(s.backlog, 30000);
	cr_assert_eq(s.last_ns, 123456789, "the clock is not put back");
	cr_assert_eq(s.drain_rem, 777);
	cr_assert_eq(s.max_backlog, 30000, "the maximum starts at the queue as it is");
	cr_assert_eq(s.busy_ns + s.area + s.area_rem + s.malformed, 0);
	cr_assert_eq(s.cls[1].pkts + s.cls[3].dropped, 0);
	cr_assert_eq(s.reset_gen, 4);
}

/* FlashPass's emulation queue at 100 Mbit/s: 8 packets, Not-ECT above 2. */
static struct sw_config emu_config(void)
{
	struct sw_config c = config(100000000, 100000, 0);

	c.emu_port = 7190;
	c.emu_rate_bps = 100000000ULL / 1622 * 84;
	c.emu_buffer = 8 * SW_EMU_FRAME;
	c.emu_over = 2 * SW_EMU_FRAME;
	return c;
}

Test(sw_emu_packet, ect_fills_eight_not_ect_stops_at_two)
{
	struct sw_config c = emu_config();
	struct sw_state s = state_at(1000, 0);
	int i;

	/* a burst at one instant: nothing drains between the packets */
	for (i = 0; i < 2; i++)
		cr_assert_eq(sw_emu_packet(&s, &c, 1000, 0, 0), SW_PASS, "Not-ECT %d of 2", i + 1);
	cr_assert_eq(sw_emu_packet(&s, &c, 1000, 0, 0), SW_DROP, "the third Not-ECT is dropped");
	for (i = 2; i < 8; i++)
		cr_assert_eq(sw_emu_packet(&s, &c, 1000, 1, 0), SW_PASS, "ECT %d of 8", i + 1);
	cr_assert_eq(sw_emu_packet(&s, &c, 1000, 1, 0), SW_DROP, "the ninth packet finds it full");
	cr_assert_eq(s.backlog, 8 * SW_EMU_FRAME);
	cr_assert_eq(s.cls[0].pkts, 2);
	cr_assert_eq(s.cls[0].dropped, 1);
	cr_assert_eq(s.cls[1].pkts, 6);
	cr_assert_eq(s.cls[1].dropped, 1);
	cr_assert_eq(s.cls[1].marked + s.cls[0].marked, 0, "never marks");
}

Test(sw_emu_packet, no_selective_dropping_admits_not_ect_to_eight)
{
	struct sw_config c = emu_config();
	struct sw_state s = state_at(1000, 0);
	int i;

	c.emu_over = c.emu_buffer; /* --emu-over 8 */
	for (i = 0; i < 8; i++)
		cr_assert_eq(sw_emu_packet(&s, &c, 1000, 0, 0), SW_PASS, "Not-ECT %d of 8", i + 1);
	cr_assert_eq(sw_emu_packet(&s, &c, 1000, 1, 0), SW_DROP,
		     "an ECT one finds the queue full of them");
	cr_assert_eq(s.cls[0].pkts, 8);
	cr_assert_eq(s.cls[1].dropped, 1);
}

Test(sw_emu_packet, drains_at_the_emulation_rate)
{
	struct sw_config c = emu_config();
	struct sw_state s = state_at(1000, 8 * SW_EMU_FRAME);
	/* 5.18 Mbit/s sends one 84-byte frame in 84 * 8 / 5178792 s = 129.8 us */
	__u64 t_one = sw_ns_for(SW_EMU_FRAME, c.emu_rate_bps);

	cr_assert(t_one > 129000 && t_one < 130500, "%llu ns per frame", (unsigned long long)t_one);
	cr_assert_eq(sw_emu_packet(&s, &c, 1000 + t_one / 2, 1, 0), SW_DROP,
		     "half a frame out: full");
	cr_assert_eq(sw_emu_packet(&s, &c, 1000 + t_one + 10, 1, 0), SW_PASS,
		     "one frame out: room");
	cr_assert_eq(sw_emu_packet(&s, &c, 1000 + 100 * t_one, 0, 0), SW_PASS,
		     "drained: Not-ECT too");
}

/* The emulation's rate yielding to class 0 (emu_keep_pct) after
 * @windows windows of class 0 at @other_bps. */
static __u64 emu_rate_after(const struct sw_config *c, __u64 other_bps, int windows)
{
	struct sw_state e = { 0 };
	__u64 t = 1000, bytes = 0, r = 0;
	int i;

	for (i = 0; i <= windows; i++) {
		r = sw_emu_rate(&e, c, bytes, t);
		t += SW_YIELD_WINDOW_NS;
		bytes += other_bps / 8 * SW_YIELD_WINDOW_NS / 1000000000ULL;
	}
	return r;
}

Test(sw_emu_rate, never_yields_without_emu_keep_pct)
{
	struct sw_config c = emu_config();

	cr_assert_eq(emu_rate_after(&c, 60000000, 40), c.emu_rate_bps);
	c.emu_keep_pct = 100;
	cr_assert_eq(emu_rate_after(&c, 60000000, 40), c.emu_rate_bps, "100 %: keeps it all");
}

Test(sw_emu_rate, gives_up_class_0s_share_down_to_what_it_keeps)
{
	struct sw_config c = emu_config();
	__u64 r;

	c.emu_keep_pct = 50;
	cr_assert_eq(emu_rate_after(&c, 0, 40), c.emu_rate_bps, "no class 0: all of it");
	/* class 0 at 30 % of the link: 70 % of the rate, once the average
	 * has settled (gain 1/4 a window: 40 windows leave 1e-5 of the step) */
	r = emu_rate_after(&c, 30000000, 40);
	cr_assert(r > c.emu_rate_bps * 699 / 1000 && r < c.emu_rate_bps * 701 / 1000,
		  "%llu of %llu", (unsigned long long)r, (unsigned long long)c.emu_rate_bps);
	/* class 0 at 80 %: held at 50 % */
	cr_assert_eq(emu_rate_after(&c, 80000000, 40), c.emu_rate_bps / 2);
	/* above the link (a burst counted before tbf): held too */
	cr_assert_eq(emu_rate_after(&c, 150000000, 40), c.emu_rate_bps / 2);
}

Test(sw_emu_rate, moves_a_quarter_of_the_way_a_window_and_not_within_one)
{
	struct sw_config c = emu_config();
	struct sw_state e = { 0 };
	__u64 w = 100000000ULL / 8 * SW_YIELD_WINDOW_NS /
		  1000000000ULL; /* a window at the link rate */

	c.emu_keep_pct = 10;
	cr_assert_eq(sw_emu_rate(&e, &c, 0, 1000), c.emu_rate_bps,
		     "the first packet starts a window");
	cr_assert_eq(sw_emu_rate(&e, &c, w, 1000 + SW_YIELD_WINDOW_NS - 1), c.emu_rate_bps,
		     "within the window: nothing measured yet");
	sw_emu_rate(&e, &c, w, 1000 + SW_YIELD_WINDOW_NS);
	cr_assert_eq(e.other_bps, 100000000ULL / 4, "a window at the link rate: a quarter of it");
	/* a window of two: the average moves a quarter of the way again */
	sw_emu_rate(&e, &c, 3 * w, 1000 + 2 * SW_YIELD_WINDOW_NS);
	cr_assert_eq(e.other_bps, 100000000ULL / 4 + (200000000ULL - 100000000ULL / 4) / 4);
	/* a minute with no emulation packet and a second of class 0 at the
	 * link rate: the window's rate replaces the average */
	sw_emu_rate(&e, &c, 3 * w + 100000000ULL / 8,
		    1000 + 2 * SW_YIELD_WINDOW_NS + 60000000000ULL);
	cr_assert(e.other_bps >= 1665000 && e.other_bps <= 1667000, "%llu (1e8 / 60)",
		  (unsigned long long)e.other_bps);
}

/* A count behind the window's (read on another CPU before the one that
 * closed the window) starts a window: no wrap to 2^64 bytes. */
Test(sw_emu_rate, a_count_behind_the_window_starts_one)
{
	struct sw_config c = emu_config();
	struct sw_state e = { 0 };

	c.emu_keep_pct = 50;
	sw_emu_rate(&e, &c, 1000000, 1000);
	cr_assert_eq(sw_emu_rate(&e, &c, 999000, 1000 + SW_YIELD_WINDOW_NS), c.emu_rate_bps);
	cr_assert_eq(e.other_bps, 0);
	cr_assert_eq(e.win_bytes, 999000);
}

/* At 10 Gbit/s, a second-long window at the link rate: no overflow. */
Test(sw_emu_rate, holds_at_10_gbit)
{
	struct sw_config c = emu_config();
	struct sw_state e = { 0 };

	c.rate_bps = 10000000000ULL;
	c.emu_rate_bps = c.rate_bps / 1622 * 84;
	c.emu_keep_pct = 10;
	sw_emu_rate(&e, &c, 0, 1000);
	cr_assert_eq(sw_emu_rate(&e, &c, c.rate_bps / 8, 1000 + 1000000000ULL),
		     c.emu_rate_bps / 10);
	cr_assert_eq(e.other_bps, c.rate_bps);
}

/* The queue drains at the yielded rate: class 0 at half the link, a frame
 * takes twice as long to leave. */
Test(sw_emu_packet, drains_at_the_yielded_rate)
{
	struct sw_config c = emu_config();
	struct sw_state s = state_at(1000, 0);
	__u64 t_one = sw_ns_for(SW_EMU_FRAME, c.emu_rate_bps), t = 1000, o = 0;
	int i;

	c.emu_keep_pct = 10;
	/* windows of class 0 at half the link until the average has settled */
	for (i = 0; i < 40; i++) {
		t += SW_YIELD_WINDOW_NS;
		o += 50000000ULL / 8 * SW_YIELD_WINDOW_NS / 1000000000ULL;
		sw_emu_rate(&s, &c, o, t);
	}
	s.backlog = 8 * SW_EMU_FRAME;
	s.last_ns = t;
	cr_assert_eq(sw_emu_packet(&s, &c, t + t_one + 10, 1, o), SW_DROP,
		     "one frame's time at the full rate: half a frame out");
	cr_assert_eq(sw_emu_packet(&s, &c, t + 2 * t_one + 200, 1, o), SW_PASS,
		     "twice that: one out");
}
