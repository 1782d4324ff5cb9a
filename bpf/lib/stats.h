/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One stats layout for every ccsuite algorithm, shared by the BPF side and
 * ccload.  Each algorithm object owns a per-CPU array map "ccs_stats" with a
 * single struct ccs_stats; ccload sums the per-CPU copies (or takes the
 * maximum, for gauges) and names the slots from the algorithm's registry
 * entry.  Slots below CCS_STAT_COMMON_MAX mean the same in every algorithm;
 * the rest belong to the algorithm.
 */
#ifndef CCSUITE_STATS_H
#define CCSUITE_STATS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * Each algorithm lists its stats once, as an X-macro in bpf/<algo>.h:
 *
 *	#define FOO_STATS(X, P) \
 *		X(P, ID, name, COUNTER, "help") ...
 *
 * CCS_STAT_ENUM makes the enum the BPF side counts with (P##_STAT_ID),
 * and the registry entry (loader/algos/<algo>.c) makes the names ccload
 * shows from the same list, so a slot and its name cannot drift apart.
 * Kinds: COUNTER (summed over CPUs), GAUGE (the largest over CPUs).
 */
#define CCS_STAT_ENUM(P, id, name, kind, help) P##_STAT_##id,

/* Slots that mean the same in every algorithm. */
#define CCS_COMMON_STATS(X, P)                                                                \
	X(P, FLOWS_INIT, flows_init, COUNTER, "flows that started using the CC")              \
	X(P, FLOWS_RELEASE, flows_release, COUNTER, "flows that stopped using the CC")        \
	X(P, ACKS, acks, COUNTER, "ACK events")                                               \
	X(P, CWND_REDUCTIONS, cwnd_reductions, COUNTER, "window reductions (ssthresh calls)") \
	X(P, ECE_ACKS, ece_acks, COUNTER, "ACKs with ECN-Echo")                               \
	X(P, RTO, rto, COUNTER, "retransmission timeouts")                                    \
	X(P, UNDO, undo, COUNTER, "spurious reductions undone")                               \
	X(P, BAD_RET, bad_ret_fixed, COUNTER,                                                 \
	  "corrupted ssthresh()/undo_cwnd() results the kernel took, put right")

enum ccs_stat_common {
	CCS_COMMON_STATS(CCS_STAT_ENUM, CCS) CCS_STAT_COMMON_MAX,
};

/* First slot an algorithm may use for its own counters; its enum starts
 * with P##_STAT__BASE = the slot before its first. */
#define CCS_STAT_ALGO CCS_STAT_COMMON_MAX
#define CCS_STAT_MAX  64

struct ccs_stats {
	__u64 v[CCS_STAT_MAX];
};

#endif /* CCSUITE_STATS_H */
