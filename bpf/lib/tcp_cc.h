/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arithmetic of the kernel's tcp_cong_control() for a CC with
 * cong_avoid() (net/ipv4/tcp_input.c), for suite CCs that own the window
 * through cong_control() instead (ccsuite.bpf.h says why), as plain
 * integers so the host unit tests check it against the kernel's cases.
 */
#ifndef CCSUITE_TCP_CC_H
#define CCSUITE_TCP_CC_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "kdefs.h"

/*
 * tcp_cwnd_reduction(): RFC 6937 proportional rate reduction.  The window
 * after an ACK that delivered @acked_sacked segments (@losses newly lost)
 * in CWR or Recovery: while more is in flight than @ssthresh, send in
 * proportion to what was delivered since the reduction began
 * (@prr_delivered, this ACK included; @prr_out: sent since), else as much
 * as was delivered, one more when snd_una advanced without loss, up to
 * ssthresh.  At least one segment while nothing was sent yet (the fast
 * retransmit).
 */
static inline __u32 tcp_cc_prr_cwnd(__u32 ssthresh, __u32 in_flight, __u32 prior_cwnd,
				    __u32 prr_delivered, __u32 prr_out, __u32 acked_sacked,
				    __u32 losses, int una_advanced)
{
	int delta = (int)(ssthresh - in_flight);
	int sndcnt;

	if (delta < 0) {
		__u64 dividend = (__u64)ssthresh * prr_delivered + prior_cwnd - 1;

		sndcnt = (int)(dividend / prior_cwnd) - (int)prr_out;
	} else {
		sndcnt = (int)(prr_delivered - prr_out);
		if (sndcnt < (int)acked_sacked)
			sndcnt = (int)acked_sacked;
		if (una_advanced && !losses)
			sndcnt++;
		if (sndcnt > delta)
			sndcnt = delta;
	}
	if (sndcnt < (prr_out ? 0 : 1))
		sndcnt = prr_out ? 0 : 1;
	return in_flight + (__u32)sndcnt;
}

/*
 * Whether a cwnd or ssthresh of @segs segments of @mss bytes is one no TCP
 * code makes.  Windows grow only while the sender is cwnd-limited, so they
 * stay within a small multiple of the largest window a peer can offer
 * (65535 << 14 bytes): four times it is the bound.  What the kernel takes
 * in place of a BPF CC's result (ccs_ret_repair()) is far above: the low
 * half of a kernel address (2^31 and more) or what TCP makes of one before
 * the CC sees it (halved by a restart after idle, three quarters as an
 * ssthresh), 2^29 and more, where the bound is 2^26 even at the smallest
 * MSS.  TCP_INFINITE_SSTHRESH, ssthresh's "none", is not a window.
 */
#define TCP_CC_MAX_WINDOW_BYTES (65535ULL << 14)
#define TCP_CC_MIN_SND_MSS	48 /* include/net/tcp.h TCP_MIN_SND_MSS */

static inline int tcp_cc_window_impossible(__u32 segs, __u32 mss)
{
	if (mss < TCP_CC_MIN_SND_MSS)
		mss = TCP_CC_MIN_SND_MSS;
	return segs != TCP_INFINITE_SSTHRESH && segs > 4 * TCP_CC_MAX_WINDOW_BYTES / mss;
}

/*
 * tcp_update_pacing_rate(): bytes/s, @ss_ratio percent of cwnd * mss per
 * srtt in slow start (cwnd below half ssthresh), @ca_ratio after, counting
 * packets_out when it exceeds cwnd; no more than @max_rate.  @srtt_us8 is
 * tp->srtt_us (8 times the smoothed RTT in us); 0 leaves the rate at its
 * numerator, as the kernel does.
 */
static inline __u64 tcp_cc_pacing_rate(__u32 mss, __u32 cwnd, __u32 packets_out, __u32 ssthresh,
				       __u32 srtt_us8, __u32 ss_ratio, __u32 ca_ratio,
				       __u64 max_rate)
{
	__u64 rate = (__u64)mss * ((USEC_PER_SEC / 100) << 3);

	rate *= cwnd < ssthresh / 2 ? ss_ratio : ca_ratio;
	rate *= cwnd > packets_out ? cwnd : packets_out;
	if (srtt_us8)
		rate /= srtt_us8;
	return rate < max_rate ? rate : max_rate;
}

/*
 * tcp_cwnd_restart(): the window at the first send after @idle (jiffies)
 * with nothing in flight, idle longer than @rto: halved per RTO idle
 * beyond the first, down to @restart_cwnd (the initial window) or cwnd if
 * smaller.  @cwnd unchanged when the idle was not that long.
 */
static inline __u32 tcp_cc_restart_cwnd(__u32 cwnd, __u32 restart_cwnd, __s32 idle, __u32 rto)
{
	int i;

	if (!rto || idle <= (__s32)rto)
		return cwnd;
	if (restart_cwnd > cwnd)
		restart_cwnd = cwnd;
	for (i = 0; i < 32 && (idle -= (__s32)rto) > 0 && cwnd > restart_cwnd; i++)
		cwnd >>= 1;
	return cwnd > restart_cwnd ? cwnd : restart_cwnd;
}

#endif /* CCSUITE_TCP_CC_H */
