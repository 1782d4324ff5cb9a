// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for bpf/lib/tcp_cc.h: the kernel's PRR, pacing rate and
 * restart-after-idle arithmetic that the DCTCP-based CCs do themselves
 * in cong_control().  Expected values are worked out by hand from
 * net/ipv4/tcp_input.c and tcp_output.c, not taken from running the code.
 */
#include <criterion/criterion.h>
#include <stdint.h>

#include "tcp_cc.h"

/* More in flight than ssthresh: send ssthresh/prior_cwnd of what was
 * delivered.  10 * 4 + 19 = 59, 59 / 20 = 2 segments, none sent yet. */
Test(tcp_cc_prr, proportional_above_ssthresh)
{
	cr_assert_eq(tcp_cc_prr_cwnd(10, 20, 20, 4, 0, 4, 0, 1), 22);
	/* 2 of those 2 already sent: nothing more */
	cr_assert_eq(tcp_cc_prr_cwnd(10, 18, 20, 4, 2, 2, 0, 1), 18);
}

/* Below ssthresh: as much as was delivered (prr_delivered - prr_out = 3
 * beats this ACK's 2), one more as snd_una moved without loss, capped by
 * ssthresh - in_flight = 4. */
Test(tcp_cc_prr, conservation_below_ssthresh)
{
	cr_assert_eq(tcp_cc_prr_cwnd(10, 6, 20, 8, 5, 2, 0, 1), 10);
	/* a loss on this ACK: no extra segment */
	cr_assert_eq(tcp_cc_prr_cwnd(10, 6, 20, 8, 5, 2, 1, 1), 9);
	/* the cap: only 1 below ssthresh */
	cr_assert_eq(tcp_cc_prr_cwnd(10, 9, 20, 8, 5, 2, 0, 1), 10);
}

/* The first ACK of a reduction always lets one segment out (the fast
 * retransmit), even at ssthresh. */
Test(tcp_cc_prr, fast_retransmit_forced)
{
	cr_assert_eq(tcp_cc_prr_cwnd(10, 10, 20, 1, 0, 1, 0, 0), 11);
	cr_assert_eq(tcp_cc_prr_cwnd(10, 10, 20, 1, 1, 1, 0, 0), 10);
}

/* Why the CCs check ssthresh before PRR runs: a corrupted return value
 * (the low half of a kernel text address, bit 31 set: ccs_ret_repair())
 * makes delta negative and the "proportional" window bad * 5 / 12
 * segments. */
Test(tcp_cc_prr, corrupted_ssthresh_explodes)
{
	__u32 bad = 0x81104110U;

	cr_assert_gt(bad, TCP_INFINITE_SSTHRESH);
	cr_assert_gt(tcp_cc_prr_cwnd(bad, 12, 12, 5, 0, 5, 0, 1), 900000000U);
}

/* What ccs_ret_repair() takes for a value the kernel did not get from the
 * CC: raw kernel addresses' low halves and what TCP derives from them
 * (halved at a restart after idle, three quarters as ssthresh), never a
 * window a real flow can reach. */
Test(tcp_cc_window, impossible_values)
{
	__u32 raw = 0xa0636d00U;

	cr_assert(tcp_cc_window_impossible(raw, 1448));
	cr_assert(tcp_cc_window_impossible(raw / 2, 1448)); /* 0x5031b680, seen in a run */
	cr_assert(tcp_cc_window_impossible(raw - raw / 4, 1448));
	cr_assert(tcp_cc_window_impossible(0x81104110U / 4, TCP_CC_MIN_SND_MSS));
	cr_assert(tcp_cc_window_impossible(0x81104110U / 4, 0)); /* no MSS yet */
}

Test(tcp_cc_window, real_values)
{
	/* four times the largest window a peer offers, in 1448-byte segments */
	__u32 most = (__u32)(4 * TCP_CC_MAX_WINDOW_BYTES / 1448);

	cr_assert_eq(most, 2966092U);
	cr_assert_not(tcp_cc_window_impossible(most, 1448));
	cr_assert(tcp_cc_window_impossible(most + 1, 1448));
	cr_assert_not(tcp_cc_window_impossible(TCP_INFINITE_SSTHRESH, 1448));
	cr_assert_not(tcp_cc_window_impossible(2, 1448));
	/* a jumbo-frame path's bound is lower, still above any window */
	cr_assert_not(tcp_cc_window_impossible(477211, 9000));
	cr_assert(tcp_cc_window_impossible(477212, 9000));
}

/* mss 1448, cwnd 10, srtt 1 ms (srtt_us = 8000): 14.48 MB/s, times 2 in
 * slow start, 1.2 after. */
Test(tcp_cc_pacing, ratios)
{
	cr_assert_eq(tcp_cc_pacing_rate(1448, 10, 0, TCP_INFINITE_SSTHRESH, 8000, 200, 120, ~0ULL),
		     28960000ULL);
	cr_assert_eq(tcp_cc_pacing_rate(1448, 10, 0, 10, 8000, 200, 120, ~0ULL), 17376000ULL);
	/* cwnd exactly half of ssthresh is congestion avoidance */
	cr_assert_eq(tcp_cc_pacing_rate(1448, 10, 0, 20, 8000, 200, 120, ~0ULL), 17376000ULL);
}

Test(tcp_cc_pacing, packets_out_max_rate_and_no_rtt)
{
	/* 20 packets out beat cwnd 10 */
	cr_assert_eq(tcp_cc_pacing_rate(1448, 10, 20, 10, 8000, 200, 120, ~0ULL), 34752000ULL);
	cr_assert_eq(tcp_cc_pacing_rate(1448, 10, 0, 10, 8000, 200, 120, 1000000ULL), 1000000ULL);
	/* no RTT sample yet: the numerator, as the kernel leaves it */
	cr_assert_eq(tcp_cc_pacing_rate(1448, 10, 0, 10, 0, 200, 120, ~0ULL),
		     1448ULL * 80000 * 120 * 10);
}

/* rto 200 jiffies, idle 601: halved three times (100, 50, 25, 12), not
 * below the initial window 10. */
Test(tcp_cc_restart, halves_per_rto)
{
	cr_assert_eq(tcp_cc_restart_cwnd(100, 10, 601, 200), 12);
	cr_assert_eq(tcp_cc_restart_cwnd(100, 10, 100000, 200), 10);
	/* a window below the initial one stays */
	cr_assert_eq(tcp_cc_restart_cwnd(6, 10, 100000, 200), 6);
}

Test(tcp_cc_restart, short_idle_keeps_window)
{
	cr_assert_eq(tcp_cc_restart_cwnd(100, 10, 200, 200), 100);
	cr_assert_eq(tcp_cc_restart_cwnd(100, 10, 399, 200), 50); /* past one RTO: once */
	cr_assert_eq(tcp_cc_restart_cwnd(100, 10, 5000, 0), 100); /* no RTO yet */
}
