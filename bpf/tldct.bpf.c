// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_tldct: task-aware DCTCP.  DCTCP's alpha (lib/dctcp_core.bpf.h), with
 * the window cut and the growth scaled by the task-size factor beta and the
 * tail factor gamma (tldct.h has the definitions and their arithmetic).
 *
 * A flow's task:
 *  - identity: the task id the application wrote into the socket's entry of
 *    tldct_sk (ccload task, or ccs_task_set() in loader/task_api.h), which
 *    wins; otherwise the socket's cgroup v2 id, so the workers of one job in
 *    one cgroup form a task without any code change; 0 = no task;
 *  - S_t and n: the receiver's view when it runs bpf_tldct too (the sockops
 *    program below carries the task id on the SYN; the receiver counts the
 *    task's bytes and live flows and echoes them on its ACKs), else the
 *    sender's own table of its local flows (stats view_remote / view_local).
 *    A flow without a task is a task of one (S_t = S_f, n = 1).
 *  - S_f: the bytes this flow got acknowledged (tp->bytes_acked).
 * The view is refreshed once per window, when alpha is, and beta and gamma
 * are kept in the flow's state for the cut and the growth.
 *
 * Tables are LRU hashes of TLDCT_MAX_TASKS entries: when one is full the
 * least recently used task is evicted, and its flows count afresh from
 * their next window (the sender) or next flow (the receiver).
 */
#include "dctcp_core.bpf.h"
#include "tldct.h"

char _license[] SEC("license") = "GPL";

/* Tunables (ccload attach bpf_tldct --set name=value), fixed at load. */
const volatile __u32 shift_g = 4;			/* DCTCP's g = 1 / 2^shift_g */
const volatile __u32 alpha_on_init = DCTCP_MAX_ALPHA;	/* 1/1024 */
const volatile __u32 task_min_kb = 47;			/* beta's ramp, KB */
const volatile __u32 task_max_kb = 100;
const volatile __u32 beta_min = TLDCT_ONE / 2;		/* 1/1024 */
const volatile __u32 beta_max = TLDCT_ONE * 3 / 2;
const volatile __u32 grow_min = TLDCT_ONE / 2;		/* growth scale clamp, 1/1024 */
const volatile __u32 grow_max = TLDCT_ONE * 2;
const volatile __u32 use_feedback = 1;			/* 0: local table only */

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tldct_sk);
} tldct_sk SEC(".maps");

/* The sender's tasks (its own flows), and the receiver's (flows that
 * arrived with a task id). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TLDCT_MAX_TASKS);
	__type(key, __u64);
	__type(value, struct tldct_task);
} tldct_tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TLDCT_MAX_TASKS);
	__type(key, __u64);
	__type(value, struct tldct_task);
} tldct_rx_tasks SEC(".maps");

struct tldct_ca {
	struct dctcp_core core;
	__u32 beta;		/* 1/1024, of the last window */
	__u32 gamma;		/* 1/1024 */
};

_Static_assert(sizeof(struct tldct_ca) <= 13 * sizeof(__u64), "ca state too big");

static __always_inline void tldct_params(struct tldct_params *p)
{
	p->task_min = (__u64)task_min_kb << 10;
	p->task_max = (__u64)task_max_kb << 10;
	p->beta_min = beta_min;
	p->beta_max = beta_max;
	p->grow_min = grow_min;
	p->grow_max = grow_max;
}

/* The socket's cgroup v2 id (its creator's cgroup). */
static __always_inline __u64 sk_cgroup_id(const struct sock *sk)
{
	return BPF_CORE_READ(sk, sk_cgrp_data.cgroup, kn, id);
}

/* The socket's tldct_sk entry with its task resolved (NULL: no memory). */
static __always_inline struct tldct_sk *tldct_sk_of(struct sock *sk)
{
	struct tldct_sk *ts = bpf_sk_storage_get(&tldct_sk, sk, NULL, BPF_SK_STORAGE_GET_F_CREATE);

	if (ts && !(ts->flags & TLDCT_SK_RESOLVED)) {
		if (!(ts->flags & TLDCT_SK_EXPLICIT))
			ts->task = sk_cgroup_id(sk);
		ts->flags |= TLDCT_SK_RESOLVED;
	}
	return ts;
}

/* Add @bytes and @flows to @task in @table, creating the entry. */
static __always_inline int task_add(void *table, __u64 task, __u64 bytes, int flows,
				    __u32 new_stat)
{
	struct tldct_task *t = bpf_map_lookup_elem(table, &task), zero = {};

	if (!t) {
		if (flows <= 0)		/* evicted meanwhile: nothing to undo */
			return 0;
		/* another flow of the task may have made it meanwhile: fine */
		bpf_map_update_elem(table, &task, &zero, BPF_NOEXIST);
		t = bpf_map_lookup_elem(table, &task);
		if (!t)
			return -1;
		ccs_stat_inc(new_stat);
	}
	if (bytes)
		__sync_fetch_and_add(&t->bytes, bytes);
	if (flows) {
		__sync_fetch_and_add(&t->flows, flows);
		/* the task's last flow took the entry with it (a flow starting
		 * just now may see it go: it makes a new one) */
		if (flows < 0 && !*(volatile __u32 *)&t->flows)
			bpf_map_delete_elem(table, &task);
	}
	return 0;
}

/* Sender: add what this flow got acked since the last call to its task. */
static __always_inline void account_local(struct sock *sk, struct tldct_sk *ts)
{
	__u64 acked = tcp_sk(sk)->bytes_acked;

	if (!ts->task)
		return;
	if (!(ts->flags & TLDCT_SK_LOCAL)) {
		if (task_add(&tldct_tasks, ts->task, acked - ts->counted, 1,
			     TLDCT_STAT_LOCAL_TASKS_NEW))
			return;
		ts->flags |= TLDCT_SK_LOCAL;
	} else if (acked != ts->counted) {
		task_add(&tldct_tasks, ts->task, acked - ts->counted, 0, 0);
	}
	ts->counted = acked;
}

/* Once per window: S_t and n of the flow's task, then beta and gamma. */
static __always_inline void refresh_factors(struct sock *sk, struct tldct_ca *ca)
{
	struct tldct_sk *ts = tldct_sk_of(sk);
	__u64 s_f = tcp_sk(sk)->bytes_acked, s_t = s_f;
	struct tldct_params p;
	struct tldct_task *t;
	__u32 n = 1, src = TLDCT_STAT_VIEW_NO_TASK;

	if (ts) {
		account_local(sk, ts);
		if (use_feedback && (ts->flags & TLDCT_SK_FEEDBACK) && tldct_feedback_n(ts->fb)) {
			s_t = tldct_feedback_bytes(ts->fb);
			n = tldct_feedback_n(ts->fb);
			src = TLDCT_STAT_VIEW_REMOTE;
		} else if (ts->task && (t = bpf_map_lookup_elem(&tldct_tasks, &ts->task)) && t->flows) {
			s_t = t->bytes;
			n = t->flows;
			src = TLDCT_STAT_VIEW_LOCAL;
		}
	}
	tldct_params(&p);
	ca->beta = tldct_beta(&p, s_t);
	ca->gamma = tldct_gamma(s_f, s_t, n);
	ccs_stat_inc(src);
}

SEC("struct_ops")
void BPF_PROG(tldct_init, struct sock *sk)
{
	struct tldct_ca *ca = inet_csk_ca(sk);

	dctcp_core_init(sk, &ca->core, alpha_on_init);
	ca->beta = TLDCT_ONE;
	ca->gamma = 0;
}

SEC("struct_ops")
void BPF_PROG(tldct_release, struct sock *sk)
{
	struct tldct_sk *ts = bpf_sk_storage_get(&tldct_sk, sk, NULL, 0);

	ccs_stat_inc(CCS_STAT_FLOWS_RELEASE);
	if (ts && (ts->flags & TLDCT_SK_LOCAL)) {
		task_add(&tldct_tasks, ts->task, tcp_sk(sk)->bytes_acked - ts->counted, -1, 0);
		ts->flags &= ~TLDCT_SK_LOCAL;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(tldct_ssthresh, struct sock *sk)
{
	struct tldct_ca *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	ccs_stat_inc(CCS_STAT_CWND_REDUCTIONS);
	ca->core.loss_cwnd = tp->snd_cwnd;
	if (!ca->core.ecn)
		return dctcp_loss_ssthresh(tp->snd_cwnd);
	ccs_stat_set(TLDCT_STAT_BETA, ca->beta);
	ccs_stat_set(TLDCT_STAT_GAMMA, ca->gamma);
	return tldct_ssthresh_of(tp->snd_cwnd, ca->core.alpha, ca->beta, ca->gamma);
}

SEC("struct_ops")
void BPF_PROG(tldct_in_ack_event, struct sock *sk, __u32 flags)
{
	struct tldct_ca *ca = inet_csk_ca(sk);

	/* the window ends: the task view is refreshed with alpha */
	if (ca->core.ecn && !before(tcp_sk(sk)->snd_una, ca->core.next_seq))
		refresh_factors(sk, ca);
	dctcp_core_in_ack_event(sk, &ca->core, flags, shift_g);
}

SEC("struct_ops")
void BPF_PROG(tldct_set_state, struct sock *sk, __u8 new_state)
{
	dctcp_core_set_state(sk, &((struct tldct_ca *)inet_csk_ca(sk))->core, new_state, false);
}

SEC("struct_ops")
void BPF_PROG(tldct_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	dctcp_core_cwnd_event(sk, &((struct tldct_ca *)inet_csk_ca(sk))->core, ev);
}

SEC("struct_ops")
__u32 BPF_PROG(tldct_undo_cwnd, struct sock *sk)
{
	return dctcp_core_undo_cwnd(sk, &((struct tldct_ca *)inet_csk_ca(sk))->core);
}

SEC("struct_ops")
void BPF_PROG(tldct_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tldct_ca *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct tldct_params p;

	acked = ccs_slow_start_part(sk, acked);
	if (!acked)
		return;
	tldct_params(&p);
	tcp_cong_avoid_ai(tp, tldct_ai_window(&p, tp->snd_cwnd, ca->beta, ca->gamma), acked);
}

SEC(".struct_ops")
struct tcp_congestion_ops tldct = {
	.init		= (void *)tldct_init,
	.release	= (void *)tldct_release,
	.in_ack_event	= (void *)tldct_in_ack_event,
	.cwnd_event	= (void *)tldct_cwnd_event,
	.ssthresh	= (void *)tldct_ssthresh,
	.cong_avoid	= (void *)tldct_cong_avoid,
	.undo_cwnd	= (void *)tldct_undo_cwnd,
	.set_state	= (void *)tldct_set_state,
	.flags		= TCP_CONG_NEEDS_ECN,
	.name		= "bpf_tldct",
};
