/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BBR v1 arithmetic (Linux net/ipv4/tcp_bbr.c semantics), shared by
 * bpf/bbr.bpf.c and the host unit tests.  Units as in Linux:
 *   bw      packets per microsecond << BW_SCALE (a u32 spans 715 bit/s to 3 Tbit/s)
 *   gains   fixed point, BBR_UNIT = 1.0
 */
#ifndef CCSUITE_BBR_H
#define CCSUITE_BBR_H

#include "kdefs.h"
#include "stats.h"
#include "tunables.h"

#define BW_SCALE  24
#define BW_UNIT	  (1ULL << BW_SCALE)
#define BBR_SCALE 8
#define BBR_UNIT  (1 << BBR_SCALE)

enum ccs_bbr_mode {
	BBR_MODE_STARTUP,   /* ramp up quickly to fill the pipe */
	BBR_MODE_DRAIN,	    /* drain the queue STARTUP made */
	BBR_MODE_PROBE_BW,  /* cycle gains around the estimated bw */
	BBR_MODE_PROBE_RTT, /* cut inflight to 4 packets to see the min RTT */
	BBR_MODE_COUNT,
};

#define BBR_CYCLE_LEN	    8
#define BBR_CWND_MIN_TARGET 4
#define BBR_MIN_TSO_RATE    1200000 /* bit/s; below it TSO segs goal is 1 */
#define BBR_GSO_MAX_BYTES   (GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER)

/* Stats slots of bpf_bbr, after the common ones. */
#define BBR_STATS(X, P)                                                                 \
	X(P, ENTER_STARTUP, enter_startup, COUNTER, "flows entering STARTUP")           \
	X(P, ENTER_DRAIN, enter_drain, COUNTER, "STARTUP -> DRAIN transitions")         \
	X(P, ENTER_PROBE_BW, enter_probe_bw, COUNTER, "transitions into PROBE_BW")      \
	X(P, ENTER_PROBE_RTT, enter_probe_rtt, COUNTER, "PROBE_RTT entries")            \
	X(P, FULL_BW_REACHED, full_bw_reached, COUNTER, "STARTUP found the pipe full")  \
	X(P, LT_BW_ON, lt_bw_on, COUNTER, "long-term bw (policer) activations")         \
	X(P, RECOVERY, recovery, COUNTER, "recovery episodes in packet conservation")   \
	X(P, IDLE_RESTART, idle_restart, COUNTER, "restarts from idle")                 \
	X(P, BW_BPS, bw_bps, GAUGE, "a recent bw estimate (bit/s, largest over CPUs)")  \
	X(P, MIN_RTT_US, min_rtt_us, GAUGE, "a recent min_rtt (us, largest over CPUs)") \
	X(P, FULL_BW_BPS, full_bw_bps, GAUGE,                                           \
	  "bw when STARTUP last judged the pipe full (bit/s, largest over CPUs)")

enum bbr_stat {
	BBR_STAT__BASE = CCS_STAT_ALGO - 1,
	BBR_STATS(CCS_STAT_ENUM, BBR) BBR_STAT_MAX,
};

/* Tunables (lib/tunables.h); gains in 1/256. */
#define BBR_GAIN(X, name, def, help) X(name, UINT, 1, 1023, def, help)
#define BBR_TUNABLES(X)                                                                            \
	BBR_GAIN(X, high_gain, BBR_UNIT * 2885 / 1000 + 1,                                         \
		 "STARTUP pacing and cwnd gain in 1/256 (739 = 2/ln2)")                            \
	BBR_GAIN(X, drain_gain, BBR_UNIT * 1000 / 2885, "DRAIN pacing gain in 1/256 (88 = ln2/2)") \
	BBR_GAIN(X, cwnd_gain, BBR_UNIT * 2, "PROBE_BW cwnd gain in 1/256 (512 = 2)")              \
	BBR_GAIN(X, probe_up_gain, BBR_UNIT * 5 / 4,                                               \
		 "PROBE_BW probing phase pacing gain in 1/256 (320 = 5/4)")                        \
	BBR_GAIN(X, probe_down_gain, BBR_UNIT * 3 / 4,                                             \
		 "PROBE_BW draining phase pacing gain in 1/256 (192 = 3/4)")                       \
	X(min_rtt_win_ms, UINT, 100, 600000, 10000,                                                \
	  "min_rtt window: PROBE_RTT when it was not refreshed this long (ms)")                    \
	X(probe_rtt_mode_ms, UINT, 0, 10000, 200,                                                  \
	  "time at 4 packets in PROBE_RTT (ms; 0 = never)")                                        \
	X(pacing_margin_pct, UINT, 0, 10, 1, "pace this many percent below the bw estimate")       \
	BBR_GAIN(X, extra_acked_gain, BBR_UNIT, "ACK-aggregation allowance gain in 1/256 (256 = 1)")

/* bw (pkt/us << 24) with @gain to bytes/s, minus the pacing margin; the
 * order of operations keeps u64 from overflowing up to ~2.9 Tbit/s. */
static inline __u64 bbr_rate_bytes_per_sec(__u64 rate, __u32 mss, __u32 gain, __u32 margin_pct)
{
	rate *= mss;
	rate *= gain;
	rate >>= BBR_SCALE;
	rate *= USEC_PER_SEC / 100 * (100 - margin_pct);
	return rate >> BW_SCALE;
}

/* BDP in packets, gain applied, rounded up (avoids a shrinking loop). */
static inline __u32 bbr_bdp_of(__u32 bw, __u32 min_rtt_us, __u32 gain)
{
	__u64 w;

	if (min_rtt_us == ~0U)
		return TCP_INIT_CWND; /* no RTT sample yet */
	w = (__u64)bw * min_rtt_us;
	return (__u32)((((w * gain) >> BBR_SCALE) + BW_UNIT - 1) / BW_UNIT);
}

/* TSO/GSO segments wanted per skb at a pacing rate (bytes/s), at most
 * 127 as in Linux (with a small MSS the byte bound alone allows hundreds,
 * and the cwnd target adds three skbs of them). */
static inline __u32 bbr_tso_segs_of(__u64 pacing_rate, __u32 pacing_shift, __u32 mss)
{
	__u64 bytes = pacing_rate >> pacing_shift;
	__u32 min_segs = pacing_rate < (BBR_MIN_TSO_RATE >> 3) ? 1 : 2;
	__u32 segs;

	if (bytes > BBR_GSO_MAX_BYTES)
		bytes = BBR_GSO_MAX_BYTES;
	segs = mss ? (__u32)bytes / mss : 0;
	if (segs < min_segs)
		segs = min_segs;
	return segs < 0x7F ? segs : 0x7F;
}

/* Room for full-sized skbs in the end hosts (3 of them), an even cwnd
 * against delayed ACKs, and +2 in the probing phase so small BDPs still
 * probe above BDP. */
static inline __u32 bbr_quantize(__u32 cwnd, __u32 tso_segs, int probing_up)
{
	cwnd += 3 * tso_segs;
	cwnd = (cwnd + 1) & ~1U;
	if (probing_up)
		cwnd += 2;
	return cwnd;
}

/* Two long-term intervals are "consistent" (a policer) when their bw
 * differ by at most 1/8 or by at most 4 kbit/s. */
static inline int bbr_lt_consistent(__u32 bw, __u32 lt_bw, __u32 mss, __u32 margin_pct)
{
	__u32 diff = bw > lt_bw ? bw - lt_bw : lt_bw - bw;

	return (__u64)diff * BBR_UNIT <= (__u64)(BBR_UNIT / 8) * lt_bw ||
	       bbr_rate_bytes_per_sec(diff, mss, BBR_UNIT, margin_pct) <= 4000 / 8;
}

/* Full pipe: bw grew less than 25 % for 3 rounds.  Returns the new
 * full_bw_cnt; *full_bw is the bw to beat. */
static inline __u32 bbr_full_bw_step(__u32 max_bw, __u32 *full_bw, __u32 cnt)
{
	__u32 thresh = (__u32)(((__u64)*full_bw * (BBR_UNIT * 5 / 4)) >> BBR_SCALE);

	if (max_bw >= thresh) {
		*full_bw = max_bw;
		return 0;
	}
	return cnt + 1;
}

#endif /* CCSUITE_BBR_H */
