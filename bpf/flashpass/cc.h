/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_flashpass's window and pacing (bpf/flashpass.h), the CC's part: the
 * window under credits, the bank of unspent ones, a drought of credits,
 * the pacing rate from credits' gaps and how far ahead of a credit its
 * segment may leave.
 */
#ifndef CCSUITE_FLASHPASS_CC_H
#define CCSUITE_FLASHPASS_CC_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "kdefs.h"

/*
 * The window under credits: what is in flight plus the usable credits not
 * yet spent, at most @burst of them at once; at least @floor.  The burst
 * bound is what keeps segments apart: TCP's own pacing sends 1 ms of data
 * as one GSO packet (the pacing shift, which a CC cannot change), split on
 * the wire into frames back to back, several times a shallow buffer's
 * share; a window that opens by @burst per ACK sends at most that many
 * together.  A floor of 1 lets a flow with nothing in flight and no
 * credit probe (one unscheduled segment an RTT: a flow never stalls); 0
 * holds it to its credits, for a flow the pacer wakes (fp_credit_drought()).
 */
static inline __u32 fp_credit_cwnd(__u32 in_flight, __u64 spare, __u32 burst, __u32 floor)
{
	__u64 w = (__u64)in_flight + (spare < burst ? spare : burst);

	if (w < floor)
		w = floor;
	return w > 0x7fffffffULL ? 0x7fffffffU : (__u32)w;
}

/*
 * How many usable credits a flow may hold unspent (its bank): those that
 * became usable in the last @bank_us at its credit rate (@rate_Bps in
 * segments of @bytes; 0: not known yet), FP_BANK_MIN at least and
 * @bank_max at most (@bank_us 0, or over a second: @bank_max alone).
 * A bank in count lets n flows hold n times as much; banks in time hold,
 * over all the flows, the credits of bank_us at their total rate, the
 * link's, whatever the number of flows (above the floor): with bank_us
 * under the bottleneck buffer's drain time (2.4 ms for 30 KB at 100
 * Mbit/s), the banks spent all at once fit in the buffer.
 */
#define FP_BANK_MIN 4U

static inline __u32 fp_bank_limit(__u64 rate_Bps, __u32 bytes, __u32 bank_us, __u32 bank_max)
{
	__u64 n;

	if (!bank_us)
		return bank_max;
	if (!rate_Bps || !bytes)
		return FP_BANK_MIN < bank_max ? FP_BANK_MIN : bank_max;
	n = rate_Bps / bytes; /* credits/s */
	if (bank_us > USEC_PER_SEC || n > ~0ULL / USEC_PER_SEC)
		return bank_max;
	n = n * bank_us / USEC_PER_SEC;
	if (n < FP_BANK_MIN)
		n = FP_BANK_MIN;
	return n < bank_max ? (__u32)n : bank_max;
}

/*
 * Tunable release: the pacer wakes a flow at each of its credits' usable
 * times, so a flow with no credit waits for the next one (window floor 0)
 * instead of probing, as long as credits come: after a drought of
 * T_wait, and FP_DROUGHT_MIN_NS at least, since the last credit came
 * (@last_ns, 0: none yet), it probes again, and the pacer's releases
 * reach the CC even with no credit usable, so that its wait for credits
 * (the fallback) runs.
 */
#define FP_DROUGHT_MIN_NS 10000000ULL

static inline int fp_credit_drought(__u64 last_ns, __u64 t_wait_ns, __u64 now_ns)
{
	__u64 d = t_wait_ns > FP_DROUGHT_MIN_NS ? t_wait_ns : FP_DROUGHT_MIN_NS;

	return !last_ns || now_ns - last_ns > d;
}

/* The pacing rate's smoothing: 3/4 of the old, 1/4 of the new sample. */
static inline __u64 fp_pace_smooth(__u64 old, __u64 sample)
{
	return old - old / 4 + sample / 4;
}

/*
 * Pacing that follows the credits: @n credits whose usable stamps span
 * @span_us (first to last), so n - 1 gaps, one packet of @bytes each;
 * bytes/s.  The stamps are T + T_wait, T the pacer's schedule, so this is
 * the flow's emulation rate as the pacer meant it, whenever the ACKs that
 * took the credits came.  0 when there is no gap to measure.
 */
static inline __u64 fp_pacing_rate(__u64 n, __u32 span_us, __u32 bytes)
{
	if (n < 2 || !span_us)
		return 0;
	return (n - 1) * bytes * USEC_PER_SEC / span_us;
}

/*
 * Pacing at the spacing of the last few credits (tunable pace_credits N):
 * a moving average of the gaps between consecutive usable stamps, each
 * credit weighing 1/N, kept in 1/256 us.  It follows a change of the
 * flow's credit rate within about N credits, where the windowed estimate
 * above lags by several RTTs.  A gap that goes backwards (credits taken
 * out of order) or spans more than FP_GAP_MAX_US (a drought, or the flow
 * idle) is not a gap of the credit clock: it leaves the average alone
 * (and only a stamp ahead of the last one becomes the last).
 */
#define FP_GAP_SHIFT  8
#define FP_GAP_MAX_US 100000U

static inline __u32 fp_gap_avg(__u32 avg, __u32 prev_us, __u32 at_us, __u32 n)
{
	__u32 gap = at_us - prev_us;
	__u64 g;

	if (!prev_us || (__s32)gap < 0 || gap > FP_GAP_MAX_US)
		return avg;
	g = (__u64)gap << FP_GAP_SHIFT;
	/* Two credits of one clump share a stamp: alone, that gap would
	 * mean an unbounded rate, so the average starts at 1 us at least. */
	if (!avg || n <= 1)
		return (__u32)(g ? g : 1U << FP_GAP_SHIFT);
	g = ((__u64)avg * (n - 1) + g) / n;
	return g ? (__u32)g : 1; /* 0 means no average yet */
}

/* The pacing rate of a gap average (fp_gap_avg()), segments of @bytes:
 * bytes/s; 0 without an average. */
static inline __u64 fp_gap_rate(__u32 avg, __u32 bytes)
{
	if (!avg)
		return 0;
	return ((__u64)bytes * USEC_PER_SEC << FP_GAP_SHIFT) / avg;
}

/*
 * How far ahead of its usable time a credit may be taken.  The window
 * moves only at ACKs, and a flow with little in flight (a short RTT, or
 * one of many flows) may wait longer for its next ACK than for its next
 * credit; when in flight drains to nothing, no ACK comes at all.  A
 * credit due before the next ACK is likely to come is taken now, and
 * TCP's pacing at the credit rate sends it close to its time: the lead is
 * the time of @n credits (tunable lead_credits) at @pace_Bps for segments
 * of @bytes, at least FP_LEAD_MIN_NS, at most the RTT; none when @n is 0
 * (with credit_ack every credit is an ACK, so the next one comes soon).
 */
#define FP_LEAD_MIN_NS 1000000ULL

static inline __u64 fp_lead_ns(__u64 rtt_ns, __u64 pace_Bps, __u32 bytes, __u32 n)
{
	__u64 lead = pace_Bps ? (__u64)n * bytes * NSEC_PER_SEC / pace_Bps : rtt_ns;

	if (!n)
		return 0;
	if (lead < FP_LEAD_MIN_NS)
		lead = FP_LEAD_MIN_NS;
	return lead < rtt_ns ? lead : rtt_ns;
}

#endif /* CCSUITE_FLASHPASS_CC_H */
