/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TLDCT arithmetic (task-aware DCTCP), shared by bpf/tldct.bpf.c and the
 * host unit tests.  The paper's equations (1), (2) and (4) are missing from
 * its text; these are the project's definitions (docs/tldct.md),
 * built to have the properties the paper states:
 *
 *   beta  (eq. 1) task-size factor from S_t, the bytes the task has sent:
 *         beta_min below task_min, beta_max from task_max, linear between
 *         (defaults 0.5, 1.5, 47 KB, 100 KB);
 *   gamma (eq. 2) tail factor of a flow that sent S_f of its task's S_t
 *         over n live flows: max(0, (S_f - S_t/n) / S_f), 0 for a flow at
 *         or behind its task's average (a tail flow), and 0 when S_f or n
 *         is 0;
 *   p     (eq. 4) back-off: p = min(1, alpha * beta * (1 + gamma)) and, on
 *         a congestion signal, cwnd <- cwnd * (1 - p/2): DCTCP's cut with
 *         alpha scaled (alpha as in dctcp.h, eq. 3);
 *   growth in congestion avoidance: +1/cwnd per acked segment scaled by
 *         1 / (beta (1 + gamma)), the scale clamped to [grow_min, grow_max]
 *         (defaults 0.5, 2): one segment per cwnd * beta * (1 + gamma)
 *         acked segments.
 *
 * So a small task (beta 0.5) backs off half as much as DCTCP and grows
 * twice as fast; a large one (beta 1.5) backs off more and grows slower;
 * a flow ahead of its task (gamma > 0) yields to the task's tail.
 *
 * Other ways for beta and gamma to enter, one tunable each, so that
 * experiments can tell which definition gives the paper's results
 * (enum tldct_form, and floor): exponents as D2TCP uses them, either
 * factor alone, and a floor at DCTCP's own cut.
 *
 * Fixed point: beta, gamma and scales in 1/1024 (TLDCT_ONE); alpha and p in
 * 2^-20 (DCTCP_ALPHA_ONE); sizes in bytes, or KB (1024 bytes) on the wire.
 */
#ifndef CCSUITE_TLDCT_H
#define CCSUITE_TLDCT_H

#include "dctcp.h"
#include "group.h"
#include "kdefs.h"

#define TLDCT_ONE 1024U /* 1.0 for beta, gamma and scales */

struct tldct_params {
	__u64 task_min;	   /* bytes: S_t below this is a small task */
	__u64 task_max;	   /* bytes: S_t from this on is a large task */
	__u32 beta_min;	   /* 1/1024 */
	__u32 beta_max;	   /* 1/1024 */
	__u32 grow_min;	   /* 1/1024: clamp of the growth scale */
	__u32 grow_max;	   /* 1/1024 */
	__u32 form;	   /* enum tldct_form */
	__u32 floor_dctcp; /* p never below alpha */
	__u32 beta_left;   /* beta from the bytes still to send, where stated */
	__u32 grow_l2dct;  /* growth weighted as L2DCT's: tldct_ai_window_f() */
};

/* Equation (1): beta from the task's bytes sent so far. */
static inline __u32 tldct_beta(const struct tldct_params *p, __u64 s_t)
{
	__u64 span;

	if (s_t < p->task_min)
		return p->beta_min;
	if (s_t >= p->task_max || p->task_max <= p->task_min)
		return p->beta_max;
	span = p->task_max - p->task_min;
	if (p->beta_max >= p->beta_min)
		return p->beta_min +
		       (__u32)((__u64)(p->beta_max - p->beta_min) * (s_t - p->task_min) / span);
	return p->beta_min -
	       (__u32)((__u64)(p->beta_min - p->beta_max) * (s_t - p->task_min) / span);
}

/*
 * Beta of a task that has sent @s_t of the @size bytes its application
 * stated (0: none stated).  By default (and without a size) from the
 * bytes sent, as the paper has it: every task starts small and grows
 * large as it goes, which favours the task that started last (least
 * attained service).  With beta_left, from the bytes still to send
 * (@size - @s_t, 0 once S_t passes it), the same ramp: a task near its
 * end is small and one with much left is large, which favours the task
 * closest to done (shortest remaining first).
 */
static inline __u32 tldct_beta_of(const struct tldct_params *p, __u64 s_t, __u64 size)
{
	if (p->beta_left && size)
		return tldct_beta(p, size > s_t ? size - s_t : 0);
	return tldct_beta(p, s_t);
}

/* Equation (2): how far this flow is ahead of its task's average, in
 * [0, 1024); 0 when it is not ahead or nothing is known. */
static inline __u32 tldct_gamma(__u64 s_f, __u64 s_t, __u32 n)
{
	__u64 avg, g;

	if (!s_f || !n)
		return 0;
	avg = s_t / n;
	if (s_f <= avg)
		return 0;
	/* keep (s_f - avg) * 1024 within 64 bits for any s_f */
	if (s_f >> 53) {
		s_f >>= 11;
		avg >>= 11;
	}
	g = (s_f - avg) * TLDCT_ONE / s_f;
	/* an average that rounds to 0 (S_t < n) would give exactly 1.0 */
	return g < TLDCT_ONE ? (__u32)g : TLDCT_ONE - 1;
}

/* beta * (1 + gamma), in 1/1024. */
static inline __u32 tldct_factor(__u32 beta, __u32 gamma)
{
	return (__u32)(((__u64)beta * (TLDCT_ONE + gamma)) / TLDCT_ONE);
}

/*
 * How beta and gamma enter the cut (tunable form), with f the factor
 * tldct_form_factor() gives, which also scales the growth (1/f):
 *   PRODUCT  p = min(1, alpha * f), f = beta (1 + gamma): the default;
 *   EXP_INV  p = alpha ^ (1 / f): D2TCP's p = alpha ^ d with d = 1/f, so
 *            f < 1 (a small task, d > 1 as D2TCP's urgent flow) cuts
 *            less than DCTCP and f > 1 more, as PRODUCT does, but by
 *            alpha's power: at alpha near 1 (heavy marking) every f cuts
 *            nearly DCTCP's full half;
 *   EXP      p = alpha ^ f: the literal exponent; with alpha < 1 the
 *            order is reversed (a large task cuts less);
 *   BETA     p = min(1, alpha * beta), f = beta: task size alone;
 *   GAMMA    p = min(1, alpha * (1 + gamma)), f = 1 + gamma: tail alone.
 * floor (tunable): p never below alpha, so no flow cuts less than DCTCP
 * would (several small tasks starting together, each cutting half as
 * much, add up to more than the queue can take).
 */
enum tldct_form {
	TLDCT_FORM_PRODUCT,
	TLDCT_FORM_EXP_INV,
	TLDCT_FORM_EXP,
	TLDCT_FORM_BETA,
	TLDCT_FORM_GAMMA,
	TLDCT_FORM_MAX = TLDCT_FORM_GAMMA,
};

/* The factor f of @form (1/1024): what scales alpha or is its exponent. */
static inline __u32 tldct_form_factor(__u32 form, __u32 beta, __u32 gamma)
{
	if (form == TLDCT_FORM_BETA)
		return beta;
	if (form == TLDCT_FORM_GAMMA)
		return TLDCT_ONE + gamma;
	return tldct_factor(beta, gamma);
}

/*
 * -log2(x / 2^20) for x in [1, 2^20], in 1/65536 (0 at x = 2^20, 20 << 16
 * at x = 1; 0 above 2^20): the integer part by normalising x to [1, 2),
 * 16 bits of fraction by repeated squaring.  Error about 2^-16
 * (truncation).
 */
static inline __u32 tldct_nlog2(__u32 x)
{
	__u64 m = x;
	__u32 k = 0, frac = 0;
	int i;

	if (!x)
		return 20U << 16;
	if (x >= DCTCP_ALPHA_ONE)
		return 0;
	for (i = 0; i < 20 && m < (1ULL << 20); i++) {
		m <<= 1;
		k++;
	}
	for (i = 0; i < 16; i++) {
		m = (m * m) >> 20; /* m < 2^21: the square fits */
		if (m >= (2ULL << 20)) {
			m >>= 1;
			frac |= 0x8000U >> i;
		}
	}
	return (k << 16) - frac;
}

/* 2^-(y / 65536) in 2^-20 (0 below 2^-21): 2^-(i + f) as 2^-i times the
 * product of 2^-(2^-(b+1)) over f's bits b, constants in 2^-30. */
static inline __u32 tldct_exp2_neg(__u64 y)
{
	__u64 r = 1ULL << 30;
	__u32 f = (__u32)(y & 0xffff);

	if (y >> 16 > 20)
		return 0;
#define TLDCT_EXP2_BIT(b, c)      \
	if (f & (0x8000U >> (b))) \
		r = (r * (c)) >> 30;
	TLDCT_EXP2_BIT(0, 0x2d413ccdULL)
	TLDCT_EXP2_BIT(1, 0x35d13f33ULL)
	TLDCT_EXP2_BIT(2, 0x3ab031baULL)
	TLDCT_EXP2_BIT(3, 0x3d495f45ULL)
	TLDCT_EXP2_BIT(4, 0x3ea0ecb7ULL)
	TLDCT_EXP2_BIT(5, 0x3f4f8303ULL)
	TLDCT_EXP2_BIT(6, 0x3fa78457ULL)
	TLDCT_EXP2_BIT(7, 0x3fd3b2d6ULL)
	TLDCT_EXP2_BIT(8, 0x3fe9d595ULL)
	TLDCT_EXP2_BIT(9, 0x3ff4e9d4ULL)
	TLDCT_EXP2_BIT(10, 0x3ffa74adULL)
	TLDCT_EXP2_BIT(11, 0x3ffd3a47ULL)
	TLDCT_EXP2_BIT(12, 0x3ffe9d20ULL)
	TLDCT_EXP2_BIT(13, 0x3fff4e8fULL)
	TLDCT_EXP2_BIT(14, 0x3fffa747ULL)
	TLDCT_EXP2_BIT(15, 0x3fffd3a4ULL)
#undef TLDCT_EXP2_BIT
	/* to 2^-20, rounded */
	return (__u32)(((r >> (y >> 16)) + (1U << 9)) >> 10);
}

/* (@a / 2^20) ^ (@e / 1024) in 2^-20, for @a in [0, 2^20]: 0 for a = 0,
 * a for e = 1024 (to rounding), 1 for e = 0. */
static inline __u32 tldct_pow(__u32 a, __u32 e)
{
	if (!a)
		return e ? 0 : DCTCP_ALPHA_ONE;
	if (a >= DCTCP_ALPHA_ONE)
		return DCTCP_ALPHA_ONE;
	return tldct_exp2_neg((__u64)tldct_nlog2(a) * e / TLDCT_ONE);
}

/* Equation (4)'s p = min(1, alpha * beta * (1 + gamma)), in 2^-20. */
static inline __u32 tldct_p(__u32 alpha, __u32 beta, __u32 gamma)
{
	__u64 p;

	if (alpha > DCTCP_ALPHA_ONE)
		alpha = DCTCP_ALPHA_ONE;
	p = (__u64)alpha * tldct_factor(beta, gamma) / TLDCT_ONE;
	return p > DCTCP_ALPHA_ONE ? DCTCP_ALPHA_ONE : (__u32)p;
}

/* The window after a congestion signal: cwnd * (1 - p/2), at least 2. */
static inline __u32 tldct_ssthresh_of(__u32 cwnd, __u32 alpha, __u32 beta, __u32 gamma)
{
	return dctcp_ssthresh_of(cwnd, tldct_p(alpha, beta, gamma));
}

/* p of @form (enum tldct_form; an unknown one is PRODUCT), in 2^-20, and
 * with @floor_dctcp never below alpha. */
static inline __u32 tldct_p_form(__u32 form, __u32 floor_dctcp, __u32 alpha, __u32 beta,
				 __u32 gamma)
{
	__u32 f = tldct_form_factor(form, beta, gamma), p;
	__u64 prod;

	if (alpha > DCTCP_ALPHA_ONE)
		alpha = DCTCP_ALPHA_ONE;
	if (form == TLDCT_FORM_EXP_INV) {
		/* 1/f in 1/1024, rounded; f is at least 1/1024 (beta >= 1) */
		p = tldct_pow(alpha, f ? (TLDCT_ONE * TLDCT_ONE + f / 2) / f : TLDCT_ONE << 10);
	} else if (form == TLDCT_FORM_EXP) {
		p = tldct_pow(alpha, f);
	} else {
		prod = (__u64)alpha * f / TLDCT_ONE;
		p = prod > DCTCP_ALPHA_ONE ? DCTCP_ALPHA_ONE : (__u32)prod;
	}
	return floor_dctcp && p < alpha ? alpha : p;
}

/* L2DCT's weights run from 2.5 down to 0.125: its slowest flow grows at
 * 0.05 of the fastest's rate. */
#define TLDCT_L2DCT_K_MIN_INV 20

/*
 * Congestion avoidance: cwnd grows by one segment per this many acked
 * segments, cwnd * f with the growth scale 1 / f clamped to [grow_min,
 * grow_max]; at least 1.  @f: tldct_form_factor(), in 1/1024.
 * With grow_l2dct the scale is L2DCT's k = w / w_max, the flow's weight
 * over the largest: here beta_min / f, so f = beta_min (the smallest
 * task, in the forms with beta) grows as DCTCP and none faster, a
 * larger f slower, down to 1/20 (TLDCT_L2DCT_K_MIN_INV); grow_min and
 * grow_max do not apply.
 */
static inline __u32 tldct_ai_window_f(const struct tldct_params *p, __u32 cwnd, __u32 f_in)
{
	__u64 f = f_in, w;
	/* scale = 1024 / f in [grow_min, grow_max]  <=>  f in
	 * [1024^2 / grow_max, 1024^2 / grow_min] */
	__u64 f_lo = p->grow_max ? (__u64)TLDCT_ONE * TLDCT_ONE / p->grow_max : 0;
	__u64 f_hi = p->grow_min ? (__u64)TLDCT_ONE * TLDCT_ONE / p->grow_min : ~0ULL;

	if (p->grow_l2dct) {
		/* 1/k = f / beta_min, in [1, 20] */
		f = p->beta_min ? f * TLDCT_ONE / p->beta_min : f;
		f_lo = TLDCT_ONE;
		f_hi = (__u64)TLDCT_ONE * TLDCT_L2DCT_K_MIN_INV;
	}
	if (f < f_lo)
		f = f_lo;
	if (f > f_hi)
		f = f_hi;
	w = (__u64)cwnd * f / TLDCT_ONE;
	if (w < 1)
		w = 1;
	return w > 0xFFFFFFFFULL ? 0xFFFFFFFFU : (__u32)w;
}

/* The same with f = beta * (1 + gamma) (TLDCT_FORM_PRODUCT's). */
static inline __u32 tldct_ai_window(const struct tldct_params *p, __u32 cwnd, __u32 beta,
				    __u32 gamma)
{
	return tldct_ai_window_f(p, cwnd, tldct_factor(beta, gamma));
}

/*
 * The TCP options (RFC 6994 experimental option, kind 253, with this
 * ExID): the SYN carries the sender's task id; the receiver's ACKs carry
 * its view of the task, S_t in KB (24 bits) and n (8 bits), both
 * saturating, in one 32-bit field as in the paper.  Network order.
 *
 *   SYN: 253, 12, ExID (2), task id (8)
 *   ACK: 253,  8, ExID (2), S_t KB << 8 | n (4)
 */
#define TLDCT_OPT_KIND	  253
#define TLDCT_OPT_EXID	  0xCC7DU
#define TLDCT_OPT_SYN_LEN 12
#define TLDCT_OPT_ACK_LEN 8
#define TLDCT_ST_KB_MAX	  0xFFFFFFU
#define TLDCT_N_MAX	  0xFFU

static inline __u32 tldct_feedback_pack(__u64 s_t_bytes, __u64 n)
{
	__u64 kb = s_t_bytes >> 10;

	if (kb > TLDCT_ST_KB_MAX)
		kb = TLDCT_ST_KB_MAX;
	if (n > TLDCT_N_MAX)
		n = TLDCT_N_MAX;
	return (__u32)(kb << 8 | n);
}

static inline __u64 tldct_feedback_bytes(__u32 packed)
{
	return (__u64)(packed >> 8) << 10;
}

/* S_t as the sender weighs it: the top of the reported KB, so that the
 * KB's truncation never puts a task behind one of its own flows (a lone
 * flow would get gamma > 0 from rounding alone). */
static inline __u64 tldct_feedback_bytes_max(__u32 packed)
{
	return tldct_feedback_bytes(packed) + 1023;
}

static inline __u32 tldct_feedback_n(__u32 packed)
{
	return packed & TLDCT_N_MAX;
}

/*
 * Per-socket state (sk_storage map tldct_sk), shared by the CC, the sockops
 * program and the setsockopt program, which sets task with TLDCT_SK_EXPLICIT
 * for an application (TLDCT_TCP_TASK, loader/task_api.h).
 */
#define TLDCT_SK_EXPLICIT 1 /* task set by the application */
#define TLDCT_SK_RESOLVED 2 /* task fixed (explicit, cgroup or none) */
#define TLDCT_SK_PEER \
	4		     /* task named by the peer's SYN: this socket
					 * receives for it, never sends for it */
#define TLDCT_SK_RX	  8  /* still counted at the receiver */
#define TLDCT_SK_FEEDBACK 16 /* fb holds the receiver's view */

struct tldct_sk {
	__u64 task; /* 0: none */
	__u32 flags;
	__u32 fb;      /* the receiver's view, tldct_feedback_pack() */
	__u64 counted; /* bytes already added to the task's S_t */
	__u32 gen;     /* incarnation of the task entry it is counted in; 0: none */
	__u32 fb_ms;   /* when fb arrived (ms, monotonic) */
	/* set with TLDCT_SK_RESOLVED on a sending socket: */
	__u64 cgroup; /* the cgroup v2 id the task is named in (the socket's) */
	__u64 wire;   /* the id its SYN carries, tldct_wire_id() */
	__u64 size;   /* the task's bytes from this host, as the application
		       * stated them (TLDCT_TCP_TASK_SIZE); 0: not stated */
};

/* The receiver's view is used while it is this fresh. */
#define TLDCT_FB_MAX_AGE_MS 1000

/* setsockopt(fd, SOL_TCP, TLDCT_TCP_TASK, &(__u64){ task }, 8) before
 * connect(): the socket's task (bpf_tldct's cgroup/setsockopt program takes
 * it; the kernel never sees this optname).  EPERM once the socket counts
 * bytes under another task; ENOPROTOOPT when bpf_tldct is not attached. */
#define TLDCT_TCP_TASK 0xCC7D

/* setsockopt(fd, SOL_TCP, TLDCT_TCP_TASK_SIZE, &(__u64){ bytes }, 8), any
 * time: how many bytes the socket's task sends from this host in all (its
 * flows to one receiver, which is what S_t counts); 0 takes it back.
 * beta_left reads it (tldct_beta_of()).  Only the socket's own flow
 * reads it: a task whose flows state different sizes has them each use
 * their own. */
#define TLDCT_TCP_TASK_SIZE 0xCC7E

/* A task table entry (sender: tldct_tasks; receiver: tldct_rx_tasks), a
 * group table entry (lib/group.h): the task's live flows and S_t. */
struct tldct_task {
	struct ccs_group grp; /* grp.members: n */
	__u64 bytes;	      /* S_t */
};

/*
 * Tenants.  A task is (the socket's network namespace, the socket's
 * cgroup, the id it names): a socket can join only tasks of its own cgroup
 * and namespace, whatever id it names, so naming another cgroup's id (a
 * cgroup id is easy to learn) makes a task of its own, not a member of
 * theirs.  On the wire a task id must keep that apart too: a receiver
 * keys its entries by the sender's address and the id the SYN carries,
 * and tenants behind one address share that.  So the SYN carries the
 * cgroup's id for its default task (the id named is the cgroup's), and for
 * any other id 52 bits of a keyed hash of (cgroup, id) with bit 52 set:
 * no cgroup id comes near bit 52 (kernfs ids count up from 1), and without
 * the key (random, in .rodata, made at attach) no id named in one cgroup
 * can be chosen to carry what another cgroup's task carries; finding one
 * by trying takes some 2^52 connections.  SipHash-2-4, as the kernel keys
 * its own hash tables and SYN cookies.  53 bits keep the id exact as a
 * JSON number (ccload task list --json; jq and JavaScript hold integers
 * exactly up to 2^53).
 */
#define TLDCT_WIRE_NAMED (1ULL << 52)

#define TLDCT_ROTL64(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

static inline void tldct_sipround(__u64 v[4])
{
	v[0] += v[1];
	v[1] = TLDCT_ROTL64(v[1], 13);
	v[1] ^= v[0];
	v[0] = TLDCT_ROTL64(v[0], 32);
	v[2] += v[3];
	v[3] = TLDCT_ROTL64(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = TLDCT_ROTL64(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = TLDCT_ROTL64(v[1], 17);
	v[1] ^= v[2];
	v[2] = TLDCT_ROTL64(v[2], 32);
}

/* SipHash-2-4 of @m[0..@n-1] (n <= 2 words, little-endian: 8 * n bytes)
 * under @key: the reference function's value for that byte string. */
static inline __u64 tldct_siphash(const __u64 key[2], const __u64 *m, __u32 n)
{
	__u64 v[4] = { key[0] ^ 0x736f6d6570736575ULL, key[1] ^ 0x646f72616e646f6dULL,
		       key[0] ^ 0x6c7967656e657261ULL, key[1] ^ 0x7465646279746573ULL };
	__u64 last = (__u64)(8 * n) << 56;
	__u32 i;

	for (i = 0; i < 2 && i < n; i++) {
		v[3] ^= m[i];
		tldct_sipround(v);
		tldct_sipround(v);
		v[0] ^= m[i];
	}
	v[3] ^= last;
	tldct_sipround(v);
	tldct_sipround(v);
	v[0] ^= last;
	v[2] ^= 0xff;
	for (i = 0; i < 4; i++)
		tldct_sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* The id a SYN carries for task @task named by a socket of cgroup @cgroup
 * (0: no task). */
static inline __u64 tldct_wire_id(const __u64 key[2], __u64 cgroup, __u64 task)
{
	__u64 m[2] = { cgroup, task };

	if (!task || task == cgroup)
		return task;
	return (tldct_siphash(key, m, 2) & (TLDCT_WIRE_NAMED - 1)) | TLDCT_WIRE_NAMED;
}

/* A task table's key.  Sender (tldct_tasks): the id named, the cgroup it
 * is named in, the namespace; peer all zero.  Receiver (tldct_rx_tasks):
 * the id the SYN carried (tldct_wire_id()), the sender's address (IPv6,
 * IPv4 v4-mapped), the namespace; cgroup 0.  The namespace is the
 * socket's (its cookie, unique while the host runs): namespaces with the
 * same addresses and ids never share an entry. */
struct tldct_key {
	__u64 task;
	__u32 peer[4]; /* network order */
	__u64 netns;
	__u64 cgroup;
};

/* The receiver's key of a peer's budget (tldct_rx_peers): the peer's
 * address in the receiving socket's namespace. */
struct tldct_peer_key {
	__u64 netns;
	__u32 peer[4]; /* as in tldct_key */
};

#define TLDCT_MAX_TASKS 4096 /* entries per table (LRU) */

/*
 * The receiver's budget of new task entries per peer address
 * (tldct_rx_peers): peer_new_per_s a second.  A peer naming a new task id
 * on every connection can then evict only entries idle for TLDCT_MAX_TASKS
 * / peer_new_per_s seconds (16 s by default); a live flow's entry is
 * touched at every ACK the receiver sends.  A refused flow is not counted
 * and gets no view back until an entry can be made.  The window is one
 * second; updates race between CPUs, so a peer may get a few more.
 */
struct tldct_peer {
	__u64 window_ns; /* start of the current second */
	__u32 made;	 /* entries made in it */
	__u32 pad;
};

#define TLDCT_PEER_WINDOW_NS NSEC_PER_SEC

/* May the peer make one more entry at @now_ns?  1, and counted; else 0. */
static inline int tldct_peer_take(struct tldct_peer *p, __u64 now_ns, __u32 per_s)
{
	if (now_ns < p->window_ns || now_ns - p->window_ns >= TLDCT_PEER_WINDOW_NS) {
		p->window_ns = now_ns;
		p->made = 0;
	}
	if (p->made >= per_s)
		return 0;
	p->made++;
	return 1;
}

/* Stats of bpf_tldct: bpf_dctcp's (DCTCP_STATS), then these. */
#define TLDCT_STATS(X, P)                                                                      \
	X(P, SYN_OPT_TX, syn_opt_tx, COUNTER, "SYNs sent with a task id")                      \
	X(P, SYN_OPT_RX, syn_opt_rx, COUNTER, "receiver: flows that arrived with a task id")   \
	X(P, ACK_OPT_TX, ack_opt_tx, COUNTER, "receiver: ACKs sent with the task's S_t and n") \
	X(P, ACK_OPT_RX, ack_opt_rx, COUNTER, "sender: ACKs whose S_t and n were taken")       \
	X(P, OPT_BAD, opt_bad, COUNTER, "options of ours with a bad length, ignored")          \
	X(P, RX_TASKS_NEW, rx_tasks_new, COUNTER, "receiver: task entries created")            \
	X(P, REJOINED, rejoined, COUNTER,                                                      \
	  "flows that joined their task's entry again (evicted from a full table)")            \
	X(P, LOCAL_TASKS_NEW, local_tasks_new, COUNTER, "sender: local task entries created")  \
	X(P, VIEW_REMOTE, view_remote, COUNTER,                                                \
	  "windows whose beta, gamma came from the receiver's view")                           \
	X(P, VIEW_LOCAL, view_local, COUNTER,                                                  \
	  "windows whose beta, gamma came from the local task table")                          \
	X(P, VIEW_NO_TASK, view_no_task, COUNTER,                                              \
	  "windows of flows without a task (a task of one)")                                   \
	X(P, BETA, beta, GAUGE, "beta at the last window cut (1/1024, largest over CPUs)")     \
	X(P, GAMMA, gamma, GAUGE, "gamma at the last window cut (1/1024, largest over CPUs)")  \
	X(P, RX_PEER_LIMITED, rx_peer_limited, COUNTER,                                        \
	  "receiver: task entries refused, the peer's budget per second spent")                \
	X(P, BETA_FROM_LEFT, beta_from_left, COUNTER,                                          \
	  "windows whose beta came from the task's bytes still to send (beta_left)")

enum tldct_stat {
	TLDCT_STAT__BASE = DCTCP_STAT_MAX - 1,
	TLDCT_STATS(CCS_STAT_ENUM, TLDCT) TLDCT_STAT_MAX,
};

/* Tunables of bpf_tldct: DCTCP_TUNABLES, then these (lib/tunables.h). */
#define TLDCT_FACTOR(X, name, def, help) X(name, UINT, 1, 4096, def, help)
#define TLDCT_TUNABLES(X)                                                                          \
	X(task_min_kb, UINT, 0, 1U << 24, 47, "beta is beta_min for tasks smaller than this (KB)") \
	X(task_max_kb, UINT, 0, 1U << 24, 100,                                                     \
	  "beta is beta_max for tasks from this size on (KB)")                                     \
	TLDCT_FACTOR(X, beta_min, TLDCT_ONE / 2,                                                   \
		     "task-size factor of small tasks in 1/1024 (512 = 0.5)")                      \
	TLDCT_FACTOR(X, beta_max, TLDCT_ONE * 3 / 2,                                               \
		     "task-size factor of large tasks in 1/1024 (1536 = 1.5)")                     \
	TLDCT_FACTOR(X, grow_min, TLDCT_ONE / 2,                                                   \
		     "lower clamp of the growth scale 1/(beta (1+gamma)), 1/1024")                 \
	TLDCT_FACTOR(X, grow_max, TLDCT_ONE * 2, "upper clamp of the growth scale, 1/1024")        \
	X(form, UINT, 0, TLDCT_FORM_MAX, TLDCT_FORM_PRODUCT,                                       \
	  "how beta, gamma enter: 0 alpha*f, 1 alpha^(1/f), 2 alpha^f, 3 beta only, 4 gamma only") \
	X(floor_dctcp, BOOL, 0, 1, 0, "never cut less than DCTCP would (p >= alpha)")              \
	X(grow_l2dct, BOOL, 0, 1, 0,                                                               \
	  "growth as L2DCT weights it: beta_min/f of DCTCP's, at most DCTCP's (0: 1/f, clamped)")  \
	X(beta_left, BOOL, 0, 1, 0,                                                                \
	  "beta from the task's bytes still to send where the application states its size")        \
	X(use_feedback, BOOL, 0, 1, 1,                                                             \
	  "use the receiver's S_t and n when it sends them (0: the local task table only)")        \
	X(peer_new_per_s, UINT, 1, 1U << 24, 256,                                                  \
	  "receiver: task entries one peer may make per second")

#endif /* CCSUITE_TLDCT_H */
