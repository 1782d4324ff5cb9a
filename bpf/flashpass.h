/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FlashPass arithmetic and wire format (docs/flashpass.md),
 * shared by bpf/flashpass.bpf.c, tc/flashpass.bpf.c, ccload's emulation
 * pacer and the host unit tests.
 *
 * The loop: the sender's pacer sends small UDP emulation packets for each
 * flow through the bottleneck's emulation queue; the receiver turns each
 * one that arrives into a credit and sends it back; the sender's TC
 * ingress puts each credit in the flow's ledger, usable at the emulation
 * packet's send time T plus T_wait (send-time calibration); the CC lets
 * one data segment out per usable credit.
 *
 * The paper's Algorithm 1 is not public: the rate control below is the
 * project's definition (spec, "Emulation rate control").
 *
 * Fixed point: loss fractions and the weight w in 1/1024 (FP_ONE); rates
 * in emulation packets per second.
 */
#ifndef CCSUITE_FLASHPASS_H
#define CCSUITE_FLASHPASS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "kdefs.h"
#include "stats.h"
#include "tunables.h"

#define FP_ONE 1024U

/*
 * On the wire, one emulation or credit packet: a UDP datagram to the
 * FlashPass port whose payload is struct fp_wire, network order.  It
 * fits a minimum Ethernet frame over IPv4 (14 + 20 + 8 + 18 = 60 bytes,
 * 84 on the wire with FCS, preamble and gap), the spec's emulation
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

/*
 * Emulation-queue rate of a link of @link_bps: one 84-byte emulation
 * packet per 1538-byte data packet, link * 84 / (84 + 1538) (about 5 %),
 * in emulation packets per second: link / ((84 + 1538) * 8).  This is
 * also r_max, a sender's highest emulation rate.
 */
static inline __u64 fp_emu_pps_max(__u64 link_bps)
{
	return link_bps / ((FP_FRAME_WIRE + FP_DATA_WIRE) * 8);
}

/* ...and in bits/s, for the switch's virtual emulation queue. */
static inline __u64 fp_emu_bps(__u64 link_bps)
{
	return link_bps / (FP_FRAME_WIRE + FP_DATA_WIRE) * FP_FRAME_WIRE;
}

/*
 * Expected credits (paper eq. 2) and the marking rule: with @e_out
 * emulation packets in flight, C_expected = E_out (1 - max_target_loss);
 * while it covers the remaining demand (segments), further emulation
 * packets are over-provisioned: sent Not-ECT, dropped first at the switch.
 */
static inline __u64 fp_expected_credits(__u64 e_out, __u32 max_loss)
{
	if (max_loss >= FP_ONE)
		return 0;
	return e_out * (FP_ONE - max_loss) / FP_ONE;
}

static inline int fp_over_provisioned(__u64 e_out, __u32 max_loss, __u64 demand_segs)
{
	return fp_expected_credits(e_out, max_loss) >= demand_segs;
}

/*
 * Segments of remaining demand: bytes queued but not sent (write_seq -
 * snd_nxt), rounded up to whole segments of @mss.  What is queued is a
 * lower bound: an application blocked on a full send buffer has more to
 * write, and a bulk flow's buffer (sized by TCP's autotuning to its
 * window) is full most of the time.  Its demand is open, FP_DEMAND_OPEN,
 * and never covered by expected credits: only a flow whose application
 * has written its last bytes into room to spare is finishing.
 */
#define FP_DEMAND_OPEN (1ULL << 32)

/* @snd of fp_demand_segs(): what the send buffer says of the writer */
#define FP_SND_FULL	    1 /* full (fp_sndbuf_full()): one may wait */
#define FP_SND_WRITER_WAITS 2 /* a writer is blocked on it (the socket's SOCK_NOSPACE) */

static inline __u64 fp_demand_segs(__u32 write_seq, __u32 snd_nxt, __u32 mss, int snd)
{
	__u32 bytes = write_seq - snd_nxt;

	if (!mss)
		return 0;
	/* even with nothing unsent: an ACK that freed the buffer comes
	 * before the writer it wakes has written */
	if (snd & FP_SND_WRITER_WAITS)
		return FP_DEMAND_OPEN;
	if ((__s32)bytes <= 0)
		return 0;
	if (snd & FP_SND_FULL)
		return FP_DEMAND_OPEN;
	return ((__u64)bytes + mss - 1) / mss;
}

/* Is the send buffer full as a writer sees it?  A writer blocked on it
 * is woken when a third of it is free (sk_stream_write_space(): free >=
 * queued / 2), so at two thirds or more, one may be waiting. */
static inline int fp_sndbuf_full(int wmem_queued, int sndbuf)
{
	return sndbuf > 0 && 3LL * wmem_queued >= 2LL * sndbuf;
}

/*
 * Rate control, once per interval (a smoothed RTT), project definition of
 * Algorithm 1 after ExpressPass's credit feedback control: with loss
 * L = (sent - credited) / sent of the emulation packets sent one interval
 * earlier,
 *   L > max_loss:  r <- r (1 - L) (1 + max_loss), w <- max(w / 2, w_min)
 *   L < min_loss:  r <- (1 - w) r + w r_max; after an increase,
 *                  w <- (w + w_max) / 2 (back toward w_max)
 *   otherwise:     hold,
 * r clamped to [r_min, r_max] (r_min: one packet per RTT); before a
 * flow's first decrease an increase doubles r (fp_rc_start()).  The increase
 * closes a part w of the gap to r_max, as ExpressPass's does, rather than
 * multiplying r by 1 + w: flows that see the same loss then move toward
 * equal rates (a multiplicative increase keeps their ratio, so the
 * shortest RTT, which increases most often, ends up with the queue).
 */
struct fp_rc_params {
	__u32 max_loss; /* 1/1024 */
	__u32 min_loss; /* 1/1024 */
	__u32 w_min;	/* 1/1024 */
	__u32 w_max;	/* 1/1024 */
	__u32 settle;	/* after a change, measure only the new rate (fp_rc_settle()) */
	__u32 start;	/* a new flow's rate, 1/1024 of r_max (fp_rc_start()) */
};

struct fp_rc {
	__u64 rate;	  /* emulation packets per second */
	__u32 w;	  /* 1/1024 */
	__u32 last_up;	  /* the last update increased the rate */
	__u32 last_loss;  /* L of the last update, 1/1024 */
	__u32 decreases;  /* updates that decreased the rate */
	__u32 settling;	  /* a change waits to show: fp_rc_settled() */
	__u32 settle_seq; /* the first emulation packet sent at the new rate */
};

enum fp_rc_step { FP_RC_HOLD, FP_RC_UP, FP_RC_DOWN };

/*
 * A new flow's emulation rate: @p->start of @r_max (1/1024), at least one
 * packet a second; until its first decrease, each increase doubles it
 * (fp_rc_update()).  The paper starts at r_max (1024); ExpressPass starts
 * at a fraction alpha of it, so that flows starting together do not send
 * their link's whole emulation rate each into a queue that takes one.
 * The doubling is ours: with the gap-closing increase alone (w of 1/16) a
 * lone flow started at a quarter took some 30 RTTs to reach r_max.
 */
static inline __u64 fp_rc_start(const struct fp_rc_params *p, __u64 r_max)
{
	__u64 r = r_max * p->start / FP_ONE;

	return r ? r : 1;
}

/*
 * A rate change shows in the credits one RTT later: until the first
 * emulation packet sent at the new rate is credited, the loss measured is
 * the old rate's, and acting on it decreases (or increases) twice for one
 * cause.  With @p->settle, after a change (@next_seq: the sequence number
 * the new rate starts at) the control waits until that packet is
 * credited, or until its interval ran out with no credit, and measures
 * from there.  ccload's default: flows that share one RTT end their
 * intervals together, and without it they all decrease twice for one
 * congestion and leave the emulation queue idle.
 */
static inline void fp_rc_settle(struct fp_rc *rc, const struct fp_rc_params *p,
				enum fp_rc_step step, __u32 next_seq)
{
	rc->settling = p->settle && step != FP_RC_HOLD;
	rc->settle_seq = next_seq;
}

/* Has the last change shown?  @credited_seq: the highest sequence number
 * credited (serial arithmetic: it wraps). */
static inline int fp_rc_settled(const struct fp_rc *rc, __u32 credited_seq)
{
	return !rc->settling || (__s32)(credited_seq - rc->settle_seq) >= 0;
}

/* L in 1/1024 of @sent emulation packets of which @credited came back; a
 * credit count above @sent (late credits of an earlier interval) is no
 * loss. */
static inline __u32 fp_loss(__u64 sent, __u64 credited)
{
	if (!sent || credited >= sent)
		return 0;
	return (__u32)((sent - credited) * FP_ONE / sent);
}

static inline enum fp_rc_step fp_rc_update(struct fp_rc *rc, const struct fp_rc_params *p,
					   __u64 sent, __u64 credited, __u64 r_min, __u64 r_max)
{
	enum fp_rc_step step = FP_RC_HOLD;
	__u32 l = fp_loss(sent, credited);

	if (!sent)
		return FP_RC_HOLD; /* nothing to judge by */
	rc->last_loss = l;
	if (l > p->max_loss) {
		rc->rate = rc->rate * (FP_ONE - l) / FP_ONE * (FP_ONE + p->max_loss) / FP_ONE;
		rc->w = rc->w / 2 > p->w_min ? rc->w / 2 : p->w_min;
		rc->last_up = 0;
		rc->decreases++;
		step = FP_RC_DOWN;
	} else if (l < p->min_loss) {
		if (rc->last_up)
			rc->w = (rc->w + p->w_max) / 2;
		if (!rc->decreases) /* its start: fp_rc_start() */
			rc->rate *= 2;
		else
			rc->rate = rc->rate * (FP_ONE - rc->w) / FP_ONE + r_max * rc->w / FP_ONE;
		rc->last_up = 1;
		step = FP_RC_UP;
	} else {
		rc->last_up = 0;
	}
	if (rc->rate > r_max)
		rc->rate = r_max;
	if (rc->rate < r_min)
		rc->rate = r_min;
	return step;
}

/*
 * The gap to a flow's next emulation packet: @gap (its rate's) drawn
 * from [gap (1 - j), gap (1 + j)], j = @jitter_pct / 100, by @rnd (any
 * random number): on average the rate's.  Paced at exact gaps, a flow
 * near the emulation queue's whole rate comes just as the full queue
 * frees a slot, and the slower flows find it full: with 4 flows at one
 * RTT and a steady queue, the fastest saw 8 % loss, the others 12-28 %,
 * and the rate control gave it the queue (Jain 0.35-0.87).  ExpressPass
 * jitters its credits for the same reason.
 */
#define FP_JITTER_MAX 99 /* percent: a gap never 0 */

static inline __u64 fp_gap_jitter(__u64 gap, __u32 jitter_pct, __u64 rnd)
{
	__u64 span;

	if (jitter_pct > FP_JITTER_MAX)
		jitter_pct = FP_JITTER_MAX;
	span = gap * jitter_pct / 100;
	return gap - span + rnd % (2 * span + 1);
}

/* The lowest emulation rate: one packet per RTT, at least 1 pps, and at
 * most r_max / FP_RATE_MIN_DIV: on a short RTT one packet per RTT is a
 * large part of the queue's rate, more than a fair share of it when
 * many flows share it, and a floor above the fair share keeps the queue
 * congested for everyone. */
#define FP_RATE_MIN_DIV 64

static inline __u64 fp_rate_min(__u64 rtt_ns, __u64 r_max)
{
	__u64 r = rtt_ns ? NSEC_PER_SEC / rtt_ns : 1, cap = r_max / FP_RATE_MIN_DIV;

	if (r > cap)
		r = cap;
	return r ? r : 1;
}

/*
 * The credit loop in the kernel (tunable loop): each credit that comes
 * back becomes its flow's next emulation packet at the sender's TC
 * ingress, so the network clocks the emulation as ACKs clock TCP
 * (ExpressPass's credits are clocked by the switch the same way).  A
 * flow's emulation is then a window, the packets of its loop: a credit
 * becomes one packet while the loop is at its window, two (a clone)
 * below it, none above it.  The window is the rate control's rate over
 * the loop's round trip, so fp_rc_update() governs it as it governs the
 * pacer's rate: at most one packet more per credit, a doubling a round
 * trip at most, as the start's.
 *
 * The egress numbers every emulation packet of a flow in its loop, the
 * pacer's first ones too: the packets of the loop with a number after
 * the highest credited one, @seq_next the next number, are in flight
 * (the emulation queue keeps a flow's packets in order: those before the
 * highest credited one that got no credit were lost).
 */
static inline __u32 fp_loop_in_flight(__u32 seq_next, __u32 last_credited)
{
	__s32 n = (__s32)(seq_next - last_credited - 1);

	return n > 0 ? (__u32)n : 0;
}

/* Packets lost between the credited @last and the credit @seq just taken
 * (the replay window refuses a jump of FP_REPLAY_JUMP or more): 0 for a
 * reordered or first credit. */
static inline __u32 fp_loop_lost(__u32 last, __u32 seq, int first)
{
	__s32 d = (__s32)(seq - last);

	return !first && d > 1 ? (__u32)d - 1 : 0;
}

/* A loop's window: @rate_pps over the round trip @rtt_ns, one packet at
 * least (a loop of none is over), FP_LOOP_WIN_MAX at most. */
#define FP_LOOP_WIN_MAX 4096U

static inline __u32 fp_loop_window(__u64 rate_pps, __u64 rtt_ns)
{
	__u64 w;

	if (rtt_ns > NSEC_PER_SEC * 10)
		rtt_ns = NSEC_PER_SEC * 10;
	w = rate_pps * rtt_ns / NSEC_PER_SEC;
	if (!w)
		return 1;
	return w < FP_LOOP_WIN_MAX ? (__u32)w : FP_LOOP_WIN_MAX;
}

/* How many emulation packets the credit just taken becomes, with
 * @in_flight of the loop still out and a window @win: 2 below it, 1 at
 * it, 0 above it. */
static inline __u32 fp_loop_emit(__u32 in_flight, __u32 win)
{
	if (in_flight + 2 <= win)
		return 2;
	return in_flight + 1 <= win ? 1 : 0;
}

/* A new loop's first packets, from the pacer (nothing else carries them):
 * the window of a new flow's rate (fp_rc_start()) over @rtt_ns,
 * FP_LOOP_SEEDS_MAX at most, which fit the emulation queue's 8 twice; the
 * loop grows from there. */
#define FP_LOOP_SEEDS_MAX 16U

static inline __u32 fp_loop_seeds(__u64 start_pps, __u64 rtt_ns)
{
	__u32 w = fp_loop_window(start_pps, rtt_ns);

	return w < FP_LOOP_SEEDS_MAX ? w : FP_LOOP_SEEDS_MAX;
}

/* What the kernel's loop needs of the pacer, written by it at its start
 * and at each scan, cleared when it stops (map fp_loop_cfg): without it
 * (r_max 0) a credit ends its loop. */
struct fp_loop_cfg {
	__u64 r_max;	   /* a flow's emulation packets a second, fp_emu_pps_max() */
	__u64 host_pps;	   /* all flows' together: r_max of each link the pacer serves */
	__u64 interval_ns; /* the rate control's shortest interval: the longest RTT of
			    * the flows the pacer saw active (its own interval) */
	struct fp_rc_params rc;
};

/*
 * The credit ring of a ledger: credits waiting for their usable time, as
 * usable-at stamps (us, low 32 bits, never 0: 0 is an empty slot).
 * Producers (credits arriving, on any CPU) reserve a slot by an atomic
 * add to head and then fill it; the consumer (the CC, under the socket
 * lock) takes from tail the credits whose time has come and stops at a
 * reserved slot not yet filled.  Counters are free-running: head - tail
 * is the fill, correct across their wrap.  A producer refuses a credit
 * (the caller counts it wasted) once the ring holds FP_RING -
 * FP_RING_SLACK: the slack is for producers that passed that check at the
 * same time, so a reservation never reaches a slot still in use.  The
 * ring bounds how far ahead a flow banks credits.
 */
#define FP_RING	      1024U /* power of two */
#define FP_RING_SLACK 64U   /* more than the CPUs that may add at once */

struct fp_ring {
	__u32 head;
	__u32 tail;
	__u32 stale; /* credits before this one are stale (fp_ring_mark()) */
	__u32 pad;
	__u32 at[FP_RING];
};

/*
 * Ring stamps are 32-bit microseconds: a credit left in the ring of a flow
 * idle for over 2^31 us (35 minutes) compares as in the future and blocks
 * every later one.  So a credit that comes after FP_RING_STALE_NS without
 * one marks the credits before it stale (their time is long past: T_wait
 * is at most seconds), and the CC drops them before it takes any
 * (fp_ring_drop_stale()); a release for a flow whose oldest credit is
 * stale wakes the CC to do it (fp_ring_due()).
 */
#define FP_RING_STALE_NS (60ULL * 1000000000ULL)

/* Are the ring's oldest credits stale: is @r->stale at most a ring ahead
 * of the tail?  (Kept at the tail otherwise, it never drifts a wrap of
 * the counters away.) */
static inline int fp_ring_is_stale(const struct fp_ring *r)
{
	return r->stale - r->tail - 1 < FP_RING;
}

/* The producer's mark, before it puts a credit that came @gap_ns after
 * the flow's last one: all before it stale after a long gap, else none. */
static inline void fp_ring_mark(struct fp_ring *r, __u64 gap_ns)
{
	if (gap_ns > FP_RING_STALE_NS)
		r->stale = r->head;
	else if (!fp_ring_is_stale(r))
		r->stale = r->tail;
}

static inline __u32 fp_ring_fill(const struct fp_ring *r)
{
	return r->head - r->tail;
}

static inline __u32 fp_stamp(__u64 ns)
{
	__u32 us = (__u32)(ns / 1000);

	return us ? us : 1;
}

/*
 * The ledger of one flow (map fp_ledgers, LRU, keyed by the flow's
 * 4-tuple from the sender's side; freed when the flow closes).  A ledger
 * belongs to the socket that made it (its namespace and secret): a flow
 * of another namespace with the same 4-tuple neither replaces nor frees
 * it, and runs as Reno (ledger_busy).  Written
 * by the CC (demand, phase, calibration), the sender's TC ingress
 * (credits in) and egress (credits spent); each field has one writer,
 * but the ingress, on any CPU, adds to its counters and the ring
 * atomically.  The pacer only reads it.
 */
enum fp_phase {
	FP_PHASE_PRECREDIT, /* first RTT: unscheduled data at the initial window */
	FP_PHASE_CREDIT,    /* window and pacing follow the credits */
	FP_PHASE_FALLBACK,  /* no credit came: a conventional CC (Reno) */
	FP_PHASE_DONE,	    /* the flow closed; the pacer forgets it */
};

struct fp_key {
	__u32 saddr[4]; /* IPv6, IPv4 as v4-mapped; network order */
	__u32 daddr[4];
	__u16 sport; /* network order */
	__u16 dport;
	/* the link of a flow to a link-local IPv6 address (fe80::/10): the
	 * ifindex of the sender's interface, which the pacer needs to send
	 * on it; 0 for any other flow.  (The receiver's batch table puts the
	 * packet's secret here instead: tc/flashpass.bpf.c.) */
	__u32 scope;
};

/* Is IPv6 address @a (network order) link-local, fe80::/10? */
static inline int fp_addr_link_local(const __u32 *a)
{
	const __u8 *b = (const __u8 *)a;

	return b[0] == 0xfe && (b[1] & 0xc0) == 0x80;
}

/* Scope @k by interface @ifindex if its remote end is link-local. */
static inline void fp_key_scope(struct fp_key *k, __u32 ifindex)
{
	k->scope = fp_addr_link_local(k->daddr) ? ifindex : 0;
}

/*
 * The flow's last pure ACK as it came in, from which the sender's TC
 * ingress makes each credit an ACK of nothing new (tunable credit_ack):
 * the kernel then runs the CC and its transmit path when the credit
 * comes, not at the next real ACK.  Fields in network order, as on the
 * wire; @ver is odd while the ingress writes them (a flow's ACKs can come
 * in on two CPUs at once), 0 before the first.
 */
struct fp_ack_tpl {
	__u32 ver;
	__u32 seq;
	__u32 ack;
	__u32 tsval;
	__u32 tsecr;
	__u16 window;
	__u8 ts; /* it had the timestamps option, first, as Linux sends it */
	__u8 pad;
};

/* A flow's credit loop (tunable loop), written by the sender's TC: the
 * egress numbers the packets, the ingress the rest (counters by atomic
 * adds; the rate control by the one credit that ends an interval). */
struct fp_loop {
	__u32 seq; /* the next emulation packet's number */
	__u32 pad;
	__u64 rtt_ns;	 /* the loop's round trip, smoothed (fp_pace_smooth()) */
	__u64 iv_end_ns; /* the rate control's interval ends */
	__u64 iv_credited;
	__u64 iv_lost;
	__u64 sent;  /* emulation packets credits became */
	__u64 ended; /* credits that became none */
	__u64 lost;  /* emulation packets lost (fp_loop_lost()) */
	__u64 tat;   /* its packets' next due time at r_max (fp_gcra_take()) */
	struct fp_rc rc;
};

struct fp_ledger {
	/* the CC */
	__u64 start_ns;
	__u32 secret;
	__u32 phase;   /* enum fp_phase */
	__u32 sack_ok; /* the flow negotiated SACK: credit_ack may run */
	__u32 pad;
	__u64 netns; /* the network namespace of the socket that owns it (its cookie) */
	/* at each ACK: what the socket sent and had acknowledged
	 * (fp_ack_plausible()), and the peer's next sequence number */
	__u32 snd_una;
	__u32 snd_nxt;
	__u32 rcv_nxt;
	__u32 pad4;
	__u64 demand_segs; /* write_seq - snd_nxt, in segments */
	__u64 min_rtt_ns;
	__u64 t_wait_ns;
	__u64 srtt_ns;
	__u64 usable;	   /* credits whose usable time came (taken from the ring) */
	__u64 idle_wasted; /* of those, not spent in time: nothing to send, or
			    * beyond the bank */
	/* the sender's TC egress */
	__u64 credits_used; /* segments sent under a credit */
	__u32 seq_out;	    /* the end of the highest data sent (snd_nxt, as sent) */
	__u32 pad3;
	__u64 emu_first_ns; /* when the flow's first emulation packet left */
	/* the sender's TC ingress */
	__u64 credits_recv;
	__u64 ring_wasted; /* credits refused by a full ring */
	__u64 last_credit_ns;
	/* the sender's TC egress: the pacer's releases made ACKs, each of
	 * which lets the CC take one usable credit (release), and the
	 * stamp of the last (fp_expire_before()) */
	__u64 grants;
	__u32 rel_stamp;
	__u32 pad2;
	/* the CC: grants it has acted on (a grant with no credit due then
	 * lapses), and credits whose release never came */
	__u64 grants_seen;
	__u64 expired;
	/* the replay window (fp_replay_check()), one word for the
	 * compare-and-swap: last_seq is the highest sequence number
	 * credited, the pacer's loss measure */
	union {
		struct {
			__u32 last_seq;
			__u32 seen;
		};
		__u64 replay_word;
	};
	struct fp_loop loop;
	/* the flow's last pure ACK, from the sender's TC ingress */
	struct fp_ack_tpl ack;
	struct fp_ring ring;
};

/* Usable credits not spent yet: what the window may let out. */
static inline __u64 fp_spare(const struct fp_ledger *l)
{
	__u64 spent = l->credits_used + l->idle_wasted;

	return l->usable > spent ? l->usable - spent : 0;
}

/* Bank a credit usable at stamp @at (fp_stamp()); 0 when the ring is
 * full. */
static inline int fp_ring_put(struct fp_ring *r, __u32 at)
{
	__u32 slot;

	if (r->head - r->tail >= FP_RING - FP_RING_SLACK)
		return 0;
	slot = __sync_fetch_and_add(&r->head, 1);
	r->at[slot & (FP_RING - 1)] = at ? at : 1;
	return 1;
}

/*
 * The pacer's view of a flow (map fp_emu, same key; written by the
 * emulation pacer only, read by ccload flashpass flows).
 */
struct fp_emu {
	__u64 sent; /* emulation packets sent */
	__u64 over; /* of which over-provisioned (Not-ECT) */
	__u64 lost; /* sent - credited, over the closed intervals */
	__u64 rate; /* packets per second */
	__u64 updated_ns;
	__u32 seq;	 /* next sequence number */
	__u32 w;	 /* the rate control's weight, 1/1024 */
	__u32 last_loss; /* of the last interval, 1/1024 */
	__u32 decreases;
};

/* Take the oldest ring credit if it is usable at @now_us: its stamp, else
 * 0 (the ring is empty, its oldest slot reserved but not filled yet, or
 * not due). */
static inline __u32 fp_ring_take_one(struct fp_ring *r, __u32 now_us)
{
	__u32 at;

	if (r->tail == r->head)
		return 0;
	at = r->at[r->tail & (FP_RING - 1)];
	if (!at || !fp_after_eq(now_us, at))
		return 0;
	r->at[r->tail & (FP_RING - 1)] = 0;
	r->tail++;
	return at;
}

/* The oldest ring credit's stamp: what the next take looks at (0: none,
 * or its slot not filled yet). */
static inline __u32 fp_ring_oldest(const struct fp_ring *r)
{
	return r->tail == r->head ? 0 : r->at[r->tail & (FP_RING - 1)];
}

/* Is the oldest ring credit usable at @now_us, or stale?  (Without
 * taking it.) */
static inline int fp_ring_due(const struct fp_ring *r, __u32 now_us)
{
	__u32 at = fp_ring_oldest(r);

	return at && (fp_ring_is_stale(r) || fp_after_eq(now_us, at));
}

/* Drop the oldest ring credit if it is stale (a slot reserved but not
 * filled yet is left to its producer): 1, else 0. */
static inline int fp_ring_drop_one(struct fp_ring *r)
{
	__u32 slot = r->tail & (FP_RING - 1);

	if (r->tail == r->head || !fp_ring_is_stale(r) || !r->at[slot])
		return 0;
	r->at[slot] = 0;
	r->tail++;
	return 1;
}

/*
 * With release, the pacer sends a flow's releases in the order of their
 * credits' times, and drops those it would send more than PACER_LAG_MAX
 * late (a stall: their link time has passed).  So when the release for
 * the credit usable at @rel_stamp comes, a credit usable earlier has no
 * release coming: it expires (taking it would put every later segment
 * one credit behind its time, for good).  The ring's credits usable
 * before the stamp this returns are those; the slack covers the
 * rounding of the two stamps to us and a T_wait that moved a little
 * between an emulation packet and its credit, and is below one packet
 * gap of the emulation at 100 Mbit/s (130 us).
 */
#define FP_EXPIRE_SLACK_US 100U

static inline __u32 fp_expire_before(__u32 rel_stamp)
{
	return rel_stamp - FP_EXPIRE_SLACK_US - 1;
}

/*
 * What a flow's banked credits say of its emulation packet whose credit
 * would be usable @s us from now (T + T_wait, T in whole us as on the
 * wire): with release the ring keeps each credit until its usable time,
 * so the credits still ahead, @off[0..@n) us from now in ascending order,
 * hold that one if it came (within FP_EXPIRE_SLACK_US: T_wait may move a
 * little between a packet and its credit).  None there while a credit of
 * a packet sent FP_RING_NEWER_US or more later is banked: it was lost, as
 * the emulation queue keeps a flow's packets in order.  Else not known
 * yet.  Credits of other packets within the slack read as this one's: a
 * lost packet taken for credited costs a release, never a credit.
 */
#define FP_RING_NEWER_US 1000U

enum fp_ring_verdict { FP_RING_UNKNOWN, FP_RING_CREDITED, FP_RING_LOST };

static inline enum fp_ring_verdict fp_ring_says(const __u32 *off, __u32 n, __u32 s)
{
	__u32 lo = 0, hi = n, mid;

	/* the first credit no more than the slack before @s */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((__u64)off[mid] + FP_EXPIRE_SLACK_US < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && off[lo] <= (__u64)s + FP_EXPIRE_SLACK_US)
		return FP_RING_CREDITED;
	if (n && off[n - 1] >= (__u64)s + FP_RING_NEWER_US)
		return FP_RING_LOST;
	return FP_RING_UNKNOWN;
}

/*
 * How long after its packet left a credit that has not come is overdue,
 * in us: the path's RTT and a quarter more (@rtt_ns: the flow's smoothed
 * RTT, which holds the data queue too), the time of FP_OVERDUE_PKTS
 * emulation packets at @r_max (the emulation queue's 8, twice over) and
 * FP_OVERDUE_MIN_US.  What a flow sends in that time bounds what it has
 * in flight (fp_emu_in_flight()).
 */
#define FP_OVERDUE_PKTS	  16U
#define FP_OVERDUE_MIN_US 1000U

static inline __u32 fp_credit_overdue_us(__u64 rtt_ns, __u64 r_max)
{
	__u64 us = rtt_ns / 1000 + rtt_ns / 4000 + FP_OVERDUE_MIN_US;

	us += r_max ? FP_OVERDUE_PKTS * USEC_PER_SEC / r_max : 0;
	return us > 0x7fffffffULL ? 0x7fffffffU : (__u32)us;
}

/*
 * A flow's emulation packets in flight, for the marking rule
 * (fp_over_provisioned()): sent, not credited, not counted lost; at most
 * what it sends at @rate in a credit's overdue time (@overdue_us,
 * fp_credit_overdue_us()).  The loss count moves only with credits, so
 * unbounded, a flow whose packets all died in the crowd of a start
 * counted every one in flight; once that covered its demand it sent the
 * rest over-provisioned, which the emulation queue drops first, got no
 * credit and fell back to Reno in the shallow buffer.
 */
static inline __u64 fp_emu_in_flight(__u64 sent, __u64 credited, __u64 lost, __u64 rate,
				     __u32 overdue_us)
{
	__u64 out = credited + lost < sent ? sent - credited - lost : 0;
	__u64 cap = rate * overdue_us / USEC_PER_SEC + 1;

	return out < cap ? out : cap;
}

/* How long the oldest ring credit has been usable at @now_us, in us (0:
 * none is due): with release, how far the flow's segments leave behind
 * their credits' times (a release takes one credit, the oldest). */
static inline __u32 fp_ring_lag_us(const struct fp_ring *r, __u32 now_us)
{
	__u32 at = fp_ring_oldest(r);

	return at && fp_after_eq(now_us, at) ? now_us - at : 0;
}

/* Take every ring credit usable at @now_us, at most @max; returns how
 * many.  (The CC does the same one bpf_loop() step per credit.) */
static inline __u32 fp_ring_take(struct fp_ring *r, __u32 now_us, __u32 max)
{
	__u32 n = 0;

	while (n < max && fp_ring_take_one(r, now_us))
		n++;
	return n;
}

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

/* Stats of bpf_flashpass, after the common slots (lib/stats.h). */
#define FP_STATS(X, P)                                                                                \
	X(P, PHASE_CREDIT, phase_credit, COUNTER, "flows whose first credit came: credit phase")      \
	X(P, FALLBACKS, fallbacks, COUNTER, "flows that got no credit in time and run as Reno")       \
	X(P, LEDGER_LOST, ledger_lost, COUNTER,                                                       \
	  "flows whose ledger was gone (evicted from a full table): run as Reno")                     \
	X(P, LEDGER_BUSY, ledger_busy, COUNTER,                                                       \
	  "flows whose 4-tuple a flow of another network namespace holds a ledger for: run as Reno")  \
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
