/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Coupled congestion control for MPTCP (bpf_lia, bpf_ppqd): what the BPF
 * side (coupled.bpf.h) and ccload share.
 *
 * Upstream MPTCP runs a CC instance per subflow, each an ordinary TCP
 * socket.  A sock_ops program finds a subflow's connection when it is
 * established (bpf_skc_to_mptcp_sock(): the connection's token, scoped by
 * the network namespace, as tokens are unique only within one) and keeps
 * it in the subflow's sk_storage.  The CC then counts the subflow in the
 * connection's entry of a bounded hash map (a group table, group.h): a
 * slot per subflow holding its window and RTT, which every subflow reads
 * to compute the coupled increase.  A flow that is not an MPTCP subflow
 * is a connection of one subflow and has no entry.
 */
#ifndef CCSUITE_COUPLED_H
#define CCSUITE_COUPLED_H

#include "group.h"
#include "stats.h"
#include "tunables.h"

#define CPL_MAX_SUBFLOWS 8    /* MPTCP's own limit (ip mptcp limits: 8) */
#define CPL_MAX_CONNS	 4096 /* connections coupled at once; beyond, uncoupled */

struct cpl_key {
	__u64 netns; /* the namespace's cookie */
	__u32 token; /* the MPTCP connection's local token */
	__u32 pad;
};

/* A subflow's slot; cwnd 0 = free (or no RTT sample yet). */
struct cpl_sub {
	__u32 cwnd;   /* segments */
	__u32 rtt_us; /* smoothed RTT */
};

struct cpl_conn {
	struct ccs_group g; /* members: bit i, sub[i] is a member's */
	/* the last coupling any subflow computed (for ccload and bpftrace) */
	__u32 alpha;   /* LIA's alpha, 1/1024 (lia.h) */
	__u32 w_total; /* segments */
	struct cpl_sub sub[CPL_MAX_SUBFLOWS];
	__u64 cut_ns; /* when a subflow last halved (bpf_ktime_get_ns()) */
};

/* What the sock_ops program keeps in a subflow's sk_storage. */
struct cpl_sk {
	struct cpl_key key;
};

/*
 * Counters of the coupling, the first slots of every coupled CC's stats
 * (bpf/lia.h, bpf/ppqd.h), so coupled.bpf.h counts them by one enum.
 */
#define CPL_STATS(X, P)                                                                            \
	X(P, SUB_COUPLED, sub_coupled, COUNTER, "MPTCP subflows counted in their connection")      \
	X(P, SUB_FULL, sub_uncoupled_full, COUNTER,                                                \
	  "MPTCP subflows run uncoupled: the connection table or its slots were full")             \
	X(P, SUB_NOKEY, sub_uncoupled_nokey, COUNTER,                                              \
	  "MPTCP subflows run uncoupled: no connection recorded (established before attach)")      \
	X(P, PLAIN, plain_tcp, COUNTER, "flows that are not MPTCP subflows: one-subflow coupling") \
	X(P, CONN_MADE, conns_made, COUNTER, "connection entries made")                            \
	X(P, REJOIN, rejoins, COUNTER, "subflows that joined their connection's entry again")      \
	X(P, SOCKOPS_KEYS, sockops_keys, COUNTER,                                                  \
	  "sock_ops: subflows whose connection it recorded")                                       \
	X(P, INC_COUPLED, inc_coupled, COUNTER,                                                    \
	  "growing ACKs whose increase the coupled term set (alpha / w_total)")                    \
	X(P, INC_UNCOUPLED, inc_uncoupled, COUNTER,                                                \
	  "growing ACKs whose increase the uncoupled bound set (1 / w_r)")                         \
	X(P, LOSSES, losses, COUNTER, "loss halvings (fast recovery and RTO)")                     \
	X(P, LOSS_JOINED, losses_joined, COUNTER,                                                  \
	  "losses within an RTT of a halving of the connection: one congestion event, not halved") \
	X(P, UNSTAMPED, unstamped, COUNTER,                                                        \
	  "undone halvings that took back their connection's congestion event")

/* Tunables of every coupled CC (lib/tunables.h); max_conns sizes the
 * table (ccload sets cpl_conns' max_entries from it). */
#define CPL_TUNABLES(X)                                                                 \
	X(max_conns, UINT, 1, CPL_MAX_CONNS, CPL_MAX_CONNS,                             \
	  "MPTCP connections coupled at once (the table's size); beyond, new ones run " \
	  "uncoupled")                                                                  \
	X(cut_once, BOOL, 0, 1, 1,                                                      \
	  "halve once per congestion event of the connection: a loss within an RTT "    \
	  "of another subflow's halving is the same event (0: every subflow halves, "   \
	  "RFC 6356 as written)")

/*
 * cut_once: a subflow's loss at @now_ns belongs to the congestion event
 * its connection reacted to with a halving at @cut_ns (0: none yet) when
 * less than the subflow's RTT @rtt_ns has passed since.  A drop-tail
 * queue that overflows drops from every flow sending into it: a TCP flow
 * halves once for it, where a connection of two subflows would halve
 * twice.  A halving stamped after @now_ns (another CPU, meanwhile) is
 * the same event.
 */
static inline int cpl_same_event(__u64 now_ns, __u64 cut_ns, __u64 rtt_ns)
{
	return cut_ns && (now_ns <= cut_ns || now_ns - cut_ns < rtt_ns);
}

enum cpl_stat {
	CPL_STAT__BASE = CCS_STAT_ALGO - 1,
	CPL_STATS(CCS_STAT_ENUM, CPL) CPL_STAT_MAX,
};

#endif /* CCSUITE_COUPLED_H */
