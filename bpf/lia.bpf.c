// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_lia: RFC 6356's Linked Increases Algorithm for upstream Linux MPTCP.
 *
 * Each subflow (an ordinary TCP socket with its own instance of the CC)
 * grows, in congestion avoidance, by min(alpha / w_total, 1 / w_r) per
 * ACKed segment, from its connection's windows and RTTs (the coupling
 * entry: lib/coupled.bpf.h; the arithmetic: lia.h); slow start and the
 * loss response (halving, PRR) are Reno's, per subflow, but a connection
 * halves once per congestion event (cut_once, coupled.bpf.h).  A plain
 * TCP flow on bpf_lia is a connection of one subflow: Reno.
 */
#include "coupled.bpf.h"
#include "lia.h"

char _license[] SEC("license") = "GPL";

_Static_assert(sizeof(struct cpl_core) <= 13 * sizeof(__u64), "ca state too big");

SEC("sockops")
int lia_sockops(struct bpf_sock_ops *skops)
{
	cpl_sockops(skops);
	return 1;
}

SEC("struct_ops")
void BPF_PROG(lia_init, struct sock *sk)
{
	cpl_core_init(sk, inet_csk_ca(sk));
}

SEC("struct_ops")
void BPF_PROG(lia_release, struct sock *sk)
{
	cpl_core_release(inet_csk_ca(sk));
}

SEC("struct_ops")
__u32 BPF_PROG(lia_ssthresh, struct sock *sk)
{
	return cpl_core_ssthresh(sk, inet_csk_ca(sk));
}

SEC("struct_ops")
__u32 BPF_PROG(lia_undo_cwnd, struct sock *sk)
{
	return cpl_core_undo_cwnd(sk, inet_csk_ca(sk));
}

/* The kernel calls set_state() right after it took ssthresh()'s result
 * (entering CWR, Recovery or Loss): a corrupted one is put right here,
 * before TCP sends under it, not at the next ACK (ccs_ret_repair()). */
SEC("struct_ops")
void BPF_PROG(lia_set_state, struct sock *sk, __u8 new_state)
{
	cpl_core_repair(sk, inet_csk_ca(sk));
}

SEC("struct_ops")
void BPF_PROG(lia_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	cpl_core_cwnd_event(sk, inet_csk_ca(sk), ev);
}

SEC("struct_ops")
void BPF_PROG(lia_cong_control, CCS_CONG_CONTROL_ARGS)
{
	struct cpl_core *m = inet_csk_ca(sk);
	struct ccs_stats *s = ccs_stats_this_cpu();
	struct lia_coupling c;
	__u32 acked = cpl_core_control(sk, m, rs, CCS_ACK_FLAG(m->prev_una));
	int coupled;
	__u64 cnt;

	ccs_stat_add_to(s, CCS_STAT_ACKS, 1);
	cpl_update(sk, m, &c);
	if (acked) {
		cnt = lia_cnt(&c, tcp_sk(sk)->snd_cwnd, &coupled);
		ccs_stat_add_to(s, coupled ? CPL_STAT_INC_COUPLED : CPL_STAT_INC_UNCOUPLED, 1);
		cpl_core_grow(sk, m, acked, cnt);
	}
	ccs_update_pacing_rate(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops lia = {
	.init = (void *)lia_init,
	.release = (void *)lia_release,
	.ssthresh = (void *)lia_ssthresh,
	.undo_cwnd = (void *)lia_undo_cwnd,
	.cwnd_event = (void *)lia_cwnd_event,
	.set_state = (void *)lia_set_state,
	.cong_control = (void *)lia_cong_control,
	.name = "bpf_lia",
};
