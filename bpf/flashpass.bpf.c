// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_flashpass: FlashPass (ICNP 2021) as a struct_ops congestion control,
 * the sender's window of the credit loop (docs/flashpass.md).
 *
 * A flow starts in the pre-credit phase: one initial window, unscheduled
 * (tc/flashpass.bpf.c tags it so the switch drops it first).  Its ledger
 * (map fp_ledgers) tells the emulation pacer it wants credits; from the
 * first credit on, the flow may have in flight what it has plus its
 * usable credits not yet spent, one segment each: a credit whose
 * emulation packet left at T is usable from T + T_wait (send-time
 * calibration), taken from the ledger's ring at each ACK.  The sender's
 * TC egress spends a credit per data segment.  Pacing follows the rate
 * at which credits become usable.  Losses do not cut the window in the
 * credit phases: what is lost is resent under credits.
 *
 * With release, the pacer times the segments: at each credit's usable
 * time it sends a release that the sender's TC egress turns into the
 * flow's ACK of nothing new (tc/flashpass.bpf.c), and the CC takes one
 * credit per release that came (the ledger's grants), so a segment leaves
 * when its credit is usable and not at another ACK or pacing slot; a flow
 * with nothing in flight and no credit waits at a window of 0.
 *
 * A flow that gets no credit over fallback_rtts RTTs of time with data to
 * send, summed over its busy stretches and counted afresh from its first
 * emulation packet (no receiver or path role: no credits come back; 8
 * times as long once credits have come), or whose ledger is gone, runs as
 * Reno from then on, counted in stats.
 *
 * The arithmetic is in the headers of bpf/flashpass/ (unit-tested on the host).
 */
#include "flashpass.bpf.h"

#define FP_TAKE_MAX	 256	    /* credits taken per ACK at most */
#define FP_PACE_WIN_NS	 4000000ULL /* the shortest window of the pacing rate */
#define FP_CREDIT_WAIT_X 8	    /* the fallback wait in the credit phase: 8 times longer */
#define FP_PACE_FIRST	 8	    /* credits for a flow's first pacing estimate */

char _license[] SEC("license") = "GPL";

/* A zeroed ledger to create entries from: a ledger is too big for the
 * BPF stack.  Never written (BPF_F_RDONLY_PROG). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_RDONLY_PROG);
	__type(key, __u32);
	__type(value, struct fp_ledger);
} fp_ledger_zero SEC(".maps");

struct fp_ca {
	__u32 phase;	 /* enum fp_phase */
	__u32 flow_live; /* init() ran: CCS_FLOW_INIT() */
	__u32 ssthresh;	 /* what ssthresh() last gave the kernel */
	__u32 loss_cwnd;
	__u32 prev_una; /* snd_una after the last ACK */
	struct ccs_prr prr;
	__u32 secret;	    /* its ledger's (fp_ledger_of()) */
	__u64 counted_ns;   /* starved_ns counts the flow's busy time up to here */
	__u64 last_recv;    /* credits_recv then */
	__u64 win_start_ns; /* the pacing window: since when, */
	__u64 pace_rate;    /* its smoothed rate, bytes/s, */
	__u32 win_n;	    /* credits taken in it, */
	__u32 win_first;    /* the first one's stamp */
	__u32 win_last;	    /* and the last one's */
	__u32 idle;	    /* nothing out or queued at the last ACK (or not sent yet) */
	__u32 spare;	    /* usable credits not spent, at the last ACK */
	__u32 emu_pps;	    /* the pacer's emulation rate, at the last pacing window */
	__u64 starved_ns;   /* time with data out or queued since the last credit */
	__u32 gap_avg;	    /* pace_credits: the credits' average gap (fp_gap_avg()) */
	__u32 gap_last;	    /* and the last stamp taken */
};

_Static_assert(sizeof(struct fp_ca) <= 13 * sizeof(__u64), "ca state too big");
/* bench/trace/flashpass.bt reads these at fixed offsets */
_Static_assert(__builtin_offsetof(struct fp_ca, phase) == 0, "flashpass.bt: phase @0");
_Static_assert(__builtin_offsetof(struct fp_ca, last_recv) == 40, "flashpass.bt: credits @40");
_Static_assert(__builtin_offsetof(struct fp_ca, pace_rate) == 56, "flashpass.bt: pacing @56");
_Static_assert(__builtin_offsetof(struct fp_ca, spare) == 80, "flashpass.bt: spare @80");
_Static_assert(__builtin_offsetof(struct fp_ca, emu_pps) == 84, "flashpass.bt: emulation @84");

/* The network namespace of @sk, by its cookie (unique while the host runs). */
static __always_inline __u64 fp_netns_of(const struct sock *sk)
{
	return ccs_sock_net(sk)->net_cookie;
}

/* The flow's key: its namespace, and its addresses and ports as the
 * packets carry them.  The local port is inet_sport, not skc_num: a socket going to TCP_CLOSE
 * gives its port back (inet_put_port() zeroes inet_num) before release(),
 * whose key must still find the ledger. */
static __always_inline void fp_key_of_sk(const struct sock *sk, struct fp_key *k)
{
	__u32 l[4] = { 0, 0, bpf_htonl(0xffff), sk->__sk_common.skc_rcv_saddr };
	__u32 r[4] = { 0, 0, bpf_htonl(0xffff), sk->__sk_common.skc_daddr };

	if (sk->__sk_common.skc_family == AF_INET6) {
		__builtin_memcpy(l, sk->__sk_common.skc_v6_rcv_saddr.in6_u.u6_addr32, 16);
		__builtin_memcpy(r, sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32, 16);
	}
	fp_key_set(k, fp_netns_of(sk), l, r, ((const struct inet_sock *)sk)->inet_sport,
		   sk->__sk_common.skc_dport);
	/* a socket to a link-local address is bound to its interface */
	fp_key_scope(k, sk->__sk_common.skc_bound_dev_if);
}

/* @sk's own ledger: the one under its key that its init() made, not one
 * an earlier socket of the same namespace and 4-tuple left. */
static __always_inline struct fp_ledger *fp_ledger_of(const struct sock *sk)
{
	const struct fp_ca *ca = inet_csk_ca(sk);
	struct fp_ledger *l;
	struct fp_key k;

	fp_key_of_sk(sk, &k);
	l = bpf_map_lookup_elem(&fp_ledgers, &k);
	if (!l || l->secret != ca->secret)
		return NULL;
	return l;
}

/*
 * The socket's own sequence state, for the ingress to judge an ACK by
 * (fp_ack_plausible()), and what the ACK a credit becomes must carry for
 * TCP to take it (fp_ack_now()): ts_recent, which only a segment TCP
 * took sets (rcv_tsval is any parsed segment's, dropped ones too); the
 * window only after init (@acked), where snd_wnd is the handshake's,
 * unscaled.  Between two increments of sock_ver (full barriers), which
 * the TC programs read around their copy (fp_sock_copy()); one writer,
 * under the socket lock.
 */
static __always_inline void fp_ledger_seq(const struct sock *sk, struct fp_ledger *l, bool acked)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct tcp_options_received *rx_opt = &tp->rx_opt;
	__u64 cookie;

	__sync_fetch_and_add(&l->sock_ver, 1);
	l->snd_una = tp->snd_una;
	l->snd_nxt = tp->snd_nxt;
	l->rcv_nxt = tp->rcv_nxt;
	l->wnd_raw = acked ? tp->snd_wnd >> BPF_CORE_READ_BITFIELD(rx_opt, snd_wscale) : 0;
	if (BPF_CORE_READ_BITFIELD(rx_opt, tstamp_ok)) {
		l->ts_recent = rx_opt->ts_recent;
		l->ts_ok = 1;
	}
	__sync_fetch_and_add(&l->sock_ver, 1);
	if (!l->sk_cookie) {
		cookie = (__u64)sk->__sk_common.skc_cookie.counter;
		if (cookie)
			l->sk_cookie = cookie;
	}
}

/* The pacer's emulation rate for the flow, packets/s (0: none yet). */
static __always_inline __u32 fp_emu_pps_of(const struct sock *sk)
{
	struct fp_emu *e;
	struct fp_key k;

	fp_key_of_sk(sk, &k);
	e = bpf_map_lookup_elem(&fp_emu, &k);
	return e ? (__u32)e->rate : 0;
}

/* What the CC last meant ssthresh and cwnd to be, put back where the
 * kernel holds a value it did not return (ccs_ret_repair()). */
static __always_inline void fp_repair(struct sock *sk, const struct fp_ca *ca)
{
	ccs_ret_repair(sk, ca->ssthresh, ca->loss_cwnd);
}

/* The flow's RTT for its deadlines: smoothed, else the minimum, else 100 ms. */
static __always_inline __u64 fp_rtt_ns(const struct tcp_sock *tp)
{
	__u64 us = tp->srtt_us >> 3;

	if (!us)
		us = tcp_min_rtt(tp);
	return us ? us * 1000 : 100000000ULL;
}

/* A flow without a ledger of its own runs as Reno from the start. */
static __always_inline void fp_init_fail(struct fp_ca *ca, __u32 why)
{
	ca->phase = FP_PHASE_FALLBACK;
	ccs_stat_inc(why);
}

SEC("struct_ops")
void BPF_PROG(fp_init, struct sock *sk)
{
	struct fp_ca *ca = inet_csk_ca(sk);
	__u64 now = bpf_ktime_get_ns();
	struct fp_ledger *z, *l;
	__u32 zero = 0;
	struct fp_key k;

	__builtin_memset(ca, 0, sizeof(*ca));
	CCS_FLOW_INIT(ca);
	ca->prev_una = tcp_sk(sk)->snd_una;
	ca->ssthresh = TCP_INFINITE_SSTHRESH;
	ca->counted_ns = now;
	ca->idle = 1;
	fp_key_of_sk(sk, &k);
	z = bpf_map_lookup_elem(&fp_ledger_zero, &zero);
	if (!z) {
		fp_init_fail(ca, FP_STAT_LEDGER_LOST);
		return;
	}
	/* One under this key is a socket's that is gone: the namespace and
	 * 4-tuple are this one's now.  Replaced; its release() finds another
	 * secret and leaves this one.  LRU: a full table makes room by
	 * dropping its oldest ledger. */
	if (bpf_map_update_elem(&fp_ledgers, &k, z, BPF_ANY)) {
		fp_init_fail(ca, FP_STAT_LEDGER_LOST);
		return;
	}
	l = bpf_map_lookup_elem(&fp_ledgers, &k);
	if (!l) {
		fp_init_fail(ca, FP_STAT_LEDGER_LOST);
		return;
	}
	ca->secret = bpf_get_prandom_u32();
	l->secret = ca->secret;
	fp_ledger_seq(sk, l, false);
	l->seq_out = tcp_sk(sk)->snd_nxt; /* the egress's from here on */
	l->start_ns = now;
	l->phase = FP_PHASE_PRECREDIT;
	ca->phase = FP_PHASE_PRECREDIT;
	tcp_sk(sk)->snd_cwnd = init_cwnd;
	/* TCP's own pacing (no fq here to do it): the credits' spacing */
	if (sk->sk_pacing_status == SK_PACING_NONE)
		sk->sk_pacing_status = SK_PACING_NEEDED;
}

SEC("struct_ops")
void BPF_PROG(fp_release, struct sock *sk)
{
	struct fp_key k;

	if (!CCS_FLOW_RELEASE((struct fp_ca *)inet_csk_ca(sk)))
		return;
	if (!fp_ledger_of(sk))
		return; /* none, or a later socket's of this 4-tuple */
	/* A map has no delete-if-equal: a socket of this namespace taking
	 * the 4-tuple over from this one's TIME-WAIT between the check and
	 * the delete (on another CPU) loses its new ledger here and runs as
	 * Reno (ledger_lost).  No other namespace's ledger is under this key. */
	fp_key_of_sk(sk, &k);
	bpf_map_delete_elem(&fp_ledgers, &k);
}

static __always_inline void fp_fall_back(struct sock *sk, struct fp_ca *ca, struct fp_ledger *l,
					 __u32 why)
{
	ca->phase = FP_PHASE_FALLBACK;
	if (l)
		l->phase = FP_PHASE_FALLBACK;
	ccs_stat_inc(why);
	/* Reno from what the credits allowed, ssthresh unknown */
	if (tcp_sk(sk)->snd_cwnd < 2)
		tcp_sk(sk)->snd_cwnd = 2;
}

/* Take the ring's credits whose usable time has come (one bpf_loop()
 * step each, so the verifier checks the step once). */
struct fp_take {
	struct fp_ring *r;
	__u32 now_us;
	__u32 n, max;
	__u32 first, last;	 /* stamps of the first and last credit taken */
	__u32 gap_avg, gap_last; /* pace_credits: fp_ca's, carried through */
};

static long fp_take_one(__u32 i, void *data)
{
	struct fp_take *c = data;
	__u32 at = c->n < c->max ? fp_ring_take_one(c->r, c->now_us) : 0;

	if (!at)
		return 1;
	if (!c->n++)
		c->first = at;
	c->last = at;
	if (pace_credits) {
		c->gap_avg = fp_gap_avg(c->gap_avg, c->gap_last, at, pace_credits);
		if (!c->gap_last || (__s32)(at - c->gap_last) >= 0)
			c->gap_last = at;
	}
	return 0;
}

/* TCP's pacing charges a segment's payload, not its headers
 * (tcp_update_skb_after_send() on the unheadered skb): a credit's segment
 * costs mss_cache bytes of the pacing rate. */
static __always_inline __u32 fp_pace_bytes(const struct sock *sk)
{
	return tcp_sk(sk)->mss_cache;
}

/* The pacing rate above the credits' rate, percent.  With release the
 * pacer's releases time the segments, and pacing, at twice the credits'
 * rate at least, only keeps a flow's segments apart. */
static __always_inline __u64 fp_pace_gain(void)
{
	return release && pace_gain_pct < 100 ? 100 : pace_gain_pct;
}

/* pace 0: no pacing under credits (with credit_ack the credits, one ACK
 * each, clock the segments themselves) */
static __always_inline void fp_set_pacing(struct sock *sk, __u64 rate)
{
	if (!pace)
		rate = sk->sk_max_pacing_rate;
	sk->sk_pacing_rate = rate < sk->sk_max_pacing_rate ? rate : sk->sk_max_pacing_rate;
}

/* SOCK_NOSPACE of enum socket_flags (a #define before 6.x): the same bit
 * since 2.6 */
#define FP_SOCK_NOSPACE 2

/* What the send buffer says of its writer (fp_demand_segs()). */
static __always_inline int fp_snd_state(const struct sock *sk)
{
	const struct socket *so = sk->sk_socket;
	int snd = fp_sndbuf_full(sk->sk_wmem_queued, sk->sk_sndbuf) ? FP_SND_FULL : 0;

	if (so && (so->flags & (1UL << FP_SOCK_NOSPACE)))
		snd |= FP_SND_WRITER_WAITS;
	return snd;
}

/* What the pacer reads from the ledger: the flow's demand, and the
 * inputs of its calibration. */
static __always_inline void fp_ledger_inputs(const struct sock *sk, struct fp_ledger *l)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct tcp_options_received *rx_opt = &tp->rx_opt;

	l->demand_segs =
		fp_demand_segs(tp->write_seq, tp->snd_nxt, tp->mss_cache, fp_snd_state(sk));
	l->min_rtt_ns = (__u64)tcp_min_rtt(tp) * 1000;
	l->t_wait_ns = fp_t_wait((__u64)t_wait_us * 1000, l->min_rtt_ns);
	l->srtt_ns = (__u64)(tp->srtt_us >> 3) * 1000;
	fp_ledger_seq(sk, l, true);
	/* (rx_opt apart: the macro's offset would count from tp once more) */
	l->sack_ok = BPF_CORE_READ_BITFIELD(rx_opt, sack_ok) != 0;
}

/* How long a flow with data waiting goes without a credit before it falls
 * back: fallback_rtts RTTs (@rtt), at least fallback_ms. */
static __always_inline __u64 fp_credit_wait(const struct fp_ca *ca, __u64 rtt)
{
	__u64 wait = fallback_rtts * rtt;

	if (wait < (__u64)fallback_ms * 1000000)
		wait = (__u64)fallback_ms * 1000000;
	/* Once credits have come, the path has FlashPass: a drought is the
	 * emulation queue's congestion, which the rate control works off. */
	if (ca->phase == FP_PHASE_CREDIT)
		wait *= FP_CREDIT_WAIT_X;
	return wait;
}

/* The first credit came: the credit phase begins. */
static __always_inline void fp_enter_credit(struct sock *sk, struct fp_ca *ca, struct fp_ledger *l,
					    __u64 now, __u64 rtt, __u32 bytes)
{
	ca->phase = FP_PHASE_CREDIT;
	l->phase = FP_PHASE_CREDIT;
	ca->win_start_ns = now;
	/* The pre-credit phase paced at line rate.  Until the credits give a
	 * rate, the initial window per RTT: a flow's first credits, banked
	 * while it had no ACK to spend them at, would otherwise leave at line
	 * rate, and several flows starting together overflow a shallow
	 * buffer with scheduled data. */
	fp_set_pacing(sk, (__u64)init_cwnd * bytes * NSEC_PER_SEC / rtt);
	ccs_stat_inc(FP_STAT_PHASE_CREDIT);
}

/* The wait for credits, @recv the ledger's count of them now: it starts
 * over when credits came or nothing waits for them, and the first credit
 * begins the credit phase.  0 when the flow waited too long. */
static __always_inline int fp_wait_credits(struct sock *sk, struct fp_ca *ca, struct fp_ledger *l,
					   __u64 recv, __u64 now, __u64 rtt, __u32 bytes)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	__u64 first = l->emu_first_ns;
	bool busy = !ca->idle;

	/* The wait counts the time the flow had data out or queued, since
	 * its last credit; a FIN alone (one sequence number) is not data
	 * waiting for credit.  Idle time does not count, and does not start
	 * the wait afresh either: on a short RTT a flow drains between the
	 * application's writes, and would never fall back. */
	ca->idle = tp->write_seq - tp->snd_una <= 1;
	if (recv != ca->last_recv) {
		if (ca->phase == FP_PHASE_PRECREDIT)
			fp_enter_credit(sk, ca, l, now, rtt, bytes);
		ca->last_recv = recv;
		ca->starved_ns = 0;
	} else if (ca->phase == FP_PHASE_PRECREDIT && first > ca->counted_ns) {
		/* Before a first credit the wait starts again when the flow's
		 * first emulation packet left (the sender's egress notes it):
		 * the time the pacer took to take the flow up (its scan, a
		 * stall of the machine) is not the path's, if it took it up
		 * within the wait.  A flow no pacer takes up falls back as
		 * before. */
		ca->starved_ns = busy && now > first ? now - first : 0;
	} else if (busy) {
		ca->starved_ns += now - ca->counted_ns;
	}
	ca->counted_ns = now;
	return ca->starved_ns <= fp_credit_wait(ca, rtt);
}

/* Drop a ring credit usable before @c->now_us (fp_expire_before()). */
static long fp_expire_one(__u32 i, void *data)
{
	struct fp_take *c = data;

	if (!fp_ring_take_one(c->r, c->now_us))
		return 1;
	c->n++;
	return 0;
}

/*
 * With release, a credit goes when the pacer's release for it came: the
 * grants since the last call, each good for one credit due now (a grant
 * that finds none lapses rather than letting a later credit out early
 * or two at once); the credits whose release will not come expire
 * first.  (Batched credits carry estimated times: none expire.)
 */
static __always_inline __u32 fp_release_grants(struct fp_ledger *l)
{
	__u64 g = l->grants, n = g - l->grants_seen;
	struct fp_take x = { .r = &l->ring };
	__u32 rel = l->rel_stamp;

	l->grants_seen = g;
	if (rel && credit_batch <= 1) {
		x.now_us = fp_expire_before(rel);
		bpf_loop(FP_RING, fp_expire_one, &x, 0);
		if (x.n) {
			l->expired += x.n;
			ccs_stat_add(FP_STAT_CREDITS_EXPIRED, x.n);
			ccs_stat_add(FP_STAT_CREDITS_WASTED, x.n);
		}
	}
	return n < FP_TAKE_MAX ? (__u32)n : FP_TAKE_MAX;
}

/* Take from the ring into @take the credits usable by now, or due within
 * the lead (fp_lead_ns()). */
/* Drop a stale ring credit (fp_ring_drop_one()). */
static long fp_drop_stale_one(__u32 i, void *data)
{
	struct fp_take *c = data;

	if (!fp_ring_drop_one(c->r))
		return 1;
	c->n++;
	return 0;
}

static __always_inline void fp_take_credits(struct fp_ca *ca, struct fp_ledger *l,
					    struct fp_take *take, __u64 now, __u64 rtt, __u32 bytes)
{
	take->r = &l->ring;
	/* first the stale ones: taken, and wasted (their time is long past) */
	if (fp_ring_is_stale(&l->ring)) {
		bpf_loop(FP_RING, fp_drop_stale_one, take, 0);
		l->usable += take->n;
		l->idle_wasted += take->n;
		ccs_stat_add(FP_STAT_CREDITS_WASTED, take->n);
		take->n = 0;
	}
	take->max = release ? fp_release_grants(l) : FP_TAKE_MAX;
	take->now_us =
		(__u32)((now + fp_lead_ns(rtt, ca->pace_rate, bytes, release ? 0 : lead_credits)) /
			1000);
	take->gap_avg = ca->gap_avg;
	take->gap_last = ca->gap_last;
	bpf_loop(FP_TAKE_MAX, fp_take_one, take, 0);
	ca->gap_avg = take->gap_avg;
	ca->gap_last = take->gap_last;
	l->usable += take->n;
}

/* The window of the credit phase: what is in flight and the usable
 * credits not spent, those kept. */
static __always_inline void fp_credit_window(struct tcp_sock *tp, struct fp_ca *ca,
					     struct fp_ledger *l, __u32 acked, __u64 now,
					     __u32 bytes)
{
	__u64 spare = fp_spare(l), waste;
	__u32 floor = !release || fp_credit_drought(l->last_credit_ns, l->t_wait_ns, now);
	/* With release every usable credit is one the pacer released at its
	 * time, so what is unspent is late: bounded in time.  Without, the
	 * credits taken ahead of their time (lead_credits) and between ACKs
	 * are not late, and only bank_max bounds them. */
	__u32 bank = release ? fp_bank_limit(ca->pace_rate, bytes, bank_us, bank_max) : bank_max;

	/* A credit is good at its time: with nothing to send it is wasted,
	 * and the flow banks no more than that, so that a flow held back for
	 * a while cannot burst its backlog of credits. */
	waste = !l->demand_segs ? spare : (spare > bank ? spare - bank : 0);
	if (waste) {
		l->idle_wasted += waste;
		ccs_stat_add(FP_STAT_CREDITS_WASTED, waste);
		if (l->demand_segs)
			ccs_stat_add(FP_STAT_CREDITS_OVER_BANK, waste);
		spare -= waste;
	}
	tp->snd_cwnd = fp_credit_cwnd(tcp_packets_in_flight(tp), spare, acked + burst, floor);
	ca->spare = spare < 0xffffffffULL ? (__u32)spare : 0xffffffffU;
}

/* Pacing: the credits' own spacing (their stamps, @take's among them),
 * over windows of at least an RTT and FP_PACE_WIN_NS, smoothed; with
 * pace_credits, their average gap at every call instead. */
static __always_inline void fp_credit_pacing(struct sock *sk, struct fp_ca *ca,
					     const struct fp_take *take, __u64 now, __u64 rtt,
					     __u32 bytes)
{
	__u64 rate = pace_credits ? fp_gap_rate(ca->gap_avg, bytes) : 0;

	if (rate) {
		ca->pace_rate = rate;
		fp_set_pacing(sk, rate + rate * fp_pace_gain() / 100);
	}
	if (take->n) {
		if (!ca->win_n)
			ca->win_first = take->first;
		ca->win_last = take->last;
		ca->win_n += take->n;
	}
	/* the first estimate as soon as FP_PACE_FIRST credits give one */
	if (now - ca->win_start_ns < max(rtt, FP_PACE_WIN_NS) &&
	    (ca->pace_rate || ca->win_n < FP_PACE_FIRST))
		return;
	rate = fp_pacing_rate(ca->win_n, ca->win_last - ca->win_first, bytes);
	if (rate && !pace_credits) {
		ca->pace_rate = ca->pace_rate ? fp_pace_smooth(ca->pace_rate, rate) : rate;
		fp_set_pacing(sk, ca->pace_rate + ca->pace_rate * fp_pace_gain() / 100);
	}
	ca->win_start_ns = now;
	ca->win_n = 0;
	ca->emu_pps = fp_emu_pps_of(sk);
}

/*
 * The credit phases: the ledger's demand and calibration inputs, the
 * phase, the window and the pacing rate.  Returns 0 when the flow falls
 * back to Reno now.
 */
static __always_inline int fp_credit_control(struct sock *sk, struct fp_ca *ca, struct fp_ledger *l,
					     __u32 acked, __u64 now)
{
	__u64 recv = l->credits_recv, rtt = fp_rtt_ns(tcp_sk(sk));
	__u32 bytes = fp_pace_bytes(sk);
	struct fp_take take = {};

	fp_ledger_inputs(sk, l);
	if (!fp_wait_credits(sk, ca, l, recv, now, rtt, bytes)) {
		fp_fall_back(sk, ca, l, FP_STAT_FALLBACKS);
		return 0;
	}
	if (ca->phase == FP_PHASE_PRECREDIT) {
		/* the initial window at line rate: it is unscheduled anyway */
		tcp_sk(sk)->snd_cwnd = init_cwnd;
		sk->sk_pacing_rate = sk->sk_max_pacing_rate;
		return 1;
	}
	fp_take_credits(ca, l, &take, now, rtt, bytes);
	fp_credit_window(tcp_sk(sk), ca, l, acked, now, bytes);
	fp_credit_pacing(sk, ca, &take, now, rtt, bytes);
	return 1;
}

/* Reno, with the kernel's PRR in CWR and Recovery (lib/ccsuite.bpf.h). */
static __always_inline void fp_reno_control(struct sock *sk, struct fp_ca *ca,
					    const struct rate_sample *rs, int flag)
{
	if (tcp_in_cwnd_reduction(sk)) {
		ccs_prr(sk, &ca->prr, rs->acked_sacked, rs->losses, flag);
	} else if (rs->acked_sacked > 0 && ccs_may_raise_cwnd(sk, flag)) {
		ccs_reno_cong_avoid(sk, rs->acked_sacked);
	}
	ccs_update_pacing_rate(sk);
}

SEC("struct_ops")
void BPF_PROG(fp_cong_control, CCS_CONG_CONTROL_ARGS)
{
	struct fp_ca *ca = inet_csk_ca(sk);
	int flg = CCS_ACK_FLAG(ca->prev_una);
	struct fp_ledger *l;

	/* The ACK that completes the handshake (a SYN-ACK, or the passive
	 * side's last ACK) reaches cong_control() before init() makes the
	 * ledger: nothing is decided, or counted lost, before init(). */
	if (!ca->flow_live)
		return;
	ccs_stat_inc(CCS_STAT_ACKS);
	ca->prev_una = tcp_sk(sk)->snd_una;
	fp_repair(sk, ca);
	if (ca->phase != FP_PHASE_FALLBACK) {
		l = fp_ledger_of(sk);
		if (!l)
			fp_fall_back(sk, ca, NULL, FP_STAT_LEDGER_LOST);
		else if (fp_credit_control(sk, ca, l, rs->acked_sacked > 0 ? rs->acked_sacked : 0,
					   bpf_ktime_get_ns()))
			return;
	}
	fp_reno_control(sk, ca, rs, flg);
}

/* TCP calls cong_control() only for an ACK with something in flight
 * (tcp_ack()'s no_queue): a flow the pacer wakes, held at a window of 0
 * with nothing out (release), would not hear it.  in_ack_event() comes
 * for every ACK: with nothing in flight it runs the credit control, or
 * records the sequence state. */
SEC("struct_ops")
void BPF_PROG(fp_in_ack_event, struct sock *sk, __u32 flags)
{
	struct fp_ca *ca = inet_csk_ca(sk);
	struct fp_ledger *l;

	if (!ca->flow_live || ca->phase == FP_PHASE_FALLBACK || tcp_sk(sk)->packets_out)
		return;
	l = fp_ledger_of(sk);
	if (!l)
		return;
	/* also the sequence state, which cong_control() would not update
	 * (data from the peer while nothing of ours is out) */
	if (release)
		fp_credit_control(sk, ca, l, 0, bpf_ktime_get_ns());
	else
		fp_ledger_seq(sk, l, true);
}

/* Under credits a loss cuts nothing (the lost data goes again under
 * credits); in fallback, Reno's halving. */
SEC("struct_ops")
__u32 BPF_PROG(fp_ssthresh, struct sock *sk)
{
	struct fp_ca *ca = inet_csk_ca(sk);
	__u32 cwnd;

	fp_repair(sk, ca);
	cwnd = tcp_sk(sk)->snd_cwnd;
	ccs_stat_inc(CCS_STAT_CWND_REDUCTIONS);
	ca->loss_cwnd = cwnd;
	if (ca->phase == FP_PHASE_FALLBACK)
		ca->ssthresh = cwnd / 2 > 2 ? cwnd / 2 : 2;
	else
		ca->ssthresh = cwnd > 2 ? cwnd : 2;
	return ca->ssthresh;
}

SEC("struct_ops")
__u32 BPF_PROG(fp_undo_cwnd, struct sock *sk)
{
	struct fp_ca *ca = inet_csk_ca(sk);

	fp_repair(sk, ca);
	ccs_stat_inc(CCS_STAT_UNDO);
	return max(tcp_sk(sk)->snd_cwnd, ca->loss_cwnd);
}

/* The kernel calls set_state() right after it took ssthresh()'s result
 * (entering CWR, Recovery or Loss): a corrupted one is put right here,
 * before TCP sends under it, not at the next ACK (ccs_ret_repair()). */
SEC("struct_ops")
void BPF_PROG(fp_set_state, struct sock *sk, __u8 new_state)
{
	fp_repair(sk, inet_csk_ca(sk));
}

SEC("struct_ops")
void BPF_PROG(fp_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct fp_ca *ca = inet_csk_ca(sk);
	struct fp_ledger *l;

	fp_repair(sk, ca);
	if (ev == CA_EVENT_LOSS)
		ccs_stat_inc(CCS_STAT_RTO);
	if (ev != CA_EVENT_TX_START)
		return;
	if (ca->phase == FP_PHASE_FALLBACK) {
		ccs_cwnd_restart_after_idle(sk);
		return;
	}
	/* Data to send after idle (or for the first time): the pacer starts
	 * on the demand queued now, not the last ACK's; before a first ACK
	 * the ledger has none at all.  The wait for credits counts from now
	 * on. */
	if (!ca->idle)
		return; /* in flight went to 0 under loss: the wait goes on */
	ca->idle = 0;
	l = fp_ledger_of(sk);
	if (l) {
		fp_ledger_inputs(sk, l);
		if (!l->demand_segs)
			l->demand_segs = 1;
	}
	ca->counted_ns = bpf_ktime_get_ns();
}

SEC(".struct_ops")
struct tcp_congestion_ops flashpass = {
	.init = (void *)fp_init,
	.release = (void *)fp_release,
	.ssthresh = (void *)fp_ssthresh,
	.cong_control = (void *)fp_cong_control,
	.undo_cwnd = (void *)fp_undo_cwnd,
	.cwnd_event = (void *)fp_cwnd_event,
	.set_state = (void *)fp_set_state,
	.in_ack_event = (void *)fp_in_ack_event,
	.name = "bpf_flashpass",
};
