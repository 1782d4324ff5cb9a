/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_flashpass (docs/flashpass.md): the sender's pacer (or, with loop=1,
 * the sender's TC ingress) sends small UDP emulation packets for each flow
 * through the bottleneck's emulation queue; the receiver turns each one
 * that arrives into a credit and sends it back; the sender's TC ingress
 * puts each credit in the flow's ledger, usable at the emulation packet's
 * send time T plus T_wait (send-time calibration); the CC lets one data
 * segment out per usable credit.
 *
 * The paper's Algorithm 1 is not public: the rate control in
 * flashpass/rc.h is the project's definition (docs/flashpass.md).
 *
 * Fixed point: loss fractions and the weight w in 1/1024 (FP_ONE); rates
 * in emulation packets per second.
 *
 * Its parts, each used as its comment says and unit-tested on its own
 * (test/unit/test_flashpass.c):
 *   flashpass/wire.h    packets: wire format, replay window, T, admission
 *   flashpass/rc.h      the emulation rate: Algorithm 1, demand, the loop
 *   flashpass/ledger.h  a flow's ledger: ring, ACK template, loop state
 *   flashpass/cc.h      the CC's window, bank and pacing
 * This header includes them all, with the algorithm's stats and tunables.
 */
#ifndef CCSUITE_FLASHPASS_H
#define CCSUITE_FLASHPASS_H

#include "stats.h"
#include "tunables.h"
#include "flashpass/wire.h"
#include "flashpass/rc.h"
#include "flashpass/ledger.h"
#include "flashpass/cc.h"

/* Stats of bpf_flashpass, after the common slots (lib/stats.h). */
#define FP_STATS(X, P)                                                                                \
	X(P, PHASE_CREDIT, phase_credit, COUNTER, "flows whose first credit came: credit phase")      \
	X(P, FALLBACKS, fallbacks, COUNTER, "flows that got no credit in time and run as Reno")       \
	X(P, LEDGER_LOST, ledger_lost, COUNTER,                                                       \
	  "flows whose ledger was gone (evicted from a full table): run as Reno")                     \
	X(P, CREDIT_FUTURE, credit_future, COUNTER,                                                   \
	  "sender: credits whose T is ahead of this host's clock (not its pacer's), dropped")         \
	X(P, ACK_IMPLAUSIBLE, ack_implausible, COUNTER,                                               \
	  "sender: pure ACKs not kept for credit_ack: acknowledging more than was sent (forged?)")    \
	X(P, CREDITS, credits, COUNTER, "sender: credits put in a ledger")                            \
	X(P, CREDITS_USED, credits_used, COUNTER, "segments sent under a credit")                     \
	X(P, CREDITS_WASTED, credits_wasted, COUNTER,                                                 \
	  "credits not spent: usable while the flow had nothing to send, beyond its bank, "           \
	  "refused by a full ring, or expired (release)")                                             \
	X(P, CREDIT_UNKNOWN, credit_unknown, COUNTER, "sender: credits of no known flow, dropped")    \
	X(P, CREDIT_FORGED, credit_forged, COUNTER,                                                   \
	  "sender: credits with the wrong secret, dropped")                                           \
	X(P, REFLECTED, reflected, COUNTER, "receiver: emulation packets returned as credits")        \
	X(P, RX_TRANSIT, rx_transit, COUNTER,                                                         \
	  "receiver: packets to the FlashPass port not addressed to this host, passed on")            \
	X(P, RX_LIMITED, rx_limited, COUNTER,                                                         \
	  "receiver: emulation packets over their source's rate (rx_pps), dropped")                   \
	X(P, WIRE_SHORT, wire_short, COUNTER, "packets to the FlashPass port cut short, dropped")     \
	X(P, WIRE_LONG, wire_long, COUNTER, "packets to the FlashPass port too long, dropped")        \
	X(P, WIRE_BAD, wire_bad, COUNTER,                                                             \
	  "packets to the FlashPass port with a bad magic, version, type or count, dropped")          \
	X(P, DATA_UNSCHED, data_unsched, COUNTER, "sender: data frames tagged unscheduled")           \
	X(P, DATA_SCHED, data_sched, COUNTER, "sender: data frames tagged scheduled")                 \
	X(P, CREDIT_REPLAYED, credit_replayed, COUNTER,                                               \
	  "sender: credits taken before, older than the window, far ahead of it or (loop) of a "      \
	  "packet not sent, dropped")                                                                 \
	X(P, BATCHED, batched, COUNTER,                                                               \
	  "receiver: emulation packets left to a later credit of their flow (credit_batch)")          \
	X(P, CREDIT_ACKS, credit_acks, COUNTER,                                                       \
	  "sender: credits handed to their flow's socket as an ACK of nothing new (credit_ack)")      \
	X(P, CREDITS_OVER_BANK, credits_over_bank, COUNTER,                                           \
	  "of credits_wasted, those a flow with data to send held beyond its bank (fp_bank_limit())") \
	X(P, RELEASES, releases, COUNTER,                                                             \
	  "sender: the pacer's releases handed to their flow's socket as an ACK (release)")           \
	X(P, RELEASES_IDLE, releases_idle, COUNTER,                                                   \
	  "sender: the pacer's releases with no credit usable (lost, or taken at an ACK), dropped")   \
	X(P, CREDITS_EXPIRED, credits_expired, COUNTER,                                               \
	  "of credits_wasted, those whose release never came (the pacer dropped it late)")            \
	X(P, LOOP_SENT, loop_sent, COUNTER,                                                           \
	  "sender: emulation packets that credits became (loop)")                                     \
	X(P, LOOP_GROWN, loop_grown, COUNTER,                                                         \
	  "of loop_sent, a credit's second packet: its loop below its window (loop)")                 \
	X(P, LOOP_ENDED, loop_ended, COUNTER,                                                         \
	  "sender: credits that became no emulation packet: above the window, no demand (loop)")

enum fp_stat {
	FP_STAT__BASE = CCS_STAT_ALGO - 1,
	FP_STATS(CCS_STAT_ENUM, FP) FP_STAT_MAX,
};

#define FP_MAX_FLOWS 4096 /* ledgers (LRU): the oldest goes first when full */

/* Tunables of bpf_flashpass (lib/tunables.h). */
#define FP_TUNABLES(X)                                                                        \
	X(port, UINT, 1, 65535, FP_DEFAULT_PORT, "UDP port of emulation and credit packets")  \
	X(init_cwnd, UINT, 1, 1024, 10,                                                       \
	  "pre-credit window (first RTT, unscheduled data), segments")                        \
	X(t_wait_us, UINT, 0, 10000000, 0,                                                    \
	  "send-time calibration T_wait, us (0: twice the flow's minimum RTT)")               \
	X(fallback_rtts, UINT, 1, 1000, 4,                                                    \
	  "RTTs with data waiting and no credit (fallback_ms at least) before a flow runs "   \
	  "as Reno")                                                                          \
	X(fallback_ms, UINT, 1, 60000, 200,                                                   \
	  "the shortest wait for a credit before a flow runs as Reno, ms")                    \
	X(bank_max, UINT, 1, FP_RING, 16,                                                     \
	  "usable credits a flow may hold unspent at most; beyond, they are wasted")          \
	X(bank_us, UINT, 0, 1000000, 2000,                                                    \
	  "with release, usable credits a flow may hold unspent, in time: those of this "     \
	  "many us at its credit rate (4 at least, bank_max at most; 0: bank_max alone)")     \
	X(burst, UINT, 1, 64, 64,                                                             \
	  "segments sent at once under credits beyond those an ACK acknowledged")             \
	X(pace_credits, UINT, 0, 64, 8,                                                       \
	  "pace at the average gap of about this many last credits (0: their rate over "      \
	  "windows of an RTT and 4 ms at least, smoothed by a quarter; pace=0 overrides)")    \
	X(lead_credits, UINT, 0, 64, 4,                                                       \
	  "take a credit this many credits' time before it is usable (1 ms at least, an "     \
	  "RTT at most; 0: only once usable)")                                                \
	X(pace_gain_pct, UINT, 0, 100, 0,                                                     \
	  "pace this many percent above the rate credits become usable")                      \
	X(dscp_unsched, UINT, 0, 63, 8, "DSCP of unscheduled (pre-credit) data (8: CS1)")     \
	X(dscp_sched, UINT, 0, 63, 0, "DSCP of scheduled data")                               \
	X(credit_batch, UINT, 1, FP_BATCH_MAX, 1,                                             \
	  "one credit for this many emulation packets of a flow (1: each): the receiver "     \
	  "batches so, the sender takes no larger batch (set both ends alike)")               \
	X(credit_ack, UINT, 0, 1, 1,                                                          \
	  "hand each credit to its flow's socket as an ACK of nothing new, so that the CC "   \
	  "spends it when it comes, not at the next ACK (a flow with SACK only; 0: drop "     \
	  "it after the ledger)")                                                             \
	X(release, UINT, 0, 1, 1,                                                             \
	  "the pacer wakes each flow when a credit becomes usable (an ACK of nothing new "    \
	  "from the sender's egress): a segment leaves then and only then (0: credits are "   \
	  "spent as they come, with credit_ack, pace_credits and lead_credits)")              \
	X(pace, UINT, 0, 1, 1,                                                                \
	  "pace a flow under credits at the rate they become usable (0: not at all; with "    \
	  "credit_ack the credits clock its segments)")                                       \
	X(loop, UINT, 0, 1, 0,                                                                \
	  "each credit becomes its flow's next emulation packet at the sender's TC ingress: " \
	  "the network clocks the emulation, the pacer only starts a flow's loop (needs "     \
	  "release=0)")                                                                       \
	X(rx_pps, UINT, 1, 100000000, 1000000,                                                \
	  "receiver: emulation packets a second each source address may have turned into "    \
	  "credits, after a burst of 64 (the default: a 13 Gbit/s sender's highest rate)")

#endif /* CCSUITE_FLASHPASS_H */
