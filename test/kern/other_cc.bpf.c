// SPDX-License-Identifier: GPL-2.0
/*
 * A valid congestion control that is not ccload's (Reno through the
 * kernel's kfuncs), for the tests: registered with bpftool it is a CC
 * someone else attached, which ccload detach --all must leave alone; built
 * with -DCC_NAME='".."' it is an object whose CC name must not become a
 * pin directory (attach --obj refuses it).
 */
#include "ccsuite.bpf.h"

#ifndef CC_NAME
#define CC_NAME "bpf_ccs_other"
#endif

char _license[] SEC("license") = "GPL";

extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

SEC("struct_ops")
__u32 BPF_PROG(other_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(other_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
__u32 BPF_PROG(other_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops ccs_other = {
	.ssthresh = (void *)other_ssthresh,
	.cong_avoid = (void *)other_cong_avoid,
	.undo_cwnd = (void *)other_undo_cwnd,
	.name = CC_NAME,
};
