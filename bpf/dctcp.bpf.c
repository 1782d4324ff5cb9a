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
 * The machinery is in lib/dctcp_core.bpf.h (shared with bpf_tldct), the
 * arithmetic in dctcp.h (unit-tested on the host).
 */
#include "dctcp_core.bpf.h"

char _license[] SEC("license") = "GPL";

/* Tunables (ccload attach bpf_dctcp --set name=value), fixed at load. */
DCTCP_TUNABLES(CCS_TUNABLE_RODATA)
DCTCP_ONLY_TUNABLES(CCS_TUNABLE_RODATA)

/* icsk_ca_priv is 13 u64 on every supported kernel. */
_Static_assert(sizeof(struct dctcp_core) <= 13 * sizeof(__u64), "ca state too big");

SEC("struct_ops")
void BPF_PROG(dctcp_init, struct sock *sk)
{
	dctcp_core_init(sk, inet_csk_ca(sk), alpha_on_init);
}

SEC("struct_ops")
void BPF_PROG(dctcp_release, struct sock *sk)
{
	DCTCP_CORE_RELEASE((struct dctcp_core *)inet_csk_ca(sk));
}

SEC("struct_ops")
__u32 BPF_PROG(dctcp_ssthresh, struct sock *sk)
{
	struct dctcp_core *ca = inet_csk_ca(sk);

	return ccs_ret(dctcp_core_ssthresh(sk, ca, ca->alpha));
}

SEC("struct_ops")
void BPF_PROG(dctcp_in_ack_event, struct sock *sk, __u32 flags)
{
	dctcp_core_in_ack_event(sk, inet_csk_ca(sk), flags, shift_g);
}

SEC("struct_ops")
void BPF_PROG(dctcp_set_state, struct sock *sk, __u8 new_state)
{
	dctcp_core_set_state(sk, inet_csk_ca(sk), new_state, clamp_alpha_on_loss);
}

SEC("struct_ops")
void BPF_PROG(dctcp_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	dctcp_core_cwnd_event(sk, inet_csk_ca(sk), ev);
}

SEC("struct_ops")
__u32 BPF_PROG(dctcp_undo_cwnd, struct sock *sk)
{
	return ccs_ret(dctcp_core_undo_cwnd(sk, inet_csk_ca(sk)));
}

/* Reno growth; PRR and pacing as the kernel does them (dctcp_core_control). */
SEC("struct_ops")
void BPF_PROG(dctcp_cong_control, CCS_CONG_CONTROL_ARGS)
{
	struct dctcp_core *ca = inet_csk_ca(sk);
	__u32 acked = dctcp_core_control(sk, ca, rs, CCS_ACK_FLAG(ca->prev_una));

	if (acked)
		ccs_reno_cong_avoid(sk, acked);
	ccs_update_pacing_rate(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops dctcp = {
	.init = (void *)dctcp_init,
	.release = (void *)dctcp_release,
	.in_ack_event = (void *)dctcp_in_ack_event,
	.cwnd_event = (void *)dctcp_cwnd_event,
	.ssthresh = (void *)dctcp_ssthresh,
	.cong_control = (void *)dctcp_cong_control,
	.undo_cwnd = (void *)dctcp_undo_cwnd,
	.set_state = (void *)dctcp_set_state,
	.flags = TCP_CONG_NEEDS_ECN,
#ifdef CCS_FAULT_RET
	.name = "bpf_dctcp_fault",
#else
	.name = "bpf_dctcp",
#endif
};
