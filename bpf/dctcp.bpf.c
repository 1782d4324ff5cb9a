// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_dctcp: DCTCP (RFC 8257) as a struct_ops congestion control.
 *
 * Sender: ECN is negotiated through TCP_CONG_NEEDS_ECN; once per window of
 * data alpha moves towards the fraction of CE-marked deliveries, and a
 * window with ECN-Echo is cut by alpha/2 (ssthresh()).  Real loss halves the
 * window as Reno does.  Receiver: the CE state machine sends an immediate ACK
 * whenever the CE state of arriving data flips, flushing a pending delayed
 * ACK first, so the sender sees the exact marked byte count.
 *
 * The arithmetic is in dctcp.h (unit-tested on the host).
 */
#include "ccsuite.bpf.h"
#include "dctcp.h"

char _license[] SEC("license") = "GPL";

/* Tunables (ccload attach bpf_dctcp --set name=value), fixed at load. */
const volatile __u32 shift_g = 4;			/* g = 1 / 2^shift_g */
const volatile __u32 alpha_on_init = DCTCP_MAX_ALPHA;	/* 1/1024 units; start cautious */
const volatile __u32 clamp_alpha_on_loss = 0;		/* alpha := 1 after RTO */

struct dctcp_ca {
	__u32 old_delivered;
	__u32 old_delivered_ce;
	__u32 prior_rcv_nxt;
	__u32 alpha;		/* 1.0 = DCTCP_ALPHA_ONE */
	__u32 next_seq;
	__u32 ce_state;
	__u32 loss_cwnd;
	__u32 ecn;		/* ECN negotiated: DCTCP proper, else Reno */
};

/* icsk_ca_priv is 13 u64 on every supported kernel. */
_Static_assert(sizeof(struct dctcp_ca) <= 13 * sizeof(__u64), "ca state too big");

static __always_inline void dctcp_reset(const struct tcp_sock *tp, struct dctcp_ca *ca)
{
	ca->next_seq = tp->snd_nxt;
	ca->old_delivered = tp->delivered;
	ca->old_delivered_ce = tp->delivered_ce;
}

SEC("struct_ops")
void BPF_PROG(dctcp_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp_ca *ca = inet_csk_ca(sk);

	ca->ecn = tcp_ecn_ok(tp) || sk->__sk_common.skc_state == TCP_LISTEN ||
		  sk->__sk_common.skc_state == TCP_CLOSE;
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->alpha = dctcp_alpha_from_1024(alpha_on_init);
	ca->loss_cwnd = 0;
	ca->ce_state = 0;
	dctcp_reset(tp, ca);
	ccs_stat_inc(CCS_STAT_FLOWS_INIT);
	if (!ca->ecn)
		ccs_stat_inc(DCTCP_STAT_NO_ECN);
}

SEC("struct_ops")
void BPF_PROG(dctcp_release, struct sock *sk)
{
	ccs_stat_inc(CCS_STAT_FLOWS_RELEASE);
}

SEC("struct_ops")
__u32 BPF_PROG(dctcp_ssthresh, struct sock *sk)
{
	struct dctcp_ca *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	ccs_stat_inc(CCS_STAT_CWND_REDUCTIONS);
	ca->loss_cwnd = tp->snd_cwnd;
	if (!ca->ecn)
		return dctcp_loss_ssthresh(tp->snd_cwnd);
	return dctcp_ssthresh_of(tp->snd_cwnd, ca->alpha);
}

/* Once per window (snd_una passed the window's end): fold F into alpha. */
static __always_inline void dctcp_update_alpha(struct sock *sk, struct dctcp_ca *ca)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	__u32 delivered, delivered_ce;

	if (before(tp->snd_una, ca->next_seq))
		return;
	delivered = tp->delivered - ca->old_delivered;
	delivered_ce = tp->delivered_ce - ca->old_delivered_ce;
	ca->alpha = dctcp_alpha_next(ca->alpha, delivered, delivered_ce, shift_g);
	dctcp_reset(tp, ca);
	ccs_stat_inc(DCTCP_STAT_ALPHA_UPDATES);
	ccs_stat_add(DCTCP_STAT_DELIVERED, delivered);
	ccs_stat_add(DCTCP_STAT_DELIVERED_CE, delivered_ce);
}

SEC("struct_ops")
void BPF_PROG(dctcp_in_ack_event, struct sock *sk, __u32 flags)
{
	struct dctcp_ca *ca = inet_csk_ca(sk);

	ccs_stat_inc(CCS_STAT_ACKS);
	if (flags & CA_ACK_ECE)
		ccs_stat_inc(CCS_STAT_ECE_ACKS);
	if (ca->ecn)
		dctcp_update_alpha(sk, ca);
}

/* Real loss: a Reno halving, once per episode (RTO here, fast recovery in
 * set_state), whatever alpha says. */
static __always_inline void dctcp_react_to_loss(struct sock *sk)
{
	struct dctcp_ca *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	ca->loss_cwnd = tp->snd_cwnd;
	tp->snd_ssthresh = dctcp_loss_ssthresh(tp->snd_cwnd);
}

SEC("struct_ops")
void BPF_PROG(dctcp_set_state, struct sock *sk, __u8 new_state)
{
	struct dctcp_ca *ca = inet_csk_ca(sk);

	if (new_state == TCP_CA_Recovery &&
	    new_state != inet_csk(sk)->icsk_ca_state)
		dctcp_react_to_loss(sk);
	if (new_state == TCP_CA_Loss && clamp_alpha_on_loss)
		ca->alpha = DCTCP_ALPHA_ONE;
}

/* Receiver: ECN-Echo must follow the CE state of the data exactly (RFC 8257
 * section 3.2), so an ACK goes out at every flip of that state. */
static __always_inline void dctcp_ece_ack_cwr(struct sock *sk, __u32 ce_state)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (ce_state == 1)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

static __always_inline void dctcp_ece_ack_update(struct sock *sk, enum tcp_ca_event ev,
						 struct dctcp_ca *ca)
{
	__u32 new_ce_state = ev == CA_EVENT_ECN_IS_CE;

	if (ca->ce_state != new_ce_state) {
		ccs_stat_inc(DCTCP_STAT_CE_FLIPS);
		/* A delayed ACK still covers data of the old state: send it
		 * now with the old ECE value, then ACK the new state at once. */
		if (inet_csk(sk)->icsk_ack.pending & ICSK_ACK_TIMER) {
			dctcp_ece_ack_cwr(sk, ca->ce_state);
			bpf_tcp_send_ack(sk, ca->prior_rcv_nxt);
			ccs_stat_inc(DCTCP_STAT_DELAYED_ACK_FLUSH);
		}
		inet_csk(sk)->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	ca->prior_rcv_nxt = tcp_sk(sk)->rcv_nxt;
	ca->ce_state = new_ce_state;
	dctcp_ece_ack_cwr(sk, new_ce_state);
}

SEC("struct_ops")
void BPF_PROG(dctcp_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct dctcp_ca *ca = inet_csk_ca(sk);

	switch (ev) {
	case CA_EVENT_ECN_IS_CE:
	case CA_EVENT_ECN_NO_CE:
		dctcp_ece_ack_update(sk, ev, ca);
		break;
	case CA_EVENT_LOSS:
		ccs_stat_inc(CCS_STAT_RTO);
		dctcp_react_to_loss(sk);
		break;
	default:
		break;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(dctcp_undo_cwnd, struct sock *sk)
{
	const struct dctcp_ca *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);

	ccs_stat_inc(CCS_STAT_UNDO);
	return max(tp->snd_cwnd, ca->loss_cwnd);
}

SEC("struct_ops")
void BPF_PROG(dctcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	ccs_reno_cong_avoid(sk, acked);
}

SEC(".struct_ops")
struct tcp_congestion_ops dctcp = {
	.init		= (void *)dctcp_init,
	.release	= (void *)dctcp_release,
	.in_ack_event	= (void *)dctcp_in_ack_event,
	.cwnd_event	= (void *)dctcp_cwnd_event,
	.ssthresh	= (void *)dctcp_ssthresh,
	.cong_avoid	= (void *)dctcp_cong_avoid,
	.undo_cwnd	= (void *)dctcp_undo_cwnd,
	.set_state	= (void *)dctcp_set_state,
	.flags		= TCP_CONG_NEEDS_ECN,
	.name		= "bpf_dctcp",
};
