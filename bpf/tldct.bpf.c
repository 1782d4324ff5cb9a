// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_tldct: task-aware DCTCP.  DCTCP's alpha (lib/dctcp_core.bpf.h), with
 * the window cut and the growth scaled by the task-size factor beta and the
 * tail factor gamma (tldct.h has the definitions and their arithmetic).
 *
 * A flow's task:
 *  - identity: the task id the application set (setsockopt TLDCT_TCP_TASK:
 *    ccs_task_set() in loader/task_api.h, or ccload task set), which wins;
 *    otherwise the socket's cgroup v2 id, so the workers of one job in
 *    one cgroup form a task without any code change; 0 = no task.  An id
 *    names a task of the socket's own cgroup and network namespace only
 *    (tldct.h, "Tenants"): the tables' keys hold both;
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
 * least recently used task is evicted, and its live flows join a fresh
 * entry with their own bytes at their next update (the sender: next window;
 * the receiver: next ACK), as entries carry an incarnation (tldct.h).  A
 * receiver makes an entry only for an established flow of a bpf_tldct
 * listener whose SYN named a task, at most peer_new_per_s a second for
 * one peer address, and removes it with the task's last flow: a peer can
 * neither grow the table beyond its bound nor flush others' live entries.
 */
#include "dctcp_core.bpf.h"
#include "group.bpf.h"
#include "tcpopt.bpf.h"
#include "tldct.h"

char _license[] SEC("license") = "GPL";

/* -DCCS_TWIN: bench/cpucost's twin of bpf_tldct, under its own name */
#ifdef CCS_TWIN
#define TLDCT_CC_NAME "twin_tldct"
#else
#define TLDCT_CC_NAME "bpf_tldct"
#endif

/* Tunables (ccload attach bpf_tldct --set name=value), fixed at load. */
DCTCP_TUNABLES(CCS_TUNABLE_RODATA)
TLDCT_TUNABLES(CCS_TUNABLE_RODATA)

/* The key of tldct_wire_id(): random bytes ccload writes at each attach
 * (loader/lib/registry.h), so a tenant cannot compute what another
 * cgroup's ids carry on the wire. */
const volatile __u64 ccs_secret[2] = {};

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
	__type(key, struct tldct_key);
	__type(value, struct tldct_task);
} tldct_tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TLDCT_MAX_TASKS);
	__type(key, struct tldct_key);
	__type(value, struct tldct_task);
} tldct_rx_tasks SEC(".maps");

/* The receiver's budget of new entries, per peer address (tldct.h). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TLDCT_MAX_TASKS);
	__type(key, struct tldct_peer_key);
	__type(value, struct tldct_peer);
} tldct_rx_peers SEC(".maps");

struct tldct_ca {
	struct dctcp_core core;
	__u32 beta;	    /* 1/1024, of the last window */
	__u32 gamma;	    /* 1/1024 */
	__u32 refreshed_us; /* tcp_mstamp's low bits at the last refresh */
};

/* The task view is refreshed at a window's end, at most this often: on a
 * path of microseconds (loopback) every ACK ends a window, and a refresh
 * (the flow's task entry, its bytes, beta and gamma) costs several times
 * DCTCP's own per-ACK work. */
#define TLDCT_REFRESH_MIN_US 500

_Static_assert(sizeof(struct tldct_ca) <= 13 * sizeof(__u64), "ca state too big");

static __always_inline void tldct_params(struct tldct_params *p)
{
	p->task_min = (__u64)task_min_kb << 10;
	p->task_max = (__u64)task_max_kb << 10;
	p->beta_min = beta_min;
	p->beta_max = beta_max;
	p->grow_min = grow_min;
	p->grow_max = grow_max;
	p->form = form;
	p->floor_dctcp = floor_dctcp;
	p->beta_left = beta_left;
	p->grow_l2dct = grow_l2dct;
}

/* The socket's cgroup v2 id (its creator's cgroup). */
static __always_inline __u64 sk_cgroup_id(const struct sock *sk)
{
	return BPF_CORE_READ(sk, sk_cgrp_data.cgroup, kn, id);
}

/* The socket's network namespace, by its cookie. */
static __always_inline __u64 sk_netns(const struct sock *sk)
{
	return ccs_sock_net(sk)->net_cookie;
}

/* The socket's tldct_sk entry with its task resolved (NULL: no memory):
 * the id named, else the cgroup's, scoped by the cgroup either way, and
 * what its SYN will carry. */
static __always_inline struct tldct_sk *tldct_sk_of(struct sock *sk)
{
	struct tldct_sk *ts = bpf_sk_storage_get(&tldct_sk, sk, NULL, BPF_SK_STORAGE_GET_F_CREATE);

	if (ts && !(ts->flags & TLDCT_SK_RESOLVED)) {
		ts->cgroup = sk_cgroup_id(sk);
		if (!(ts->flags & TLDCT_SK_EXPLICIT))
			ts->task = ts->cgroup;
		ts->wire = tldct_wire_id((const __u64 *)ccs_secret, ts->cgroup, ts->task);
		ts->flags |= TLDCT_SK_RESOLVED;
	}
	return ts;
}

/* A sender's entry: its task in its cgroup and namespace. */
static __always_inline void tx_key(const struct sock *sk, const struct tldct_sk *ts,
				   struct tldct_key *k)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->task = ts->task;
	k->cgroup = ts->cgroup;
	k->netns = sk_netns(sk);
}

/* A millisecond clock for feedback ages, the coarse one (the last tick's
 * time, no clock read): it runs on every ACK that carries feedback.  Not
 * jiffies: their HZ would come from the kernel's Kconfig, which Debian's
 * kernels do not expose (no /proc/config.gz), so libbpf could not load. */
static __always_inline __u32 now_ms(void)
{
	return (__u32)(bpf_ktime_get_coarse_ns() / 1000000);
}

/* The flow's task entry in @table, made if missing, with @total (the
 * flow's bytes so far) accounted: all of it when the flow has just joined
 * this incarnation of the entry (lib/group.bpf.h).  Returns the entry
 * (valid for this incarnation as of now), NULL if it has none. */
static __always_inline struct tldct_task *task_update(void *table, const struct tldct_key *key,
						      struct tldct_sk *ts, __u64 total,
						      __u32 made_stat)
{
	struct tldct_task fresh = {}, *t;
	bool joined;
	__u64 delta;

	t = (void *)ccs_group_join(table, key, &fresh, &ts->gen, &joined, made_stat,
				   TLDCT_STAT_REJOINED);
	if (!t)
		return NULL;
	delta = joined ? total : total - ts->counted;
	if (delta)
		__sync_fetch_and_add(&t->bytes, delta);
	if (!ccs_group_still(&t->grp, ts->gen)) {
		/* the entry is another task's now: take it back, join anew */
		if (delta)
			__sync_fetch_and_add(&t->bytes, -delta);
		ts->gen = 0;
		return NULL;
	}
	ts->counted = total;
	return t;
}

/* The flow ends: its last bytes, and one flow less (the entry goes with
 * the task's last flow).  Nothing if the entry is another incarnation. */
static __always_inline void task_leave(void *table, const struct tldct_key *key,
				       struct tldct_sk *ts, __u64 total)
{
	struct tldct_task *t = (void *)ccs_group_of(table, key, ts->gen);

	if (t && total != ts->counted) {
		__sync_fetch_and_add(&t->bytes, total - ts->counted);
		if (!ccs_group_still(&t->grp, ts->gen)) {
			__sync_fetch_and_add(&t->bytes, ts->counted - total);
			t = NULL;
		}
	}
	ccs_group_leave(table, key, t ? &t->grp : NULL, &ts->gen);
}

/* Once per window: S_t and n of the flow's task, then beta and gamma. */
static __always_inline void refresh_factors(struct sock *sk, struct tldct_ca *ca)
{
	struct tldct_sk *ts = tldct_sk_of(sk);
	__u64 s_f = tcp_sk(sk)->bytes_acked, s_t = s_f;
	struct tldct_params p;
	struct tldct_task *t;
	__u32 n = 1, src = TLDCT_STAT_VIEW_NO_TASK;

	/* the receiving end of a task's flow is no sender of it */
	if (ts && ts->task && !(ts->flags & TLDCT_SK_PEER)) {
		struct tldct_key key;

		tx_key(sk, ts, &key);
		t = task_update(&tldct_tasks, &key, ts, s_f, TLDCT_STAT_LOCAL_TASKS_NEW);
		if (use_feedback && (ts->flags & TLDCT_SK_FEEDBACK) && tldct_feedback_n(ts->fb) &&
		    now_ms() - ts->fb_ms <= TLDCT_FB_MAX_AGE_MS) {
			s_t = tldct_feedback_bytes_max(ts->fb);
			n = tldct_feedback_n(ts->fb);
			src = TLDCT_STAT_VIEW_REMOTE;
		} else if (t && t->grp.members) {
			s_t = t->bytes;
			n = t->grp.members;
			src = TLDCT_STAT_VIEW_LOCAL;
		}
	}
	tldct_params(&p);
	ca->beta = tldct_beta_of(&p, s_t, ts ? ts->size : 0);
	ca->gamma = tldct_gamma(s_f, s_t, n);
	ccs_stat_inc(src);
	if (p.beta_left && ts && ts->size)
		ccs_stat_inc(TLDCT_STAT_BETA_FROM_LEFT);
}

SEC("struct_ops")
void BPF_PROG(tldct_init, struct sock *sk)
{
	struct tldct_ca *ca = inet_csk_ca(sk);

	if (!dctcp_core_init(sk, &ca->core, alpha_on_init))
		return;
	ca->beta = TLDCT_ONE;
	ca->gamma = 0;
	ca->refreshed_us = (__u32)tcp_sk(sk)->tcp_mstamp - TLDCT_REFRESH_MIN_US;
}

SEC("struct_ops")
void BPF_PROG(tldct_release, struct sock *sk)
{
	struct tldct_ca *ca = inet_csk_ca(sk);
	struct tldct_sk *ts;

	if (!DCTCP_CORE_RELEASE(&ca->core))
		return;
	ts = bpf_sk_storage_get(&tldct_sk, sk, NULL, 0);
	if (ts && !(ts->flags & TLDCT_SK_PEER)) {
		struct tldct_key key;

		tx_key(sk, ts, &key);
		task_leave(&tldct_tasks, &key, ts, tcp_sk(sk)->bytes_acked);
	}
}

SEC("struct_ops")
__u32 BPF_PROG(tldct_ssthresh, struct sock *sk)
{
	struct tldct_ca *ca = inet_csk_ca(sk);

	if (ca->core.ecn) {
		ccs_stat_set(TLDCT_STAT_BETA, ca->beta);
		ccs_stat_set(TLDCT_STAT_GAMMA, ca->gamma);
	}
	return dctcp_core_ssthresh(sk, &ca->core,
				   tldct_p_form(form, floor_dctcp, ca->core.alpha, ca->beta,
						ca->gamma));
}

SEC("struct_ops")
void BPF_PROG(tldct_in_ack_event, struct sock *sk, __u32 flags)
{
	struct tldct_ca *ca = inet_csk_ca(sk);

	/* the window ends: the task view is refreshed with alpha */
	if (ca->core.ecn && !before(tcp_sk(sk)->snd_una, ca->core.next_seq) &&
	    (__u32)tcp_sk(sk)->tcp_mstamp - ca->refreshed_us >= TLDCT_REFRESH_MIN_US) {
		ca->refreshed_us = (__u32)tcp_sk(sk)->tcp_mstamp;
		refresh_factors(sk, ca);
	}
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

/* Slow start, then growth scaled by beta and gamma; PRR and pacing as the
 * kernel does them (dctcp_core_control). */
SEC("struct_ops")
void BPF_PROG(tldct_cong_control, CCS_CONG_CONTROL_ARGS)
{
	struct tldct_ca *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 acked = dctcp_core_control(sk, &ca->core, rs, CCS_ACK_FLAG(ca->core.prev_una));
	struct tldct_params p;

	if (acked)
		acked = ccs_slow_start_part(sk, acked);
	if (acked) {
		tldct_params(&p);
		tcp_cong_avoid_ai(tp,
				  tldct_ai_window_f(&p, tp->snd_cwnd,
						    tldct_form_factor(p.form, ca->beta, ca->gamma)),
				  acked);
	}
	ccs_update_pacing_rate(sk);
}

/* ---- sockops: the task id on the SYN, the receiver's view on its ACKs ---- */

/* Our option in the segment (or the SYN), @len bytes with the value in
 * @o->val; -1 if absent, -2 if one of ours has a bad length (counted). */
static __always_inline int load_opt(struct bpf_sock_ops *skops, struct ccs_expopt *o, __u32 len,
				    __u64 flags)
{
	int ret = ccs_expopt_load(skops, o, TLDCT_OPT_KIND, TLDCT_OPT_EXID, len, flags);

	if (ret == -2)
		ccs_stat_inc(TLDCT_STAT_OPT_BAD);
	return ret;
}

static __always_inline int store_opt(struct bpf_sock_ops *skops, __u64 val, __u32 len)
{
	return ccs_expopt_store(skops, TLDCT_OPT_KIND, TLDCT_OPT_EXID, val, len);
}

static __always_inline bool is_tldct(struct bpf_sock_ops *skops)
{
	return ccs_sockops_cc_is(skops, TLDCT_CC_NAME);
}

/* The receiver's entry for a flow: the task id its SYN named, scoped by
 * the sender's address and the receiving socket's namespace, so no peer
 * can name (or collide with) another peer's task, nor a namespace with
 * another's.  IPv4 as v4-mapped IPv6. */
static __always_inline void rx_key(struct bpf_sock *bsk, const struct tldct_sk *ts,
				   struct tldct_key *k)
{
	/* read from the socket (BTF), not the sockops context: the verifier
	 * refuses clang's offset context pointers for remote_ip6[] */
	const struct sock *sk = (void *)bpf_skc_to_tcp_sock(bsk);

	__builtin_memset(k, 0, sizeof(*k));
	k->task = ts->task;
	if (!sk)
		return;
	k->netns = sk_netns(sk);
	if (sk->__sk_common.skc_family == AF_INET6) {
		k->peer[0] = sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32[0];
		k->peer[1] = sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32[1];
		k->peer[2] = sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32[2];
		k->peer[3] = sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32[3];
	} else {
		k->peer[2] = bpf_htonl(0xffff);
		k->peer[3] = sk->__sk_common.skc_daddr;
	}
}

/* Receiver: may the flow's entry be made, if it is missing?  Refused
 * once the peer has spent its budget for this second (tldct.h). */
static __always_inline bool rx_may_make(const struct tldct_key *key)
{
	struct tldct_peer fresh = {}, *p;
	struct tldct_peer_key pk;

	if (bpf_map_lookup_elem(&tldct_rx_tasks, key))
		return true;
	__builtin_memset(&pk, 0, sizeof(pk));
	pk.netns = key->netns;
	__builtin_memcpy(pk.peer, key->peer, sizeof(pk.peer));
	p = bpf_map_lookup_elem(&tldct_rx_peers, &pk);
	if (!p) {
		bpf_map_update_elem(&tldct_rx_peers, &pk, &fresh, BPF_NOEXIST);
		p = bpf_map_lookup_elem(&tldct_rx_peers, &pk);
		if (!p)
			return false;
	}
	if (tldct_peer_take(p, bpf_ktime_get_ns(), peer_new_per_s))
		return true;
	ccs_stat_inc(TLDCT_STAT_RX_PEER_LIMITED);
	return false;
}

/* Receiver: fold what arrived since the last ACK into the task's S_t and
 * put the task's view on this ACK. */
static __always_inline void rx_write_view(struct bpf_sock_ops *skops, struct bpf_sock *bsk,
					  struct tldct_sk *ts)
{
	struct tldct_key key;
	struct tldct_task *t;

	rx_key(bsk, ts, &key);
	/* a flow counted in an entry was admitted when it joined: the peer's
	 * budget is for entries its new flows make */
	if (!ts->gen && !rx_may_make(&key))
		return;
	t = task_update(&tldct_rx_tasks, &key, ts, skops->bytes_received, TLDCT_STAT_RX_TASKS_NEW);
	if (t &&
	    !store_opt(skops, tldct_feedback_pack(t->bytes, t->grp.members), TLDCT_OPT_ACK_LEN))
		ccs_stat_inc_atomic(TLDCT_STAT_ACK_OPT_TX);
}

/* Listener: keep the SYN for PASSIVE_ESTABLISHED, and see its options. */
static __always_inline void rx_listen(struct bpf_sock_ops *skops)
{
	int one = 1;

	if (!is_tldct(skops))
		return;
	bpf_setsockopt(skops, SOL_TCP, TCP_SAVE_SYN, &one, sizeof(one));
	ccs_sockops_cb_flags(skops, BPF_SOCK_OPS_PARSE_UNKNOWN_HDR_OPT_CB_FLAG, 0);
}

/* Sender: a task id on the SYN, then the receiver's options. */
static __always_inline void tx_connect(struct bpf_sock_ops *skops, struct bpf_sock *bsk)
{
	struct sock *sk = (struct sock *)bpf_skc_to_tcp_sock(bsk);
	struct tldct_sk *ts;

	if (!sk || !is_tldct(skops))
		return;
	ts = tldct_sk_of(sk);
	if (ts && ts->task)
		ccs_sockops_cb_flags(skops,
				     BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG |
					     BPF_SOCK_OPS_PARSE_UNKNOWN_HDR_OPT_CB_FLAG,
				     0);
}

/* Sender, SYN done: stop writing options, on the sockets we asked it of
 * only (another sockops program may want them on its own). */
static __always_inline void tx_established(struct bpf_sock_ops *skops, struct bpf_sock *bsk)
{
	struct tldct_sk *ts = bpf_sk_storage_get(&tldct_sk, bsk, NULL, 0);

	if (ts && ts->task && is_tldct(skops))
		ccs_sockops_cb_flags(skops, 0, BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
}

/* Receiver (a bpf_tldct listener's flow): never a sender of a task, and
 * it joins the task its SYN named, if any. */
static __always_inline void rx_join(struct bpf_sock_ops *skops, struct bpf_sock *bsk)
{
	struct tldct_key key;
	struct ccs_expopt o;
	struct tldct_sk *ts;

	if (!is_tldct(skops))
		return;
	ts = bpf_sk_storage_get(&tldct_sk, bsk, NULL, BPF_SK_STORAGE_GET_F_CREATE);
	if (!ts)
		return;
	ts->flags |= TLDCT_SK_RESOLVED | TLDCT_SK_PEER;
	if (load_opt(skops, &o, TLDCT_OPT_SYN_LEN, BPF_LOAD_HDR_OPT_TCP_SYN))
		return;
	ccs_stat_inc_atomic(TLDCT_STAT_SYN_OPT_RX);
	ts->task = ccs_be_load(o.val, 8);
	if (!ts->task)
		return;
	ts->flags |= TLDCT_SK_RX;
	rx_key(bsk, ts, &key);
	if (rx_may_make(&key))
		task_update(&tldct_rx_tasks, &key, ts, skops->bytes_received,
			    TLDCT_STAT_RX_TASKS_NEW);
	ccs_sockops_cb_flags(skops, BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG | BPF_SOCK_OPS_STATE_CB_FLAG,
			     0);
}

/* The option the segment being written carries, by its length: the task
 * id on the sender's SYN, the view on the receiver's segments after its
 * SYN-ACK; 0: none. */
static __always_inline __u32 opt_len_of(const struct bpf_sock_ops *skops, const struct tldct_sk *ts)
{
	if (ccs_sockops_is_syn(skops))
		return TLDCT_OPT_SYN_LEN;
	if (!(skops->skb_tcp_flags & TCPHDR_SYN) && (ts->flags & TLDCT_SK_RX))
		return TLDCT_OPT_ACK_LEN;
	return 0;
}

/* Room on the segments opt_write() fills only: another program may have
 * asked for the callback on its sockets. */
static __always_inline void opt_reserve(struct bpf_sock_ops *skops, struct bpf_sock *bsk)
{
	struct tldct_sk *ts = bpf_sk_storage_get(&tldct_sk, bsk, NULL, 0);
	__u32 len;

	if (!ts || !ts->task)
		return;
	len = opt_len_of(skops, ts);
	if (len)
		ccs_expopt_reserve(skops, len);
}

static __always_inline void opt_write(struct bpf_sock_ops *skops, struct bpf_sock *bsk)
{
	struct tldct_sk *ts = bpf_sk_storage_get(&tldct_sk, bsk, NULL, 0);
	__u32 len;

	if (!ts || !ts->task)
		return;
	len = opt_len_of(skops, ts);
	if (len == TLDCT_OPT_SYN_LEN) {
		if (!store_opt(skops, ts->wire, TLDCT_OPT_SYN_LEN))
			ccs_stat_inc_atomic(TLDCT_STAT_SYN_OPT_TX);
	} else if (len == TLDCT_OPT_ACK_LEN) {
		rx_write_view(skops, bsk, ts);
	}
}

/* Sender: the receiver's view of the task, checked. */
static __always_inline void tx_take_view(struct bpf_sock_ops *skops, struct bpf_sock *bsk)
{
	struct tldct_sk *ts = bpf_sk_storage_get(&tldct_sk, bsk, NULL, 0);
	struct ccs_expopt o;

	if (!ts || !ts->task || (ts->flags & TLDCT_SK_PEER) ||
	    load_opt(skops, &o, TLDCT_OPT_ACK_LEN, 0))
		return;
	ts->fb = ccs_be_load(o.val, 4);
	ts->fb_ms = now_ms();
	ts->flags |= TLDCT_SK_FEEDBACK;
	ccs_stat_inc_atomic(TLDCT_STAT_ACK_OPT_RX);
}

/* Receiver: the flow ends (FIN in, or closed). */
static __always_inline void rx_leave(struct bpf_sock_ops *skops, struct bpf_sock *bsk)
{
	struct tldct_key key;
	struct tldct_sk *ts;

	if (skops->args[1] != TCP_CLOSE_WAIT && skops->args[1] != TCP_CLOSE)
		return;
	ts = bpf_sk_storage_get(&tldct_sk, bsk, NULL, 0);
	if (ts && (ts->flags & TLDCT_SK_RX)) {
		rx_key(bsk, ts, &key);
		task_leave(&tldct_rx_tasks, &key, ts, skops->bytes_received);
		ts->flags &= ~TLDCT_SK_RX;
	}
}

SEC("sockops")
int tldct_sockops(struct bpf_sock_ops *skops)
{
	struct bpf_sock *bsk = skops->sk;

	if (!bsk)
		return 1;
	switch (skops->op) {
	case BPF_SOCK_OPS_TCP_LISTEN_CB: rx_listen(skops); break;
	case BPF_SOCK_OPS_TCP_CONNECT_CB: tx_connect(skops, bsk); break;
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB: tx_established(skops, bsk); break;
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB: rx_join(skops, bsk); break;
	case BPF_SOCK_OPS_HDR_OPT_LEN_CB: opt_reserve(skops, bsk); break;
	case BPF_SOCK_OPS_WRITE_HDR_OPT_CB: opt_write(skops, bsk); break;
	case BPF_SOCK_OPS_PARSE_HDR_OPT_CB: tx_take_view(skops, bsk); break;
	case BPF_SOCK_OPS_STATE_CB: rx_leave(skops, bsk); break;
	}
	return 1;
}

#ifndef CCS_TWIN /* the twin's tasks are cgroups: beside bpf_tldct's, this
		  * program would see the option handled (optlen -1) */
/*
 * An application names its socket's task (TLDCT_TCP_TASK), or states the
 * task's size (TLDCT_TCP_TASK_SIZE): the value goes into tldct_sk, and
 * the kernel's own setsockopt is skipped.  Any id is
 * taken: the task it names is the socket's cgroup's and namespace's
 * (tldct_sk_of(), tx_key(), tldct_wire_id()), so a tenant naming another
 * cgroup's id or task id gets a task of its own.  Refusing ids other than
 * the socket's cgroup and those below it would need the named cgroup's
 * ancestry, and nothing a cgroup/setsockopt program may call on 6.1 looks
 * a cgroup up by id (the bpf_cgroup_from_id() kfunc came in 6.3;
 * bpf_sk_ancestor_cgroup_id() walks up from the socket: it tells whether
 * an id is above the socket's cgroup, not below).  Namespacing works on
 * both kernels and needs no such check.  The scope is read when the task
 * is resolved, from the socket (its cgroup, fixed when it was made), not
 * from the caller here: ccload task set calls this from its own cgroup.
 */
SEC("cgroup/setsockopt")
int tldct_setsockopt(struct bpf_sockopt *ctx)
{
	__u64 *val = ctx->optval, v;
	struct tldct_sk *ts;

	if (ctx->level != SOL_TCP ||
	    (ctx->optname != TLDCT_TCP_TASK && ctx->optname != TLDCT_TCP_TASK_SIZE)) {
		/* not ours: before 6.5 the kernel fails an option longer than
		 * a page unless the program says it left the buffer alone */
		if (ctx->optlen > PAGE_SIZE)
			ctx->optlen = 0;
		return 1;
	}
	/* a TCP socket's option only: elsewhere the kernel says ENOPROTOOPT */
	if (!ctx->sk || ctx->sk->protocol != IPPROTO_TCP)
		return 1;
	if (ctx->optlen != sizeof(__u64) || (void *)(val + 1) > ctx->optval_end) {
		bpf_set_retval(-EINVAL);
		return 0;
	}
	v = *val;
	ts = bpf_sk_storage_get(&tldct_sk, ctx->sk, NULL, BPF_SK_STORAGE_GET_F_CREATE);
	if (!ts) {
		bpf_set_retval(-ENOMEM);
		return 0;
	}
	/* the task's size: any value, any time; it moves only this socket's
	 * own beta, within beta_min..beta_max, as a new task id could */
	if (ctx->optname == TLDCT_TCP_TASK_SIZE) {
		ts->size = v;
		ctx->optlen = -1;
		return 1;
	}
	/* its bytes already count under another task: EPERM */
	if ((ts->flags & TLDCT_SK_RESOLVED) && ts->task != v)
		return 0;
	ts->task = v;
	ts->flags |= TLDCT_SK_EXPLICIT;
	ctx->optlen = -1; /* handled: the kernel does not see it */
	return 1;
}
#endif

SEC(".struct_ops")
struct tcp_congestion_ops tldct = {
	.init = (void *)tldct_init,
	.release = (void *)tldct_release,
	.in_ack_event = (void *)tldct_in_ack_event,
	.cwnd_event = (void *)tldct_cwnd_event,
	.ssthresh = (void *)tldct_ssthresh,
	.cong_control = (void *)tldct_cong_control,
	.undo_cwnd = (void *)tldct_undo_cwnd,
	.set_state = (void *)tldct_set_state,
#ifdef CCS_TWIN
	/* a namespace may default to bench/cpucost's twin */
	.flags = TCP_CONG_NEEDS_ECN | TCP_CONG_NON_RESTRICTED,
#else
	.flags = TCP_CONG_NEEDS_ECN,
#endif
	.name = TLDCT_CC_NAME,
};
