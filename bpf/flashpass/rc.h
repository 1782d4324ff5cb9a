/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_flashpass's emulation rate (bpf/flashpass.h): the emulation queue's
 * rate, expected credits and over-provisioning, a flow's demand, the rate
 * control (the project's Algorithm 1), the gaps' jitter, and the credit
 * loop's window.  Run by the pacer for the flows it paces and by the
 * sender's TC ingress for a flow whose loop is in the kernel (loop=1);
 * the CC reads the demand and over-provisioning parts.
 */
#ifndef CCSUITE_FLASHPASS_RC_H
#define CCSUITE_FLASHPASS_RC_H

#include "flashpass/wire.h"

#define FP_ONE 1024U /* fixed point: loss fractions and the weight w */

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
	__u32 no_over;	/* no over-provisioning: fp_emu_wanted() */
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
 * Whether a flow sends the emulation packet that is due, @over its
 * marking: with over-provisioning (the paper's, the default) always, an
 * over-provisioned one too, which takes only emulation bandwidth the
 * normal ones leave; without (@p->no_over), only while the expected
 * credits fall short of the demand, so that a finishing flow whose last
 * credits are lost waits for new emulation packets of its own.
 */
static inline int fp_emu_wanted(const struct fp_rc_params *p, int over)
{
	return !over || !p->no_over;
}

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
 * frees a slot, and the slower flows find it full: the fastest sees the
 * least loss, and the rate control gives it the queue.  ExpressPass
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

#endif /* CCSUITE_FLASHPASS_RC_H */
