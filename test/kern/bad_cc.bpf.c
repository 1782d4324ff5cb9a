// SPDX-License-Identifier: GPL-2.0
/*
 * A congestion control the verifier must reject (it writes past
 * icsk_ca_priv): ccload's negative test shows the verifier log's tail.
 */
#include "ccsuite.bpf.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops")
void BPF_PROG(bad_init, struct sock *sk)
{
	__u64 *priv = inet_csk_ca(sk);

	priv[40] = 1; /* far beyond icsk_ca_priv */
}

SEC("struct_ops")
__u32 BPF_PROG(bad_ssthresh, struct sock *sk)
{
	return 2;
}

SEC("struct_ops")
__u32 BPF_PROG(bad_undo_cwnd, struct sock *sk)
{
	return 2;
}

SEC("struct_ops")
void BPF_PROG(bad_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
}

SEC(".struct_ops")
struct tcp_congestion_ops bad = {
	.init = (void *)bad_init,
	.ssthresh = (void *)bad_ssthresh,
	.undo_cwnd = (void *)bad_undo_cwnd,
	.cong_avoid = (void *)bad_cong_avoid,
	.name = "bpf_ccs_bad",
};
