/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Coupled congestion control for MPTCP subflows, the BPF side (coupled.h
 * has the layout): the sock_ops program's part, each subflow's membership
 * in its connection's entry, and the window machinery a coupled CC shares
 * (Reno's halving on loss, once per congestion event of the connection;
 * PRR, undo, restart after idle).  A CC keeps a
 * struct cpl_core in its icsk_ca_priv and grows the window itself from
 * the coupling cpl_update() gives it (lia.h).
 *
 * Membership: a subflow joins its connection's entry when it first sends
 * data (CA_EVENT_TX_START) or at its first ACK, and again whenever the
 * entry's incarnation changed (group.bpf.h), takes a
 * free slot, and writes its window and RTT there on every ACK; it leaves
 * at release(), and the entry goes with its last subflow.  When the table
 * is full, or the connection's slots are, the subflow runs uncoupled (its
 * own window only: Reno's growth) and is counted; no other connection's
 * entry is touched.  A store into a slot through an element recycled for
 * another connection meanwhile is overwritten by that slot's owner at its
 * next ACK; the slot bits, which decide ownership, are taken back.
 */
#ifndef CCSUITE_COUPLED_BPF_H
#define CCSUITE_COUPLED_BPF_H

#include "ccsuite.bpf.h"
#include "group.bpf.h"
#include "coupled.h"
#include "lia.h"

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cpl_sk);
} cpl_sk SEC(".maps");

CPL_TUNABLES(CCS_TUNABLE_RODATA)

/* Not LRU: a live connection is never evicted; a full table refuses the
 * new one instead.  Sized by max_conns (ccload, before load). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CPL_MAX_CONNS);
	__type(key, struct cpl_key);
	__type(value, struct cpl_conn);
} cpl_conns SEC(".maps");

/* ---- sock_ops: a subflow's connection, when it is established ---- */

/*
 * Every MPTCP subflow gets its connection recorded, whatever its CC now:
 * a subflow may be moved to a coupled CC later (setsockopt on the MPTCP
 * socket), and the CC's init() runs after this callback (tcp_init_transfer()).
 */
static __always_inline void cpl_sockops(struct bpf_sock_ops *skops)
{
	struct bpf_sock *bsk = skops->sk;
	struct mptcp_sock *msk;
	struct cpl_sk *cs;

	if (skops->op != BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB &&
	    skops->op != BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB)
		return;
	if (!bsk)
		return;
	msk = bpf_skc_to_mptcp_sock(bsk);
	if (!msk)
		return;
	cs = bpf_sk_storage_get(&cpl_sk, bsk, NULL, BPF_SK_STORAGE_GET_F_CREATE);
	if (!cs)
		return;
	cs->key.token = msk->token;
	cs->key.netns = bpf_get_netns_cookie(skops);
	cs->key.pad = 0;
	ccs_stat_inc(CPL_STAT_SOCKOPS_KEYS);
}

/* ---- a subflow's membership ---- */

enum cpl_state {
	CPL_NEW,       /* not looked at yet (first data or ACK) */
	CPL_PLAIN,     /* not an MPTCP subflow: a connection of one */
	CPL_COUPLED,   /* counted in its connection's entry */
	CPL_UNCOUPLED, /* an MPTCP subflow without an entry or slot */
};

struct cpl_core {
	struct cpl_key key;
	__u32 gen;    /* the entry's incarnation it is counted in; 0: none */
	__u8 state;   /* enum cpl_state */
	__u8 slot;    /* its slot in the entry, when gen != 0 */
	__u8 counted; /* counted in sub_coupled (once, not at a rejoin) */
	__u8 flow_live;
	/* the last coupling it computed, for bench/trace/mptcp.bt */
	__u32 w_total;
	__u32 alpha;
	/* the window: growth fraction (lia_grow()), loss, PRR */
	__u64 acc;
	__u32 ssthresh; /* what ssthresh() last gave the kernel */
	__u32 loss_cwnd;
	__u32 prev_una; /* snd_una after the last ACK */
	struct ccs_prr prr;
	__u8 joined; /* the last loss was its connection's event already (cut_once) */
	__u8 pad[3];
	__u64 cut_ns; /* the connection's event stamp its last halving set; 0: none */
};

/* bench/trace/mptcp.bt reads these at the start of icsk_ca_priv */
_Static_assert(__builtin_offsetof(struct cpl_core, key.token) == 8, "mptcp.bt: token @8");
_Static_assert(__builtin_offsetof(struct cpl_core, w_total) == 24, "mptcp.bt: w_total @24");
_Static_assert(__builtin_offsetof(struct cpl_core, alpha) == 28, "mptcp.bt: alpha @28");
_Static_assert(sizeof(struct cpl_core) == 72, "mptcp.bt: struct ppqd_ca's offsets follow it");

/* (Map helpers take keys on the stack, not in the socket: copies.) */
static __always_inline void cpl_leave(struct cpl_core *m)
{
	struct cpl_key key = m->key;
	struct cpl_conn *c = (struct cpl_conn *)ccs_group_of(&cpl_conns, &key, m->gen);
	__u32 slot = m->slot;

	if (c && slot < CPL_MAX_SUBFLOWS) {
		c->sub[slot].cwnd = 0;
		c->sub[slot].rtt_us = 0;
	}
	ccs_group_leave_as(&cpl_conns, &key, c ? &c->g : NULL, &m->gen, slot);
}

/* The subflow's first data or ACK: which kind of flow it is. */
static __always_inline void cpl_classify(struct sock *sk, struct cpl_core *m)
{
	struct cpl_sk *cs;

	if (!BPF_CORE_READ_BITFIELD(tcp_sk(sk), is_mptcp)) {
		m->state = CPL_PLAIN;
		ccs_stat_inc(CPL_STAT_PLAIN);
		return;
	}
	cs = bpf_sk_storage_get(&cpl_sk, sk, NULL, 0);
	if (!cs) {
		m->state = CPL_UNCOUPLED;
		ccs_stat_inc(CPL_STAT_SUB_NOKEY);
		return;
	}
	m->key = cs->key;
	m->state = CPL_COUPLED;
}

/*
 * The subflow's connection entry, joined (again) if need be, with this
 * subflow's window and RTT written in its slot; NULL when it runs
 * uncoupled (then it is counted, once).
 */
static __always_inline struct cpl_conn *cpl_member_update(struct sock *sk, struct cpl_core *m,
							  const struct cpl_sub *self)
{
	struct cpl_conn fresh = {}, *c;
	struct cpl_key key;
	__u32 slot = 0, gen;
	bool joined, full;

	/* The ACK of a SYN-ACK reaches cong_control() before init() and the
	 * sock_ops callback that records the connection (tcp_finish_connect()
	 * comes after tcp_ack()): nothing is decided before init(). */
	if (!m->flow_live)
		return NULL;
	/* a CC set before the handshake ended gets init() early: the
	 * connection is recorded once established */
	if (m->state == CPL_NEW && (sk->__sk_common.skc_state == TCP_SYN_SENT ||
				    sk->__sk_common.skc_state == TCP_SYN_RECV))
		return NULL;
	if (m->state == CPL_NEW)
		cpl_classify(sk, m);
	if (m->state != CPL_COUPLED)
		return NULL;
	key = m->key;
	gen = m->gen;
	c = (struct cpl_conn *)ccs_group_join_slot(&cpl_conns, &key, &fresh, &gen, CPL_MAX_SUBFLOWS,
						   &slot, &joined, &full, CPL_STAT_CONN_MADE,
						   CPL_STAT_REJOIN);
	m->gen = gen;
	if (c && joined) {
		m->slot = slot;
		if (!m->counted)
			ccs_stat_inc(CPL_STAT_SUB_COUPLED);
		m->counted = 1;
	}
	if (!c) {
		/* a full table or connection: uncoupled for good; an entry
		 * on its way out (its last subflow leaving): the next ACK
		 * makes it again */
		if (full) {
			m->state = CPL_UNCOUPLED;
			ccs_stat_inc(CPL_STAT_SUB_FULL);
		}
		return NULL;
	}
	slot = m->slot;
	if (slot >= CPL_MAX_SUBFLOWS)
		return NULL;
	c->sub[slot] = *self;
	return c;
}

/*
 * The coupling this ACK's growth follows: the connection's, with this
 * subflow's current window and RTT in it, or the subflow's own.
 */
static __always_inline void cpl_update(struct sock *sk, struct cpl_core *m,
				       struct lia_coupling *out)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct cpl_sub self = { .cwnd = tp->snd_cwnd, .rtt_us = tp->srtt_us >> 3 };
	struct cpl_conn *c;

	if (!self.rtt_us)
		self.cwnd = 0; /* no RTT yet: not coupled with */
	c = cpl_member_update(sk, m, &self);
	if (c) {
		struct cpl_sub subs[CPL_MAX_SUBFLOWS] = {};
		__u32 i, slots = ccs_group_read(&c->g).members;

		/* only slots a member holds (a stray store elsewhere is no one's) */
		for (i = 0; i < CPL_MAX_SUBFLOWS; i++)
			if (slots & (1U << i))
				subs[i] = c->sub[i];
		lia_couple(subs, CPL_MAX_SUBFLOWS, out);
		c->alpha = out->alpha;
		c->w_total = (__u32)out->w_total;
	} else {
		self.cwnd = tp->snd_cwnd;
		self.rtt_us = self.rtt_us ?: 1;
		lia_couple(&self, 1, out);
	}
	m->w_total = (__u32)out->w_total;
	m->alpha = out->alpha;
}

/* ---- the window ---- */

static __always_inline void cpl_core_init(struct sock *sk, struct cpl_core *m)
{
	struct tcp_sock *tp = tcp_sk(sk);

	__builtin_memset(m, 0, sizeof(*m));
	m->ssthresh = TCP_INFINITE_SSTHRESH;
	m->prev_una = tp->snd_una;
	m->prr.high_seq = tp->high_seq;
	CCS_FLOW_INIT(m);
}

static __always_inline void cpl_core_release(struct cpl_core *m)
{
	if (CCS_FLOW_RELEASE(m) && m->gen)
		cpl_leave(m);
}

/*
 * Whether this subflow's loss is part of a congestion event its
 * connection has already halved for (cpl_same_event()); if not, this
 * halving starts one.  Two subflows losing at once on two CPUs: the one
 * whose stamp lands second joins the other's event.  A stamp through an
 * element recycled for another connection meanwhile can make one loss of
 * that connection join (the group table's rule for fields beyond its
 * word: group.bpf.h).
 */
static __always_inline bool cpl_loss_joined(struct sock *sk, struct cpl_core *m)
{
	struct cpl_key key = m->key;
	struct cpl_conn *c;
	__u64 now, last;

	m->cut_ns = 0;
	if (!cut_once || !m->gen)
		return false;
	c = (struct cpl_conn *)ccs_group_of(&cpl_conns, &key, m->gen);
	if (!c)
		return false;
	now = bpf_ktime_get_ns();
	last = c->cut_ns;
	if (cpl_same_event(now, last, (__u64)(tcp_sk(sk)->srtt_us >> 3) * NSEC_PER_USEC))
		return true;
	if (__sync_val_compare_and_swap(&c->cut_ns, last, now) != last)
		return true;
	m->cut_ns = now;
	return false;
}

/*
 * An undone halving was no congestion event: the stamp it set goes, so
 * that another subflow's loss within the RTT halves.  Only if it is still
 * this subflow's: a later halving's stamp stays.  The stamp before it was
 * an RTT old or more (else this loss had joined it): 0 is as good.
 */
static __always_inline void cpl_unstamp(struct cpl_core *m)
{
	struct cpl_key key = m->key;
	struct cpl_conn *c;

	if (!m->cut_ns || !m->gen)
		return;
	c = (struct cpl_conn *)ccs_group_of(&cpl_conns, &key, m->gen);
	if (c && __sync_val_compare_and_swap(&c->cut_ns, m->cut_ns, 0) == m->cut_ns)
		ccs_stat_inc_atomic(CPL_STAT_UNSTAMPED);
	m->cut_ns = 0;
}

/* What the CC last meant ssthresh and cwnd to be, put back where the
 * kernel holds a value it did not return (ccs_ret_repair()). */
static __always_inline void cpl_core_repair(struct sock *sk, const struct cpl_core *m)
{
	ccs_ret_repair(sk, m->ssthresh, m->loss_cwnd);
}

static __always_inline __u32 cpl_core_ssthresh(struct sock *sk, struct cpl_core *m)
{
	__u32 cwnd;

	cpl_core_repair(sk, m);
	cwnd = tcp_sk(sk)->snd_cwnd;

	/* exact: t_mptcp bounds the kernel's undos by it */
	ccs_stat_inc_atomic(CCS_STAT_CWND_REDUCTIONS);
	m->loss_cwnd = cwnd;
	m->acc = 0;
	m->joined = cpl_loss_joined(sk, m);
	if (m->joined) {
		ccs_stat_inc(CPL_STAT_LOSS_JOINED);
		m->ssthresh = cwnd;
		return cwnd;
	}
	ccs_stat_inc(CPL_STAT_LOSSES);
	m->ssthresh = lia_halve(cwnd);
	return m->ssthresh;
}

static __always_inline __u32 cpl_core_undo_cwnd(struct sock *sk, struct cpl_core *m)
{
	cpl_core_repair(sk, m);
	ccs_stat_inc_atomic(CCS_STAT_UNDO);
	cpl_unstamp(m);
	return max(tcp_sk(sk)->snd_cwnd, m->loss_cwnd);
}

/*
 * A retransmission timeout (tcp_enter_loss(): ssthresh(), then this event,
 * then cwnd = packets in flight + 1) halves even a loss that joined its
 * connection's event: without it the subflow would slow-start straight
 * back to its window after the strongest signal TCP has.  Counted as a
 * halving, not as joined (same CPU: one call chain).
 */
static __always_inline void cpl_core_cwnd_event(struct sock *sk, struct cpl_core *m,
						enum tcp_ca_event ev)
{
	cpl_core_repair(sk, m);
	if (ev == CA_EVENT_LOSS && m->joined) {
		m->joined = 0;
		m->ssthresh = lia_halve(m->loss_cwnd);
		tcp_sk(sk)->snd_ssthresh = m->ssthresh;
		ccs_stat_add(CPL_STAT_LOSS_JOINED, -1);
		ccs_stat_inc(CPL_STAT_LOSSES);
	}
	if (ev == CA_EVENT_LOSS) {
		ccs_stat_inc_atomic(CCS_STAT_RTO);
	} else if (ev == CA_EVENT_TX_START) {
		struct lia_coupling c;

		ccs_cwnd_restart_after_idle(sk);
		/* in its entry from its first data on, not from its first ACK,
		 * which an initial window lost whole puts off by RTOs */
		cpl_update(sk, m, &c);
	}
}

/*
 * cong_control()'s first part: the segments this ACK lets the window
 * grow by in congestion avoidance (0: none; slow start is done here).
 */
static __always_inline __u32 cpl_core_control(struct sock *sk, struct cpl_core *m,
					      const struct rate_sample *rs, int flag)
{
	__u32 acked =
		ccs_own_window(sk, &m->prr, &m->prev_una, m->ssthresh, m->loss_cwnd, rs, flag);

	return acked ? ccs_slow_start_part(sk, acked) : 0;
}

/* Congestion avoidance: one segment per @cnt (lia_cnt()) ACKed segments. */
static __always_inline void cpl_core_grow(struct sock *sk, struct cpl_core *m, __u32 acked,
					  __u64 cnt)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tp->snd_cwnd = lia_grow(tp->snd_cwnd, acked, cnt, &m->acc, tp->snd_cwnd_clamp);
}

#endif /* CCSUITE_COUPLED_BPF_H */
