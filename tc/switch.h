/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test-network switch: the output queue of the bottleneck egress.
 *
 * Every packet is judged against the queue it finds (see below for which):
 *   - drop when it would push the queue past its class's limit
 *     (class 0's limit is the buffer; other classes may have lower ones,
 *     for selective dropping);
 *   - else CE-mark it when it is ECT and the queue already exceeds K;
 *   - else pass it and add its length to the queue.
 * A tbf qdisc after the program realizes the rate with a limit above the
 * buffer, so the program decides every drop.
 *
 * Which queue is judged (sw_config.queue):
 *   SW_QUEUE_QDISC    the real one: the backlog of the port's root qdisc
 *                     (tbf), read at each packet.  When tbf falls behind
 *                     its rate (late timer wake-ups on a loaded machine),
 *                     the switch sees the queue that really built up.
 *   SW_QUEUE_VIRTUAL  a byte count drained at the configured rate on the
 *                     nanosecond clock.  It diverges from the real queue
 *                     when tbf is late (real > virtual) or bursts
 *                     (virtual > real); for ports whose root qdisc also
 *                     holds a delay line (netem under tbf), where the
 *                     qdisc's backlog is not a queue.
 *
 * Shared by tc/switch.bpf.c, ccload and the host unit tests.
 */
#ifndef CCSUITE_SWITCH_H
#define CCSUITE_SWITCH_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#include <linux/bpf.h> /* struct bpf_spin_lock */
#endif
#include "kdefs.h"

#define SW_CLASSES 4
#define SW_DSCPS   64

#define SW_RATE_MIN   1000000ULL     /* 1 Mbit/s */
#define SW_RATE_MAX   10000000000ULL /* 10 Gbit/s */
#define SW_BUFFER_MAX (64U << 20)    /* 64 MiB */
#define SW_BUFFER_MIN 1514U	     /* one full-sized Ethernet frame */

enum sw_queue { SW_QUEUE_VIRTUAL, SW_QUEUE_QDISC };

#define SW_NO_REAL (~0ULL) /* sw_packet()'s @real: no qdisc backlog to read */

struct sw_config {
	__u64 rate_bps;		       /* link rate, bits/s */
	__u32 buffer;		       /* bytes */
	__u32 ecn_k;		       /* marking threshold, bytes; 0 = no marking */
	__u32 class_limit[SW_CLASSES]; /* per-class drop threshold, bytes (<= buffer) */
	__u8 dscp_class[SW_DSCPS];     /* traffic class of each DSCP value */
	__u32 queue;		       /* enum sw_queue */
	/* FlashPass's emulation queue (sw_emu_packet), for UDP to emu_port;
	 * emu_port 0: none, and such packets are data like any other */
	__u32 emu_port;
	__u64 emu_rate_bps; /* its drain rate */
	__u32 emu_buffer;   /* bytes, SW_EMU_FRAME per packet */
	__u32 emu_over;	    /* Not-ECT (over-provisioned) ones dropped above this */
	/* the class of the port's qdisc that the passed ones join (written to
	 * skb->priority, which htb and prio read as a class id), or 0: none */
	__u32 emu_class;
	/* 1..99: the emulation yields to class 0's data, down to this % of
	 * its rate (sw_emu_rate()); 0: it never yields, as in the paper */
	__u32 emu_keep_pct;
};

/* An emulation packet in the emulation queue: a minimum Ethernet frame on
 * the wire (FP_FRAME_WIRE in bpf/flashpass/wire.h), whatever its length here. */
#define SW_EMU_FRAME  84U
/* the state map's entries */
#define SW_STATE_DATA 0
#define SW_STATE_EMU  1

struct sw_class_stats {
	__u64 pkts; /* enqueued (passed or marked) */
	__u64 bytes;
	__u64 marked; /* CE-marked */
	__u64 dropped;
	__u64 dropped_bytes;
	__u64 not_ect_over_k; /* passed unmarked above K: not ECN-capable */
	/* the queue right after a packet of this class joined it, at most:
	 * which classes the queue's peaks are made of (a class above its
	 * limit joins no queue that high) */
	__u64 max_backlog;
};

struct sw_state {
	struct bpf_spin_lock lock;
	__u32 pad;
	__u64 backlog; /* bytes queued after the last packet */
	__u64 last_ns; /* clock of the last update */
	__u64 busy_ns; /* time observed since the first packet */
	__u64 area;    /* integral of backlog over time, byte*us */
	__u64 max_backlog;
	__u64 drain_rem; /* bit*ns the link sent beyond whole bytes */
	__u64 area_rem;	 /* 2*byte*ns beyond whole byte*us */
	__u64 malformed; /* IP frames with a bad or cut header: class 0, Not-ECT */
	__u64 no_real;	 /* --queue qdisc packets judged on the virtual queue: the
				 * port's root qdisc is not tbf */
	__u64 reset_gen; /* the sw_ctl.reset_gen the counters start from */
	/* SW_STATE_DATA: class 0's bytes passed, never reset */
	__u64 other_bytes;
	/* SW_STATE_EMU, with emu_keep_pct: class 0's rate (bits/s, a moving
	 * average) and where its current window started (sw_emu_rate()) */
	__u64 other_bps;
	__u64 win_ns;
	__u64 win_bytes;
	struct sw_class_stats cls[SW_CLASSES];
};

/* Written by ccload only (map sw_ctl): a counter reset is a request the
 * program carries out under its lock, as a reader-side rewrite of
 * sw_state would put back a queue clock the program had moved on. */
struct sw_ctl {
	__u64 reset_gen;
};

/* stats --reset: the counters start again from @gen; the queue, its
 * clock and the drain remainder stay (the real queue still holds it). */
static inline void sw_reset_counters(struct sw_state *s, __u64 gen)
{
	__builtin_memset(s->cls, 0, sizeof(s->cls));
	s->busy_ns = 0;
	s->area = 0;
	s->area_rem = 0;
	s->malformed = 0;
	s->no_real = 0;
	s->max_backlog = s->backlog;
	s->reset_gen = gen;
}

enum sw_verdict { SW_PASS, SW_MARK, SW_DROP };

/* Bytes the link sends in @dt_ns at @rate_bps, without 64-bit overflow for
 * rates up to SW_RATE_MAX. */
static inline __u64 sw_bytes_in(__u64 dt_ns, __u64 rate_bps)
{
	__u64 secs = dt_ns / NSEC_PER_SEC, rest = dt_ns % NSEC_PER_SEC;

	return secs * (rate_bps / 8) + rest * rate_bps / (8 * NSEC_PER_SEC);
}

/* Nanoseconds to send @bytes (bytes <= SW_BUFFER_MAX). */
static inline __u64 sw_ns_for(__u64 bytes, __u64 rate_bps)
{
	if (!rate_bps)
		return 0;
	return bytes * 8 * NSEC_PER_SEC / rate_bps;
}

/*
 * Bytes sent in @dt_ns (< the time to empty a full buffer), carrying the
 * fraction of a byte to the next call in *@rem: packets a few hundred ns
 * apart must not each lose their fraction, or the virtual queue drains
 * slower than the link.
 */
static inline __u64 sw_drain(__u64 dt_ns, __u64 rate_bps, __u64 *rem)
{
	__u64 secs = dt_ns / NSEC_PER_SEC, rest = dt_ns % NSEC_PER_SEC;
	__u64 num = rest * rate_bps + secs * (rate_bps % 8) * NSEC_PER_SEC + *rem;

	*rem = num % (8 * NSEC_PER_SEC);
	return secs * (rate_bps / 8) + num / (8 * NSEC_PER_SEC);
}

/* Add (b0 + b1) / 2 * t_ns to the byte*us integral, carrying what is left
 * below 1 byte*us in *@rem (short steps must not round to nothing). */
static inline void sw_area_add(struct sw_state *s, __u64 b0, __u64 b1, __u64 t_ns)
{
	__u64 sum = b0 + b1; /* < 2^27 for SW_BUFFER_MAX */
	__u64 lo = sum * (t_ns % 2000) + s->area_rem;

	s->area += sum * (t_ns / 2000) + lo / 2000;
	s->area_rem = lo % 2000;
}

/* Move the clock to @now and return the time since the last packet: 0 for
 * the first packet and for a clock that did not advance (another CPU's
 * packet got in first), which then leave the queue as it is. */
static inline __u64 sw_clock(struct sw_state *s, __u64 now)
{
	__u64 dt = 0;

	if (s->last_ns && now > s->last_ns) {
		dt = now - s->last_ns;
		s->busy_ns += dt;
	}
	if (now > s->last_ns)
		s->last_ns = now;
	return dt;
}

/* SW_QUEUE_VIRTUAL: drain the queue to @now, adding the backlog's time
 * integral (the queue falls linearly until empty). */
static inline void sw_advance(struct sw_state *s, __u64 now, __u64 rate_bps)
{
	__u64 dt = sw_clock(s, now), t_empty, b0 = s->backlog, b1, t;

	if (!dt || !b0)
		return;
	t_empty = sw_ns_for(b0, rate_bps);
	if (dt >= t_empty) {
		b1 = 0;
		t = t_empty;
		s->drain_rem = 0;
	} else {
		__u64 sent = sw_drain(dt, rate_bps, &s->drain_rem);

		b1 = sent < b0 ? b0 - sent : 0;
		t = dt;
	}
	sw_area_add(s, b0, b1, t);
	s->backlog = b1;
}

/* SW_QUEUE_QDISC: the queue is @real bytes at @now.  Between two packets
 * it went from the backlog left after the previous one to @real, taken as
 * linear for the time integral. */
static inline void sw_observe(struct sw_state *s, __u64 now, __u64 real)
{
	__u64 dt = sw_clock(s, now);

	if (dt)
		sw_area_add(s, s->backlog, real, dt);
	s->backlog = real;
}

static inline enum sw_verdict sw_decide(const volatile struct sw_config *c, __u64 backlog,
					__u32 len, __u32 cls, int ect)
{
	__u32 limit;

	if (cls >= SW_CLASSES)
		cls = 0;
	limit = c->class_limit[cls];
	if (!limit || limit > c->buffer)
		limit = c->buffer;
	if (backlog + len > limit)
		return SW_DROP;
	if (ect && c->ecn_k && backlog > c->ecn_k)
		return SW_MARK;
	return SW_PASS;
}

/*
 * Judge one frame of @len bytes at @now and account for it; the caller
 * holds the lock.  A GSO frame of @segs segments is judged whole (its
 * segments share one IP header until they are cut: marked or dropped
 * together) and counts as @segs packets.
 * @real is the root qdisc's backlog (used with SW_QUEUE_QDISC), or
 * SW_NO_REAL when the port has no such queue to read (its root is not
 * tbf): that packet is judged on the virtual queue and counted in no_real.
 * @c is volatile because in BPF it is the load-time .rodata: the compiler
 * must not fold the values it was compiled with.
 */
static inline enum sw_verdict sw_packet_segs(struct sw_state *s, const volatile struct sw_config *c,
					     __u64 now, __u64 real, __u32 len, __u32 cls, int ect,
					     __u32 segs)
{
	struct sw_class_stats *cs;
	enum sw_verdict v;

	if (cls >= SW_CLASSES)
		cls = 0;
	cs = &s->cls[cls];
	if (c->queue == SW_QUEUE_QDISC && real != SW_NO_REAL) {
		sw_observe(s, now, real);
	} else {
		if (c->queue == SW_QUEUE_QDISC)
			s->no_real++;
		sw_advance(s, now, c->rate_bps);
	}
	v = sw_decide(c, s->backlog, len, cls, ect);
	if (v == SW_DROP) {
		cs->dropped += segs;
		cs->dropped_bytes += len;
		return v;
	}
	if (v == SW_MARK)
		cs->marked += segs;
	else if (c->ecn_k && s->backlog > c->ecn_k)
		cs->not_ect_over_k += segs;
	cs->pkts += segs;
	cs->bytes += len;
	if (!cls)
		s->other_bytes += len;
	s->backlog += len;
	if (s->backlog > s->max_backlog)
		s->max_backlog = s->backlog;
	if (s->backlog > cs->max_backlog)
		cs->max_backlog = s->backlog;
	return v;
}

/* sw_emu_rate()'s measuring window of class 0's rate: a few of FlashPass's
 * shortest round trips here, short against its rate control's interval */
#define SW_YIELD_WINDOW_NS     5000000ULL
/* a window this long (no emulation packet came for that long) is the
 * estimate, not one step of the average; and beyond a second its bytes
 * are taken per millisecond (2^64 bit*ms/ms is 2^19 s of a full 10 Gbit/s
 * link) */
#define SW_YIELD_RESET_NS      (4 * SW_YIELD_WINDOW_NS)
#define SW_YIELD_WINDOW_MAX_NS 1000000000ULL

/*
 * The emulation queue's drain rate at @now.  The emulation stands for the
 * link, so credits pay for all of it: data that sends no emulation
 * (class 0: everything but FlashPass's, whose scheduled data then needs a
 * class of its own) gets only what the credited senders leave, and a
 * shared bottleneck goes to FlashPass (ExpressPass meets the same with
 * TCP).  With emu_keep_pct, the emulation gives up the share of the link
 * class 0 took over the last windows (@other_bytes: class 0's bytes so
 * far), down to emu_keep_pct of its rate: two kinds of sender each get
 * at least what the other leaves, and FlashPass at least emu_keep_pct
 * (beside a loss-based CC, which takes what it is given, about that).
 * A moving average over windows of SW_YIELD_WINDOW_NS, gain 1/4; a window
 * of SW_YIELD_RESET_NS or more (no emulation for that long) replaces it.
 */
static inline __u64 sw_emu_rate(struct sw_state *e, const volatile struct sw_config *c,
				__u64 other_bytes, __u64 now)
{
	__u64 dt, bytes, r, keep;

	if (!c->emu_keep_pct || c->emu_keep_pct >= 100)
		return c->emu_rate_bps;
	/* the first packet, a clock behind the window's (another CPU's), or
	 * a count behind it (read before another CPU's, whose clock was
	 * earlier, closed the window): a window starts here */
	if (!e->win_ns || now < e->win_ns || other_bytes < e->win_bytes) {
		e->win_ns = now;
		e->win_bytes = other_bytes;
	}
	dt = now - e->win_ns;
	if (dt >= SW_YIELD_WINDOW_NS) {
		bytes = other_bytes - e->win_bytes;
		if (dt > SW_YIELD_WINDOW_MAX_NS)
			r = bytes * 8 / (dt / 1000000) * 1000;
		else /* < 2^64: bytes <= a second at SW_RATE_MAX, and a burst */
			r = bytes * 8 * 1000000 / (dt / 1000);
		e->other_bps = dt >= SW_YIELD_RESET_NS ? r : (3 * e->other_bps + r) / 4;
		e->win_ns = now;
		e->win_bytes = other_bytes;
	}
	keep = c->emu_rate_bps * c->emu_keep_pct / 100;
	if (e->other_bps >= c->rate_bps)
		return keep;
	/* emu_rate_bps (< 2^30) times a rate below rate_bps (<= 2^34) */
	r = c->emu_rate_bps - c->emu_rate_bps * e->other_bps / c->rate_bps;
	return r > keep ? r : keep;
}

/*
 * FlashPass's emulation queue (docs/flashpass.md): a virtual
 * queue drained at emu_rate_bps, holding emu_buffer bytes of emulation
 * packets; above emu_over, Not-ECT (over-provisioned) ones are dropped
 * and only ECT (normal) ones admitted.  Class 0 counts the Not-ECT ones,
 * class 1 the ECT ones.  Never marks.  @other_bytes: the data queue's
 * (sw_emu_rate()).  The caller holds the lock.
 */
static inline enum sw_verdict sw_emu_packet(struct sw_state *s, const volatile struct sw_config *c,
					    __u64 now, int ect, __u64 other_bytes)
{
	struct sw_class_stats *cs = &s->cls[ect ? 1 : 0];
	__u32 limit = ect ? c->emu_buffer : c->emu_over;

	sw_advance(s, now, sw_emu_rate(s, c, other_bytes, now));
	if (s->backlog + SW_EMU_FRAME > limit) {
		cs->dropped++;
		cs->dropped_bytes += SW_EMU_FRAME;
		return SW_DROP;
	}
	cs->pkts++;
	cs->bytes += SW_EMU_FRAME;
	s->backlog += SW_EMU_FRAME;
	if (s->backlog > s->max_backlog)
		s->max_backlog = s->backlog;
	return SW_PASS;
}

/* One frame of one packet. */
static inline enum sw_verdict sw_packet(struct sw_state *s, const volatile struct sw_config *c,
					__u64 now, __u64 real, __u32 len, __u32 cls, int ect)
{
	return sw_packet_segs(s, c, now, real, len, cls, ect, 1);
}

#endif /* CCSUITE_SWITCH_H */
