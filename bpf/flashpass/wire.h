/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_flashpass's packets (bpf/flashpass.h): the wire format of emulation
 * and credit packets, and what the TC programs check of one before they
 * believe it: sequence numbers and the replay window, the sender's clock
 * T, the admission rates of a source and of a loop, a credit's usable
 * time.  Used by tc/flashpass.bpf.c, the pacer (which builds the packets)
 * and the host unit tests.
 */
#ifndef CCSUITE_FLASHPASS_WIRE_H
#define CCSUITE_FLASHPASS_WIRE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "kdefs.h"

/*
 * On the wire, one emulation or credit packet: a UDP datagram to the
 * FlashPass port whose payload is struct fp_wire, network order.  It
 * fits a minimum Ethernet frame over IPv4 (14 + 20 + 8 + 18 = 60 bytes,
 * 84 on the wire with FCS, preamble and gap), the FlashPass paper's emulation
 * packet.  The data flow it stands for is the emulation packet's IP
 * source and destination, its UDP source port (the flow's source port)
 * and fp_wire.dport.  A credit is the emulation packet with addresses and
 * UDP ports swapped and its type changed; everything else is echoed,
 * the secret too: a credit without the flow's secret is not one.
 */
#define FP_MAGIC	0xF5
#define FP_VERSION	1
#define FP_WIRE_LEN	18
#define FP_FRAME_WIRE	84U   /* an emulation packet on the wire, bytes */
#define FP_DATA_WIRE	1538U /* a full-sized data packet on the wire */
#define FP_DEFAULT_PORT 7190
#define FP_BATCH_MAX	16 /* emulation packets one credit may stand for */

enum fp_type {
	FP_EMULATION = 1,
	FP_CREDIT = 2,
	/* the pacer to its own host's sender egress, at a credit's usable
	 * time (tunable release): never leaves the host */
	FP_RELEASE = 3,
};

struct fp_wire {
	__u8 magic;    /* FP_MAGIC */
	__u8 ver_type; /* FP_VERSION << 4 | enum fp_type */
	__u16 dport;   /* the data flow's destination port */
	__u32 seq;     /* per-flow emulation sequence number */
	__u32 t_us;    /* when the emulation packet left, us, low 32 bits */
	__u32 secret;  /* the flow's, from its ledger */
	__u8 flags;    /* FP_WIRE_* */
	__u8 count;    /* emulation packets this credit stands for: 1, or up
			* to FP_BATCH_MAX with the receiver's credit_batch */
} __attribute__((packed));

_Static_assert(sizeof(struct fp_wire) == FP_WIRE_LEN, "fp_wire is 18 bytes");

/* The emulation packet was over-provisioned (sent Not-ECT). */
#define FP_WIRE_OVER 1
/* loop: one of the pacer's first packets of a loop, which the sender's
 * egress numbers in the loop (and clears this flag, so that it does so
 * once) */
#define FP_WIRE_SEED 2

enum fp_wire_err {
	FP_WIRE_OK,
	FP_WIRE_SHORT,	 /* fewer bytes than a fp_wire */
	FP_WIRE_LONG,	 /* more: not a packet of ours */
	FP_WIRE_MAGIC,	 /* not FP_MAGIC */
	FP_WIRE_VERSION, /* another version */
	FP_WIRE_TYPE,	 /* not the type expected here */
	FP_WIRE_COUNT,	 /* a count of 0, above FP_BATCH_MAX, or an emulation
			  * packet's other than 1 */
};

/* Is @w, @len bytes of UDP payload, a packet of @type?  Only the header
 * bytes inside @len are read. */
static inline enum fp_wire_err fp_wire_check(const struct fp_wire *w, __u32 len, enum fp_type type)
{
	if (len < FP_WIRE_LEN)
		return FP_WIRE_SHORT;
	if (len > FP_WIRE_LEN)
		return FP_WIRE_LONG;
	if (w->magic != FP_MAGIC)
		return FP_WIRE_MAGIC;
	if (w->ver_type >> 4 != FP_VERSION)
		return FP_WIRE_VERSION;
	if ((w->ver_type & 0xf) != type)
		return FP_WIRE_TYPE;
	if (!w->count || w->count > (type == FP_CREDIT ? FP_BATCH_MAX : 1))
		return FP_WIRE_COUNT;
	return FP_WIRE_OK;
}

/* Wrap-aware: is 32-bit sequence number @a before @b? */
static inline int fp_before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

/*
 * Would TCP take a pure ACK acknowledging @ack (host order) from the
 * flow's peer: an ack of what the socket sent, from @una to @nxt.  Only
 * such an ACK becomes the flow's kept ACK: one acknowledging more (forged:
 * anyone who guesses the ports can send it, and the ingress sees it before
 * TCP has checked anything) would make every later credit an ACK that TCP
 * discards, and the genuine ACKs, older than it, would never replace it.
 * Its other fields need no check: the next genuine ACK acknowledges at
 * least as much and replaces it.
 */
static inline int fp_ack_plausible(__u32 ack, __u32 una, __u32 nxt)
{
	return !fp_before(ack, una) && !fp_before(nxt, ack);
}

/*
 * The end of what the socket has sent: the CC's @snd_nxt at the last ACK,
 * or the egress's @seq_out since, if that lies ahead of it by less than
 * 2^30 (it starts at snd_nxt when the ledger is made, and only grows).
 */
static inline __u32 fp_sent_end(__u32 snd_nxt, __u32 seq_out)
{
	return fp_before(snd_nxt, seq_out) && seq_out - snd_nxt < (1U << 30) ? seq_out : snd_nxt;
}

/*
 * The receiver's bound on one source: GCRA, the virtual-scheduling form of
 * a token bucket.  @tat is when the source's next emulation packet is due
 * at its rate, @interval_ns apart (0: none seen); one that comes @burst
 * intervals early or more is refused.  So at most @burst at once, then one
 * an interval.  Gives the source's next tat, or 0 for a refused packet.
 */
#define FP_RX_BURST 64 /* a pacer's packets to one host that may come at once */

static inline __u64 fp_rx_admit(__u64 tat, __u64 now, __u64 interval_ns, __u32 burst)
{
	if (tat < now)
		tat = now;
	if (tat - now >= (__u64)burst * interval_ns)
		return 0;
	return tat + interval_ns;
}

/* The same for up to two packets at once (the loop's credit that becomes
 * two): how many of @n fit, @tat moved past them. */
static inline __u32 fp_gcra_take(__u64 *tat, __u64 now, __u64 interval_ns, __u32 burst, __u32 n)
{
	__u64 t = fp_rx_admit(*tat, now, interval_ns, burst);

	if (!n || !t)
		return 0;
	*tat = t;
	if (n < 2 || !(t = fp_rx_admit(t, now, interval_ns, burst)))
		return 1;
	*tat = t;
	return 2;
}

/* Wrap-aware: is 32-bit stamp @a at or after @b?  (RFC 1982 serial
 * arithmetic: valid while they are less than 2^31 apart.) */
static inline int fp_after_eq(__u32 a, __u32 b)
{
	return (__s32)(a - b) >= 0;
}

/*
 * The replay window of a flow's credits (as RFC 4303's anti-replay): @last
 * is the highest sequence number credited, bit i of @seen says last - i
 * was (0: none yet).  A credit is taken once: a copy of one already taken
 * (duplicated by the network, or replayed) or one older than the window's
 * FP_REPLAY_WIN numbers is refused, as a late reordered credit would be.
 * The secret travels in clear, so a host on the path can still make new
 * credits; against that the credit would need a MAC, not an echo.  Gives
 * the window after @seq.
 */
#define FP_REPLAY_WIN  32
/* No flow loses this many emulation packets in a row and still runs on
 * credits (it falls back after a few RTTs without one): a credit this far
 * ahead of the last one is not one of its own, and would otherwise move
 * the window past every real credit. */
#define FP_REPLAY_JUMP (1 << 16)

enum fp_replay {
	FP_REPLAY_NEW,
	FP_REPLAY_DUP,	 /* taken before */
	FP_REPLAY_OLD,	 /* older than the window */
	FP_REPLAY_AHEAD, /* FP_REPLAY_JUMP or more ahead of it */
};

struct fp_replay_win {
	__u32 last;
	__u32 seen;
};

static inline enum fp_replay fp_replay_check(struct fp_replay_win *w, __u32 seq)
{
	__s32 d = (__s32)(seq - w->last);

	if (!w->seen) {
		w->last = seq;
		w->seen = 1;
	} else if (d >= FP_REPLAY_JUMP) {
		return FP_REPLAY_AHEAD;
	} else if (d >= FP_REPLAY_WIN) {
		w->last = seq;
		w->seen = 1;
	} else if (d > 0) {
		w->last = seq;
		w->seen = (w->seen << d) | 1;
	} else if (d <= -FP_REPLAY_WIN) {
		return FP_REPLAY_OLD;
	} else if (w->seen & (1U << -d)) {
		return FP_REPLAY_DUP;
	} else {
		w->seen |= 1U << -d;
	}
	return FP_REPLAY_NEW;
}

/*
 * A credit that stands for @n emulation packets (credit_batch) carries
 * the sequence number of the last: it takes the @n numbers up to @seq
 * (the receiver batched packets that came in order, so a batch's numbers
 * lie after the last batch's), each new or none taken.  A batch claiming
 * numbers a credit already took is a replay of them.
 */
static inline enum fp_replay fp_replay_check_n(struct fp_replay_win *w, __u32 seq, __u32 n)
{
	__s32 d = (__s32)(seq - w->last);
	__u64 claim, seen;

	if (!n || n > FP_BATCH_MAX)
		return FP_REPLAY_OLD; /* fp_wire_check() lets neither through */
	claim = (1ULL << n) - 1;      /* seq - n + 1 .. seq, bit 0 the newest */
	if (!w->seen) {
		w->last = seq;
		w->seen = (__u32)claim;
		return FP_REPLAY_NEW;
	}
	if (d >= FP_REPLAY_JUMP)
		return FP_REPLAY_AHEAD;
	if (d > 0) { /* the window moves up to seq: bit i is seq - i */
		seen = d < FP_REPLAY_WIN ? (__u64)w->seen << d : 0;
		if (seen & claim)
			return FP_REPLAY_DUP;
		w->last = seq;
		w->seen = (__u32)(seen | claim);
		return FP_REPLAY_NEW;
	}
	if (0U - (__u32)d + n > FP_REPLAY_WIN) /* reaches below the window */
		return FP_REPLAY_OLD;
	claim <<= 0U - (__u32)d;
	if (w->seen & claim)
		return FP_REPLAY_DUP;
	w->seen |= (__u32)claim;
	return FP_REPLAY_NEW;
}

/*
 * A credit's T is the pacer's clock on this host when its emulation packet
 * left: never ahead of now, but for the pacer stamping a packet it sends
 * a little before its time.  One further ahead is not this host's: its
 * usable time would sit in the ring ahead of every later credit.
 */
#define FP_T_AHEAD_MAX_NS 1000000ULL

static inline int fp_t_in_future(__u64 t_ns, __u64 now_ns)
{
	return t_ns > now_ns + FP_T_AHEAD_MAX_NS;
}

/* The full ns time of a wire stamp @t_us (low 32 bits of T in us) seen at
 * @now_ns, T in the past or future by less than 2^31 us (35 minutes). */
static inline __u64 fp_time_expand(__u64 now_ns, __u32 t_us)
{
	__u64 now_us = now_ns / 1000;
	__s32 d = (__s32)(t_us - (__u32)now_us);

	if (d < 0 && (__u64)(-(__s64)d) > now_us)
		return 0;
	return (__u64)((__s64)now_us + d) * 1000;
}

/*
 * Send-time calibration (project definition of T_wait): a credit whose
 * emulation packet left at T is usable from T + T_wait.  T_wait is the
 * tunable when set, else twice the flow's minimum RTT; never less than
 * the RTT the credit itself took, or calibration would schedule it in the
 * past and the flow's data would cross the switch unspread.
 */
static inline __u64 fp_t_wait(__u64 t_wait_tunable_ns, __u64 min_rtt_ns)
{
	return t_wait_tunable_ns ? t_wait_tunable_ns : 2 * min_rtt_ns;
}

static inline __u64 fp_usable_at(__u64 t_ns, __u64 t_wait_ns, __u64 arrived_ns)
{
	__u64 at = t_ns + t_wait_ns;

	return at > arrived_ns ? at : arrived_ns;
}

/*
 * The emulation time of the credit @back places before the last of a
 * batch (credit_batch) whose last emulation packet left at @t_ns, the
 * flow's packets leaving @gap_ns apart (the pacer's rate): a batch's
 * credits keep their packets' spacing instead of all becoming usable at
 * the last one's time, a burst of the batch.  Packets the batch lost
 * stretch it; the earlier credits then come a little early.
 */
static inline __u64 fp_batch_time(__u64 t_ns, __u64 gap_ns, __u32 back)
{
	__u64 d = gap_ns * back; /* back < FP_BATCH_MAX, gap at most 1 s */

	return d < t_ns ? t_ns - d : 0;
}

/* The spacing of a flow's emulation packets at @pps; 0 (none known) for 0. */
static inline __u64 fp_emu_gap_ns(__u64 pps)
{
	return pps ? NSEC_PER_SEC / pps : 0;
}

#endif /* CCSUITE_FLASHPASS_WIRE_H */
