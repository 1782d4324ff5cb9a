/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DCTCP's machinery (RFC 8257), for every CC built on it (bpf_dctcp,
 * bpf_tldct): the sender's once-per-window alpha from the CE-marked share
 * of deliveries, Reno's halving on real loss, and the receiver's CE state
 * machine that ACKs at every flip of the CE state of arriving data, so the
 * sender sees the exact marked byte count.  A CC keeps a struct dctcp_core
 * in its icsk_ca_priv and calls these from its callbacks; what it does
 * with alpha on a congestion signal is its own (ssthresh()), and so is how
 * it grows.
 *
 * The CC owns the window through cong_control() (dctcp_core_control()),
 * doing what the kernel does for a CC with cong_avoid() (PRR, growth,
 * pacing rate, restart after idle), because the kernel's PRR would act on
 * a corrupted ssthresh() result before the CC sees it (ccs_ret_repair()).
 *
 * The arithmetic is in dctcp.h (unit-tested on the host).
 */
#ifndef CCSUITE_DCTCP_CORE_BPF_H
#define CCSUITE_DCTCP_CORE_BPF_H

#include "ccsuite.bpf.h"
#include "dctcp.h"

struct dctcp_core {
	__u32 old_delivered;
	__u32 old_delivered_ce;
	__u32 prior_rcv_nxt;
	__u32 alpha; /* 1.0 = DCTCP_ALPHA_ONE */
	__u32 next_seq;
	__u32 ce_state;
	__u32 loss_cwnd;
	__u32 ssthresh; /* what ssthresh() last gave the kernel */
	__u32 prev_una; /* snd_una after the last ACK */
	struct ccs_prr prr;
	__u32 ecn;	 /* ECN negotiated: DCTCP proper, else Reno */
	__u32 flow_live; /* init() ran: CCS_FLOW_INIT() */
	/* Counts of every ACK and window, kept here and added to the stats
	 * map every DCTCP_STAT_BATCH ACKs and when the flow ends: a map
	 * update per ACK costs more than the rest of in_ack_event(). */
	__u16 b_acks;
	__u16 b_ece;
	__u32 b_alpha_updates;
	__u32 b_delivered;
	__u32 b_delivered_ce;
};

#define DCTCP_STAT_BATCH 64

static __always_inline void dctcp_core_flush_stats(struct dctcp_core *ca)
{
	struct ccs_stats *s = ccs_stats_this_cpu();

	ccs_stat_add_to(s, CCS_STAT_ACKS, ca->b_acks);
	ccs_stat_add_to(s, CCS_STAT_ECE_ACKS, ca->b_ece);
	ccs_stat_add_to(s, DCTCP_STAT_ALPHA_UPDATES, ca->b_alpha_updates);
	ccs_stat_add_to(s, DCTCP_STAT_DELIVERED, ca->b_delivered);
	ccs_stat_add_to(s, DCTCP_STAT_DELIVERED_CE, ca->b_delivered_ce);
	ca->b_acks = 0;
	ca->b_ece = 0;
	ca->b_alpha_updates = 0;
	ca->b_delivered = 0;
	ca->b_delivered_ce = 0;
}

/* release(): the flow's last counts, then CCS_FLOW_RELEASE(). */
#define DCTCP_CORE_RELEASE(ca)                       \
	({                                           \
		if (CCS_STATS_ON && (ca)->flow_live) \
			dctcp_core_flush_stats(ca);  \
		CCS_FLOW_RELEASE(ca);                \
	})

static __always_inline void dctcp_core_reset(const struct tcp_sock *tp, struct dctcp_core *ca)
{
	ca->next_seq = tp->snd_nxt;
	ca->old_delivered = tp->delivered;
	ca->old_delivered_ce = tp->delivered_ce;
}

/*
 * @alpha_on_init in 1/1024 (the tunables' units).  Returns false when the
 * flow did not negotiate ECN and went to the kernel's reno: a DCTCP sender
 * without ECN must not send ECT (RFC 3168: a marking AQM would mark what it
 * should drop, and no CE would ever be echoed), and only a CC without
 * TCP_CONG_NEEDS_ECN gets INET_ECN_dontxmit() from the kernel; Linux's
 * DCTCP likewise hands such a socket to its dctcp-reno ops.  The CC's state
 * is then not touched (it is reno's now).  Where the switch is refused (a
 * nested init, -EBUSY) the flow runs as Reno inside the CC, still ECT.
 */
static __always_inline bool dctcp_core_init(struct sock *sk, struct dctcp_core *ca,
					    __u32 alpha_on_init)
{
	char reno[8] = "reno"; /* on the stack: writable memory on every kernel */
	struct tcp_sock *tp = tcp_sk(sk);

	ca->ecn = tcp_ecn_ok(tp) || sk->__sk_common.skc_state == TCP_LISTEN ||
		  sk->__sk_common.skc_state == TCP_CLOSE;
	if (!ca->ecn) {
		ccs_stat_inc(DCTCP_STAT_NO_ECN);
		if (!bpf_setsockopt(sk, SOL_TCP, TCP_CONGESTION, reno, sizeof(reno))) {
			ccs_stat_inc(DCTCP_STAT_TO_RENO);
			return false;
		}
	}
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->alpha = dctcp_alpha_from_1024(alpha_on_init);
	ca->loss_cwnd = 0;
	ca->ssthresh = TCP_INFINITE_SSTHRESH;
	ca->prev_una = tp->snd_una;
	ca->prr.delivered = 0;
	ca->prr.high_seq = tp->high_seq;
	ca->ce_state = 0;
	ca->b_acks = 0;
	ca->b_ece = 0;
	ca->b_alpha_updates = 0;
	ca->b_delivered = 0;
	ca->b_delivered_ce = 0;
	dctcp_core_reset(tp, ca);
	CCS_FLOW_INIT(ca);
	return true;
}

/* Once per window (snd_una passed the window's end): fold F into alpha. */
static __always_inline void dctcp_core_update_alpha(struct sock *sk, struct dctcp_core *ca,
						    __u32 shift_g)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	__u32 delivered, delivered_ce;

	if (before(tp->snd_una, ca->next_seq))
		return;
	delivered = tp->delivered - ca->old_delivered;
	delivered_ce = tp->delivered_ce - ca->old_delivered_ce;
	ca->alpha = dctcp_alpha_next(ca->alpha, delivered, delivered_ce, shift_g);
	dctcp_core_reset(tp, ca);
	if (CCS_STATS_ON) {
		ca->b_alpha_updates++;
		ca->b_delivered += delivered;
		ca->b_delivered_ce += delivered_ce;
	}
}

/* What the CC last meant ssthresh and cwnd to be, put back where the
 * kernel holds a value it did not return (ccs_ret_repair()). */
static __always_inline void dctcp_core_repair(struct sock *sk, const struct dctcp_core *ca)
{
	ccs_ret_repair(sk, ca->ssthresh, ca->loss_cwnd);
}

/*
 * ssthresh(): with ECN, the window cut by @p, the fraction of a window a
 * DCTCP-style CC gives back (alpha/2 for DCTCP itself, DCTCP_ALPHA_ONE =
 * all of it); without, Reno's halving.  The result is kept for
 * ccs_ret_repair().
 */
static __always_inline __u32 dctcp_core_ssthresh(struct sock *sk, struct dctcp_core *ca, __u32 p)
{
	__u32 cwnd;

	dctcp_core_repair(sk, ca);
	cwnd = tcp_sk(sk)->snd_cwnd;
	ccs_stat_inc(CCS_STAT_CWND_REDUCTIONS);
	ca->loss_cwnd = cwnd;
	ca->ssthresh = ca->ecn ? dctcp_ssthresh_of(cwnd, p) : dctcp_loss_ssthresh(cwnd);
	return ca->ssthresh;
}

/*
 * cong_control(): the window in CWR and Recovery (PRR), and the segments
 * this ACK lets it grow by, 0 for none (the CC grows it, then calls
 * ccs_update_pacing_rate()).
 */
static __always_inline __u32 dctcp_core_control(struct sock *sk, struct dctcp_core *ca,
						const struct rate_sample *rs, int flag)
{
	return ccs_own_window(sk, &ca->prr, &ca->prev_una, ca->ssthresh, ca->loss_cwnd, rs, flag);
}

static __always_inline void dctcp_core_in_ack_event(struct sock *sk, struct dctcp_core *ca,
						    __u32 flags, __u32 shift_g)
{
	if (CCS_STATS_ON) {
		ca->b_ece += !!(flags & CA_ACK_ECE);
		if (++ca->b_acks >= DCTCP_STAT_BATCH)
			dctcp_core_flush_stats(ca);
	}
	if (ca->ecn)
		dctcp_core_update_alpha(sk, ca, shift_g);
}

/* Real loss: a Reno halving, once per episode (RTO in cwnd_event, fast
 * recovery in set_state), whatever alpha says. */
static __always_inline void dctcp_core_react_to_loss(struct sock *sk, struct dctcp_core *ca)
{
	struct tcp_sock *tp = tcp_sk(sk);

	ca->loss_cwnd = tp->snd_cwnd;
	ca->ssthresh = dctcp_loss_ssthresh(tp->snd_cwnd);
	tp->snd_ssthresh = ca->ssthresh;
}

static __always_inline void dctcp_core_set_state(struct sock *sk, struct dctcp_core *ca,
						 __u8 new_state, bool clamp_alpha_on_loss)
{
	dctcp_core_repair(sk, ca);
	if (new_state == TCP_CA_Recovery && new_state != inet_csk(sk)->icsk_ca_state)
		dctcp_core_react_to_loss(sk, ca);
	if (new_state == TCP_CA_Loss && clamp_alpha_on_loss)
		ca->alpha = DCTCP_ALPHA_ONE;
}

/* Receiver: ECN-Echo must follow the CE state of the data exactly (RFC 8257
 * section 3.2), so an ACK goes out at every flip of that state. */
static __always_inline void dctcp_core_ece_ack_cwr(struct sock *sk, __u32 ce_state)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (ce_state == 1)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

static __always_inline void dctcp_core_ece_ack_update(struct sock *sk, enum tcp_ca_event ev,
						      struct dctcp_core *ca)
{
	__u32 new_ce_state = ev == CA_EVENT_ECN_IS_CE;

	if (ca->ce_state != new_ce_state) {
		ccs_stat_inc(DCTCP_STAT_CE_FLIPS);
		/* A delayed ACK still covers data of the old state: send it
		 * now with the old ECE value, then ACK the new state at once. */
		if (inet_csk(sk)->icsk_ack.pending & ICSK_ACK_TIMER) {
			dctcp_core_ece_ack_cwr(sk, ca->ce_state);
			bpf_tcp_send_ack(sk, ca->prior_rcv_nxt);
			ccs_stat_inc(DCTCP_STAT_DELAYED_ACK_FLUSH);
		}
		inet_csk(sk)->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	ca->prior_rcv_nxt = tcp_sk(sk)->rcv_nxt;
	ca->ce_state = new_ce_state;
	dctcp_core_ece_ack_cwr(sk, new_ce_state);
}

static __always_inline void dctcp_core_cwnd_event(struct sock *sk, struct dctcp_core *ca,
						  enum tcp_ca_event ev)
{
	dctcp_core_repair(sk, ca);
	switch (ev) {
	case CA_EVENT_ECN_IS_CE:
	case CA_EVENT_ECN_NO_CE: dctcp_core_ece_ack_update(sk, ev, ca); break;
	case CA_EVENT_LOSS:
		ccs_stat_inc(CCS_STAT_RTO);
		dctcp_core_react_to_loss(sk, ca);
		break;
	case CA_EVENT_TX_START: ccs_cwnd_restart_after_idle(sk); break;
	default: break;
	}
}

static __always_inline __u32 dctcp_core_undo_cwnd(struct sock *sk, const struct dctcp_core *ca)
{
	dctcp_core_repair(sk, ca);
	ccs_stat_inc(CCS_STAT_UNDO);
	return max(tcp_sk(sk)->snd_cwnd, ca->loss_cwnd);
}

#endif /* CCSUITE_DCTCP_CORE_BPF_H */
