// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_ccsdummy: the smallest algorithm with a struct_ops map and a TC
 * role, for test/kern/test_algo.c, which shows that such an algorithm is
 * this file and one registry entry.  The CC is Reno through the kernel's
 * kfuncs (it is not a suite algorithm); the TC role counts TCP packets
 * into the algorithm's own stats, scaled by a tunable, so the test sees
 * both programs share the maps and the .rodata of one attach.
 */
#include "ccsuite.bpf.h"
#include "parse.bpf.h"
#include "ccsdummy.h"

char _license[] SEC("license") = "GPL";

DUMMY_TUNABLES(CCS_TUNABLE_RODATA)

extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

SEC("struct_ops")
void BPF_PROG(dummy_init, struct sock *sk)
{
	ccs_stat_inc_exact(CCS_STAT_FLOWS_INIT);
}

SEC("struct_ops")
__u32 BPF_PROG(dummy_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(dummy_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
__u32 BPF_PROG(dummy_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC("tc")
int dummy_count(struct __sk_buff *skb)
{
	struct ccs_pkt p;

	if (ccs_parse(skb, &p) == CCS_PKT_IP && p.tcp)
		ccs_stat_add(DUMMY_STAT_PKTS, step);
	return TC_ACT_OK;
}

SEC(".struct_ops")
struct tcp_congestion_ops ccsdummy = {
	.init = (void *)dummy_init,
	.ssthresh = (void *)dummy_ssthresh,
	.cong_avoid = (void *)dummy_cong_avoid,
	.undo_cwnd = (void *)dummy_undo_cwnd,
	.name = "bpf_ccsdummy",
};
