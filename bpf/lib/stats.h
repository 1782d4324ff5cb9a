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

enum ccs_stat_common {
	CCS_STAT_FLOWS_INIT,		/* init(): a flow started using the CC */
	CCS_STAT_FLOWS_RELEASE,		/* release(): a flow stopped using it */
	CCS_STAT_ACKS,			/* ACK events seen by the CC */
	CCS_STAT_CWND_REDUCTIONS,	/* ssthresh() calls: loss or ECN reductions */
	CCS_STAT_ECE_ACKS,		/* ACKs carrying ECN-Echo */
	CCS_STAT_RTO,			/* retransmission timeouts (CA_EVENT_LOSS) */
	CCS_STAT_UNDO,			/* undo_cwnd(): a reduction was spurious */
	CCS_STAT_BAD_RET,		/* the kernel took a corrupted ssthresh() or
					 * undo_cwnd() result; put right (ccsuite.bpf.h) */
	CCS_STAT_COMMON_MAX,
};

/* First slot an algorithm may use for its own counters. */
#define CCS_STAT_ALGO		CCS_STAT_COMMON_MAX
#define CCS_STAT_MAX		32

struct ccs_stats {
	__u64 v[CCS_STAT_MAX];
};

#endif /* CCSUITE_STATS_H */
