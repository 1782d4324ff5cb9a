// SPDX-License-Identifier: GPL-2.0
/*
 * twin_dctcp: DCTCP with nothing but DCTCP, the way the kernel's BPF
 * selftests write it (progs/bpf_dctcp.c): state in icsk_ca_priv, alpha in
 * 1/1024, Reno growth, PRR and pacing left to the kernel (cong_avoid()),
 * no stats map, no tunables.  bench/cpucost runs it beside bpf_dctcp and
 * bpf_tldct to tell the struct_ops floor (what any BPF CC with these
 * callbacks costs) from the suite's own overhead.
 *
 * Bench-only: what ssthresh() returns goes to the kernel's PRR unrepaired
 * (bpf/lib/ccsuite.bpf.h, ccs_ret_repair(), says when the kernel gets
 * another value); the benchmark's flows run below the link rate, where
 * ssthresh() is not called.
 */
#include "ccsuite.bpf.h"

char _license[] SEC("license") = "GPL";

#define TWIN_MAX_ALPHA 1024U
#define TWIN_SHIFT_G   4 /* g = 1/16 */

extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;

struct twin_dctcp {
	__u32 old_delivered;
	__u32 old_delivered_ce;
	__u32 prior_rcv_nxt;
	__u32 alpha;
	__u32 next_seq;
	__u32 ce_state;
	__u32 loss_cwnd;
};

static __always_inline void twin_reset(const struct tcp_sock *tp, struct twin_dctcp *ca)
{
	ca->next_seq = tp->snd_nxt;
	ca->old_delivered = tp->delivered;
	ca->old_delivered_ce = tp->delivered_ce;
}

SEC("struct_ops")
void BPF_PROG(twin_init, struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct twin_dctcp *ca = inet_csk_ca(sk);

	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->alpha = TWIN_MAX_ALPHA;
	ca->loss_cwnd = 0;
	ca->ce_state = 0;
	twin_reset(tp, ca);
}

SEC("struct_ops")
__u32 BPF_PROG(twin_ssthresh, struct sock *sk)
{
	struct twin_dctcp *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);

	ca->loss_cwnd = tp->snd_cwnd;
	return max(tp->snd_cwnd - ((tp->snd_cwnd * ca->alpha) >> 11U), 2U);
}

SEC("struct_ops")
void BPF_PROG(twin_in_ack_event, struct sock *sk, __u32 flags)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct twin_dctcp *ca = inet_csk_ca(sk);
	__u32 alpha, delivered_ce, delivered;

	if (before(tp->snd_una, ca->next_seq))
		return;
	delivered_ce = tp->delivered_ce - ca->old_delivered_ce;
	alpha = ca->alpha;
	alpha -= alpha >> TWIN_SHIFT_G ?: alpha; /* min_not_zero() */
	if (delivered_ce) {
		delivered = max(1U, tp->delivered - ca->old_delivered);
		delivered_ce <<= 10 - TWIN_SHIFT_G;
		alpha = min(alpha + delivered_ce / delivered, TWIN_MAX_ALPHA);
	}
	ca->alpha = alpha;
	twin_reset(tp, ca);
}

static __always_inline void twin_react_to_loss(struct sock *sk)
{
	struct twin_dctcp *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	ca->loss_cwnd = tp->snd_cwnd;
	tp->snd_ssthresh = max(tp->snd_cwnd >> 1U, 2U);
}

SEC("struct_ops")
void BPF_PROG(twin_set_state, struct sock *sk, __u8 new_state)
{
	if (new_state == TCP_CA_Recovery && new_state != inet_csk(sk)->icsk_ca_state)
		twin_react_to_loss(sk);
}

/* The receiver's CE state machine (RFC 8257 3.2), as dctcp_ece_ack_update(). */
static __always_inline void twin_ece_ack_update(struct sock *sk, enum tcp_ca_event ev)
{
	struct twin_dctcp *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 new_ce_state = ev == CA_EVENT_ECN_IS_CE;

	if (ca->ce_state != new_ce_state) {
		if (inet_csk(sk)->icsk_ack.pending & ICSK_ACK_TIMER) {
			if (ca->ce_state)
				tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
			else
				tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
			bpf_tcp_send_ack(sk, ca->prior_rcv_nxt);
		}
		inet_csk(sk)->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->ce_state = new_ce_state;
	if (new_ce_state)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

SEC("struct_ops")
void BPF_PROG(twin_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	switch (ev) {
	case CA_EVENT_ECN_IS_CE:
	case CA_EVENT_ECN_NO_CE: twin_ece_ack_update(sk, ev); break;
	case CA_EVENT_LOSS: twin_react_to_loss(sk); break;
	default: break;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(twin_undo_cwnd, struct sock *sk)
{
	const struct twin_dctcp *ca = inet_csk_ca(sk);

	return max(tcp_sk(sk)->snd_cwnd, ca->loss_cwnd);
}

SEC("struct_ops")
void BPF_PROG(twin_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC(".struct_ops")
struct tcp_congestion_ops twin_dctcp = {
	.init = (void *)twin_init,
	.in_ack_event = (void *)twin_in_ack_event,
	.cwnd_event = (void *)twin_cwnd_event,
	.ssthresh = (void *)twin_ssthresh,
	.cong_avoid = (void *)twin_cong_avoid,
	.undo_cwnd = (void *)twin_undo_cwnd,
	.set_state = (void *)twin_set_state,
	/* non-restricted: a namespace may make it its default */
	.flags = TCP_CONG_NEEDS_ECN | TCP_CONG_NON_RESTRICTED,
	.name = "twin_dctcp",
};
