/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_flashpass's ledger (bpf/flashpass.h): one per flow, shared by the
 * CC, the sender's TC programs and the pacer through map fp_ledgers: its
 * key, the credit ring and its stamps, the ACK template, the loop's state,
 * and the pacer's view of a ledger (what its ring says of a packet, when
 * a credit is overdue).
 */
#ifndef CCSUITE_FLASHPASS_LEDGER_H
#define CCSUITE_FLASHPASS_LEDGER_H

#include "flashpass/rc.h"

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
 * network namespace and 4-tuple from the sender's side; freed when the
 * flow closes).  A ledger belongs to the socket that made it (its
 * secret): another namespace's flow with the same 4-tuple has a ledger
 * of its own, and its TC programs find only that.  Written by the CC
 * (demand, phase, calibration), the sender's TC ingress (credits in) and
 * egress (credits spent); each field has one writer, but the ingress, on
 * any CPU, adds to its counters and the ring atomically.  The pacer only
 * reads it.
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
	/* the network namespace (its cookie) of the flow's socket; in a TC
	 * program, that of the device the packet is on (fp_skb_netns()) */
	__u64 netns;
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
	/* at init and each ACK (fp_ledger_seq()), between two increments of
	 * sock_ver (odd while it writes, so that a reader takes no mix of
	 * two ACKs' values): what the socket sent and had acknowledged
	 * (fp_ack_plausible()), the peer's next sequence number, its window
	 * as its header carries it (snd_wnd >> snd_wscale; 0 at init, where
	 * snd_wnd is the handshake's, unscaled), the peer's timestamp TCP
	 * holds (ts_recent; valid with ts_ok) */
	__u32 snd_una;
	__u32 snd_nxt;
	__u32 rcv_nxt;
	__u32 wnd_raw;
	__u32 ts_recent;
	__u32 ts_ok;
	__u32 sock_ver;
	__u32 pad5;
	/* the socket's cookie, once it has one (the egress makes it): what
	 * the egress knows the flow's own segments by */
	__u64 sk_cookie;
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
	/* of the socket's own segments (sk_cookie): the highest ACK sent, TCP's
	 * rcv_wup (with FP_OUT_ACK in out_ok), and the newest timestamp echo,
	 * its ts_recent then (FP_OUT_TS) */
	__u32 rcv_out;
	__u32 tsecr_out;
	__u32 out_ok;
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

#define FP_OUT_ACK 1U
#define FP_OUT_TS  2U

/* A ledger's socket state as one ACK left it (fp_ledger_seq()), and what
 * the egress saw the socket send, for fp_ack_now(). */
struct fp_sock_now {
	__u32 snd_una, rcv_nxt, wnd_raw, ts_recent, ts_ok;
	__u32 rcv_out, tsecr_out, out_ok;
};

/*
 * The ACK a credit becomes (fp_ack_tpl's fields, host order): a duplicate
 * of what the flow's TCP holds now, not of the peer's last pure ACK.  A
 * peer that also sends data moves its sequence number, its timestamp and
 * our snd_una (by ACKs on its data) after that ACK, and TCP refuses an
 * ACK behind them: a sequence number before rcv_wup is out of window
 * (RFC 9293), a timestamp before ts_recent fails PAWS (RFC 7323), an ACK
 * before snd_una is old and runs no CC.  So values only TCP writes: seq
 * the later of the last ACK the socket sent (rcv_wup) and the rcv_nxt
 * the CC saw, ack snd_una, the window TCP holds (an ACK of another would
 * update it), the timestamp the later of ts_recent as the CC saw it and
 * as the socket last echoed it (the peer's data that acknowledges nothing
 * new runs no CC, and moves ts_recent).  None is the wire's: a segment
 * TCP dropped sets nothing here.  The template (the peer's last pure ACK)
 * gives only the timestamp echo, and the timestamp when TCP holds none.
 * -1, and no ACK, while the window is 0 or not known yet.
 */
static inline int fp_ack_now(__u32 *seq, __u32 *ack, __u16 *window, __u32 *tsval,
			     const struct fp_sock_now *s)
{
	if (!s->wnd_raw)
		return -1;
	*seq = s->out_ok & FP_OUT_ACK && fp_before(s->rcv_nxt, s->rcv_out) ? s->rcv_out :
									     s->rcv_nxt;
	*ack = s->snd_una;
	*window = (__u16)s->wnd_raw;
	if (s->ts_ok)
		*tsval = s->ts_recent;
	if (s->out_ok & FP_OUT_TS && (!s->ts_ok || fp_before(*tsval, s->tsecr_out)))
		*tsval = s->tsecr_out;
	return 0;
}

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

#endif /* CCSUITE_FLASHPASS_LEDGER_H */
