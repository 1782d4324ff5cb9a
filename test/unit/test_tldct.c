// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the TLDCT arithmetic in bpf/tldct.h: the properties the
 * paper states and the spec's definitions (docs/tldct.md), with
 * expected values worked out by hand from those definitions.
 */
#include <math.h>
#include <criterion/criterion.h>

#include "tldct.h"

#define KB   1024ULL
#define ONE  TLDCT_ONE
#define AONE DCTCP_ALPHA_ONE

static const struct tldct_params P = {
	.task_min = 47 * KB,
	.task_max = 100 * KB,
	.beta_min = ONE / 2,
	.beta_max = ONE * 3 / 2,
	.grow_min = ONE / 2,
	.grow_max = ONE * 2,
};

Test(tldct_beta, boundaries_and_the_linear_part)
{
	cr_assert_eq(tldct_beta(&P, 0), 512);
	cr_assert_eq(tldct_beta(&P, 47 * KB - 1), 512, "just below task_min");
	cr_assert_eq(tldct_beta(&P, 47 * KB), 512, "at task_min the ramp starts");
	/* halfway between 47 and 100 KB: 0.5 + 1.0 / 2 = 1.0 */
	cr_assert_eq(tldct_beta(&P, (47 + 100) * KB / 2), 1024);
	cr_assert_eq(tldct_beta(&P, 100 * KB - 1), 1535, "just below task_max: floor");
	cr_assert_eq(tldct_beta(&P, 100 * KB), 1536);
	cr_assert_eq(tldct_beta(&P, ~0ULL), 1536, "any size above");
}

Test(tldct_beta, degenerate_ramp_is_a_step)
{
	struct tldct_params q = P;

	q.task_max = q.task_min;
	cr_assert_eq(tldct_beta(&q, q.task_min - 1), q.beta_min);
	cr_assert_eq(tldct_beta(&q, q.task_min), q.beta_max);
}

Test(tldct_gamma, tail_flows_and_missing_data_give_zero)
{
	cr_assert_eq(tldct_gamma(0, 100 * KB, 4), 0, "S_f = 0: no division");
	cr_assert_eq(tldct_gamma(10 * KB, 100 * KB, 0), 0, "n = 0: no division");
	cr_assert_eq(tldct_gamma(10 * KB, 100 * KB, 4), 0, "behind the average (25 KB)");
	cr_assert_eq(tldct_gamma(25 * KB, 100 * KB, 4), 0, "at the average");
}

Test(tldct_gamma, ahead_of_the_average)
{
	/* S_f = 50 KB, average 25 KB: (50 - 25) / 50 = 0.5 */
	cr_assert_eq(tldct_gamma(50 * KB, 100 * KB, 4), 512);
	/* the only flow of its task: S_f = S_t, n = 1 */
	cr_assert_eq(tldct_gamma(80 * KB, 80 * KB, 1), 0);
	/* stale S_t smaller than S_f (feedback lags): (S_f - S_t) / S_f */
	cr_assert_eq(tldct_gamma(100 * KB, 50 * KB, 1), 512);
	/* never 1.0 or more, and no overflow at huge sizes */
	cr_assert_lt(tldct_gamma(~0ULL, 0, 1), 1024);
	cr_assert_eq(tldct_gamma(3, 2, 4), 1023, "S_t / n rounds to 0: below 1.0");
	cr_assert_eq(tldct_gamma(1ULL << 60, 1ULL << 60, 2), 512);
}

Test(tldct_p, scales_alpha_and_clamps_at_one)
{
	cr_assert_eq(tldct_p(AONE / 4, 1024, 0), AONE / 4, "beta 1, gamma 0: DCTCP");
	cr_assert_eq(tldct_p(AONE / 4, 512, 0), AONE / 8, "small task: half");
	cr_assert_eq(tldct_p(AONE / 4, 1536, 512), AONE * 9 / 16, "1.5 * 1.5 * 1/4");
	cr_assert_eq(tldct_p(AONE, 1536, 1023), AONE, "clamped at 1");
	cr_assert_eq(tldct_p(AONE * 2, 1024, 0), AONE, "alpha above 1 is 1");
	cr_assert_eq(tldct_p(0, 1536, 1023), 0, "no marks, no cut");
}

/* The paper's property 1: at equal alpha, a small task backs off less than
 * a large one. */
Test(tldct_properties, small_task_backs_off_less_than_large)
{
	__u32 alpha = AONE / 2, cwnd = 100;
	__u32 small = tldct_ssthresh_of(cwnd, alpha, tldct_beta(&P, 20 * KB), 0);
	__u32 large = tldct_ssthresh_of(cwnd, alpha, tldct_beta(&P, 500 * KB), 0);

	/* p = 0.5 * 0.5 = 0.25: cut 12.5 -> 88; p = 0.5 * 1.5 = 0.75: cut 37.5 -> 63 */
	cr_assert_eq(small, 88);
	cr_assert_eq(large, 63);
	cr_assert_gt(small, dctcp_ssthresh_of(cwnd, alpha), "small backs off less than DCTCP");
	cr_assert_lt(large, dctcp_ssthresh_of(cwnd, alpha), "large backs off more than DCTCP");
}

/* Property 2: inside a task, a flow ahead of the average backs off more
 * than the task's tail flow. */
Test(tldct_properties, flow_ahead_backs_off_more_than_tail)
{
	__u64 s_t = 200 * KB;
	__u32 n = 4, beta = tldct_beta(&P, s_t), alpha = AONE / 4, cwnd = 80;
	__u32 ahead = tldct_ssthresh_of(cwnd, alpha, beta, tldct_gamma(100 * KB, s_t, n));
	__u32 tail = tldct_ssthresh_of(cwnd, alpha, beta, tldct_gamma(20 * KB, s_t, n));

	cr_assert_lt(ahead, tail);
	/* tail: p = 0.25 * 1.5 = 0.375 -> 80 - 15 = 65; ahead: gamma 0.5,
	 * p = 0.5625 -> 80 - 22.5 -> 58 */
	cr_assert_eq(tail, 65);
	cr_assert_eq(ahead, 58);
}

Test(tldct_ai, growth_scale_and_its_clamp)
{
	/* beta 1, gamma 0: Reno, one segment per cwnd */
	cr_assert_eq(tldct_ai_window(&P, 100, 1024, 0), 100);
	/* small task: twice as fast */
	cr_assert_eq(tldct_ai_window(&P, 100, 512, 0), 50);
	/* large task, ahead: 1.5 * 1.5 = 2.25 -> clamped to scale 0.5 -> 200 */
	cr_assert_eq(tldct_ai_window(&P, 100, 1536, 512), 200);
	/* scale above 2 clamped: beta 0.25 -> 0.5 -> 50 */
	cr_assert_eq(tldct_ai_window(&P, 100, 256, 0), 50);
	cr_assert_eq(tldct_ai_window(&P, 1, 512, 0), 1, "never 0");
}

Test(tldct_ssthresh_of, never_below_two)
{
	cr_assert_eq(tldct_ssthresh_of(2, AONE, 1536, 1023), 2);
	cr_assert_eq(tldct_ssthresh_of(3, AONE, 1536, 1023), 2);
}

Test(tldct_feedback, pack_saturates_and_round_trips)
{
	__u32 v = tldct_feedback_pack(300 * KB + 5, 7);

	cr_assert_eq(tldct_feedback_bytes(v), 300 * KB, "KB units, rounded down");
	cr_assert_eq(tldct_feedback_n(v), 7);
	v = tldct_feedback_pack(~0ULL, 100000);
	cr_assert_eq(tldct_feedback_bytes(v), (__u64)TLDCT_ST_KB_MAX << 10, "S_t saturates");
	cr_assert_eq(tldct_feedback_n(v), TLDCT_N_MAX, "n saturates");
	cr_assert_eq(tldct_feedback_pack(0, 0), 0);
}

/* A lone flow's own bytes come back truncated to whole KB: taken at the
 * top of that KB, they never make it look ahead of its task. */
Test(tldct_feedback, a_lone_flow_is_not_ahead_of_itself)
{
	__u64 s_f;

	for (s_f = 1; s_f < 5 * KB; s_f += 333)
		cr_assert_eq(tldct_gamma(s_f, tldct_feedback_bytes_max(tldct_feedback_pack(s_f, 1)),
					 1),
			     0, "S_f %llu", (unsigned long long)s_f);
}

Test(tldct_peer_take, budget_per_second)
{
	struct tldct_peer p = {};
	__u64 t = 5 * TLDCT_PEER_WINDOW_NS;
	int i, got = 0;

	for (i = 0; i < 10; i++)
		got += tldct_peer_take(&p, t + (__u64)i, 4);
	cr_assert_eq(got, 4, "a fresh peer gets its budget, then no more: %d", got);
	cr_assert_eq(tldct_peer_take(&p, t + TLDCT_PEER_WINDOW_NS - 1, 4), 0);
	cr_assert_eq(tldct_peer_take(&p, t + TLDCT_PEER_WINDOW_NS, 4), 1, "a new second");
	/* a clock before the window (another CPU's older now) starts one too */
	cr_assert_eq(tldct_peer_take(&p, t - 1, 4), 1);
	p = (struct tldct_peer){};
	cr_assert_eq(tldct_peer_take(&p, 0, 1), 1, "time 0 is a window too");
	cr_assert_eq(tldct_peer_take(&p, 1, 1), 0);
}

/* The reference SipHash-2-4 vectors (key 00..0f, message 00 01 02 ...):
 * the empty message and the 16-byte one, as the reference implementation
 * and OpenSSL's SIPHASH give them. */
static const __u64 SIP_KEY[2] = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };

Test(tldct_siphash, reference_vectors)
{
	const __u64 m[2] = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };

	cr_assert_eq(tldct_siphash(SIP_KEY, m, 0), 0x726fdb47dd0e0e31ULL);
	cr_assert_eq(tldct_siphash(SIP_KEY, m, 2), 0x3f2acc7f57c29bdbULL);
}

/* A socket's default task (the id named is its cgroup's) carries the
 * cgroup id as it is; no task carries 0. */
Test(tldct_wire_id, the_cgroups_own_task_carries_its_id)
{
	cr_assert_eq(tldct_wire_id(SIP_KEY, 4711, 4711), 4711);
	cr_assert_eq(tldct_wire_id(SIP_KEY, 1, 1), 1, "the root cgroup");
	cr_assert_eq(tldct_wire_id(SIP_KEY, 4711, 0), 0, "no task");
}

/* Any other id carries 52 bits of a keyed hash with bit 52 set: never a
 * cgroup's own id (so never another cgroup's default task), never 0, below
 * 2^53 (exact in JSON), and the same id named in two cgroups carries two
 * values. */
Test(tldct_wire_id, a_named_id_is_scoped_by_its_cgroup)
{
	__u64 a = tldct_wire_id(SIP_KEY, 100, 4242), b = tldct_wire_id(SIP_KEY, 200, 4242);
	const __u64 m[2] = { 100, 4242 };

	cr_assert(a & TLDCT_WIRE_NAMED);
	cr_assert(b & TLDCT_WIRE_NAMED);
	cr_assert_lt(a, 1ULL << 53);
	cr_assert_lt(b, 1ULL << 53);
	cr_assert_neq(a, b, "one id in two cgroups");
	cr_assert_eq(a, (tldct_siphash(SIP_KEY, m, 2) & ((1ULL << 52) - 1)) | (1ULL << 52));
	cr_assert_eq(a, tldct_wire_id(SIP_KEY, 100, 4242), "the same for every socket");
	/* a cgroup naming another's id gets neither that cgroup's default
	 * task nor that id */
	cr_assert_neq(tldct_wire_id(SIP_KEY, 100, 200), 200);
	cr_assert_neq(tldct_wire_id(SIP_KEY, 100, 200), tldct_wire_id(SIP_KEY, 200, 200));
}

Test(tldct_wire_id, depends_on_the_key)
{
	const __u64 other[2] = { SIP_KEY[0], SIP_KEY[1] ^ 1 };

	cr_assert_neq(tldct_wire_id(SIP_KEY, 100, 4242), tldct_wire_id(other, 100, 4242));
}

/* No collision among the ids of a few cgroups: each (cgroup, id) carries
 * a value of its own (4096 values of 52 bits: a collision here would be a
 * bug, not chance). */
Test(tldct_wire_id, distinct_over_a_grid)
{
	static __u64 seen[64 * 64];
	__u64 cg, id;
	int n = 0, i, j;

	for (cg = 1; cg <= 64; cg++)
		for (id = 1; id <= 64; id++)
			seen[n++] = tldct_wire_id(SIP_KEY, cg * 1000, id);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			cr_assert_neq(seen[i], seen[j], "%d and %d", i, j);
}

/* The fixed-point power against libm: within 0.1 % of the value or 2^-20
 * absolute, over alpha from 2^-20 to 1 and exponents 1/8 to 8. */
Test(tldct_pow, matches_libm)
{
	static const __u32 es[] = { 128, 341, 512, 683, 1024, 1536, 2048, 3072, 8192 };
	size_t n = 0;

	for (__u32 a = 1; a <= AONE; a = a < 64 ? a + 1 : a + a / 7 + 1) {
		for (size_t i = 0; i < sizeof(es) / sizeof(es[0]); i++) {
			double want = pow((double)a / AONE, es[i] / 1024.0) * AONE;
			double got = tldct_pow(a, es[i]);

			cr_assert(fabs(got - want) <= 1.0 + want * 1e-3,
				  "(%u/2^20)^(%u/1024): %.1f, libm %.1f", a, es[i], got, want);
			n++;
		}
	}
	cr_assert_gt(n, 1000, "points checked: %zu", n);
}

Test(tldct_pow, edges)
{
	cr_assert_eq(tldct_pow(0, 1024), 0, "0^x = 0");
	cr_assert_eq(tldct_pow(0, 0), AONE, "0^0 taken as 1");
	cr_assert_eq(tldct_pow(AONE, 3000), AONE, "1^x = 1");
	cr_assert_eq(tldct_pow(AONE * 2, 512), AONE, "above 1 is 1");
	cr_assert_eq(tldct_pow(AONE / 4, 0), AONE, "x^0 = 1");
	cr_assert_eq(tldct_pow(AONE / 4, 1024), AONE / 4, "x^1 = x");
	cr_assert_eq(tldct_pow(AONE / 4, 2048), AONE / 16);
	cr_assert_eq(tldct_pow(AONE / 4, 512), AONE / 2);
	cr_assert_eq(tldct_pow(1, 1U << 20), 0, "far below 2^-20: 0");
	cr_assert_eq(tldct_nlog2(AONE), 0);
	cr_assert_eq(tldct_nlog2(1), 20U << 16);
	cr_assert_eq(tldct_nlog2(AONE / 2), 1U << 16);
	cr_assert_eq(tldct_exp2_neg(0), AONE);
	cr_assert_eq(tldct_exp2_neg(21ULL << 16), 0);
}

/* Each form with beta 0.5 (small task) and 1.5 (large), gamma 0, at
 * alpha 1/4: product 1/8 and 3/8; alpha^(1/f) 1/16 and 0.397; alpha^f
 * 1/2 and 1/8; beta alone as product; gamma alone is DCTCP's 1/4. */
Test(tldct_p_form, each_form_at_a_quarter)
{
	const __u32 a = AONE / 4, small = 512, large = 1536;

	cr_assert_eq(tldct_p_form(TLDCT_FORM_PRODUCT, 0, a, small, 0), AONE / 8);
	cr_assert_eq(tldct_p_form(TLDCT_FORM_PRODUCT, 0, a, large, 0), AONE * 3 / 8);
	cr_assert_eq(tldct_p_form(TLDCT_FORM_EXP_INV, 0, a, small, 0), AONE / 16);
	/* 0.25 ^ (1/1.5) = 0.39685 */
	cr_assert(fabs(tldct_p_form(TLDCT_FORM_EXP_INV, 0, a, large, 0) - 0.39685 * AONE) <
		  0.0005 * AONE);
	cr_assert_eq(tldct_p_form(TLDCT_FORM_EXP, 0, a, small, 0), AONE / 2);
	cr_assert_eq(tldct_p_form(TLDCT_FORM_EXP, 0, a, large, 0), AONE / 8);
	cr_assert_eq(tldct_p_form(TLDCT_FORM_BETA, 0, a, small, 512), AONE / 8, "gamma ignored");
	cr_assert_eq(tldct_p_form(TLDCT_FORM_GAMMA, 0, a, small, 0), a, "beta ignored");
	cr_assert_eq(tldct_p_form(TLDCT_FORM_GAMMA, 0, a, large, 512), a * 3 / 2);
	cr_assert_eq(tldct_p_form(99, 0, a, small, 0), AONE / 8, "unknown: the product");
	for (__u32 f = TLDCT_FORM_PRODUCT; f <= TLDCT_FORM_MAX; f++)
		cr_assert_eq(tldct_p_form(f, 0, a, 1024, 0), a, "form %u: beta 1, gamma 0 is DCTCP",
			     f);
}

/* The product form is tldct_p(); with the floor no flow cuts less than
 * DCTCP; none cuts more than all (p <= 1); no marks, no cut. */
Test(tldct_p_form, floor_and_bounds)
{
	for (__u32 f = TLDCT_FORM_PRODUCT; f <= TLDCT_FORM_MAX; f++) {
		for (__u32 a = 0; a <= AONE; a += AONE / 16) {
			for (__u32 beta = 1; beta <= 4096; beta = beta * 2 + 1) {
				__u32 p = tldct_p_form(f, 0, a, beta, 700);
				__u32 pf = tldct_p_form(f, 1, a, beta, 700);

				cr_assert_leq(p, AONE);
				cr_assert_geq(pf, a, "floor: form %u, alpha %u, beta %u", f, a,
					      beta);
				cr_assert_eq(pf, p > a ? p : a);
				if (!a)
					cr_assert_eq(p, 0, "form %u: alpha 0 cuts nothing", f);
				if (f == TLDCT_FORM_PRODUCT)
					cr_assert_eq(p, tldct_p(a, beta, 700));
			}
		}
	}
}

/* The growth factor of each form: beta (1 + gamma), beta, 1 + gamma. */
Test(tldct_form_factor, what_scales_growth)
{
	cr_assert_eq(tldct_form_factor(TLDCT_FORM_PRODUCT, 1536, 512), 2304);
	cr_assert_eq(tldct_form_factor(TLDCT_FORM_EXP_INV, 1536, 512), 2304);
	cr_assert_eq(tldct_form_factor(TLDCT_FORM_EXP, 1536, 512), 2304);
	cr_assert_eq(tldct_form_factor(TLDCT_FORM_BETA, 1536, 512), 1536);
	cr_assert_eq(tldct_form_factor(TLDCT_FORM_GAMMA, 1536, 512), 1536);
	cr_assert_eq(tldct_ai_window_f(&P, 100, 512), 50);
	cr_assert_eq(tldct_ai_window_f(&P, 100, 2304), 200, "clamped at 1/grow_min");
}

/* beta_left: beta from the stated size less S_t, the same ramp; without a
 * size, or with beta_left off, from S_t as before. */
Test(tldct_beta_of, from_the_bytes_still_to_send)
{
	struct tldct_params q = P;

	cr_assert_eq(tldct_beta_of(&q, 0, 1000 * KB), 512, "off: S_t 0 is small");
	q.beta_left = 1;
	cr_assert_eq(tldct_beta_of(&q, 0, 1000 * KB), 1536, "1000 KB left: large");
	cr_assert_eq(tldct_beta_of(&q, 960 * KB, 1000 * KB), 512, "40 KB left: small");
	cr_assert_eq(tldct_beta_of(&q, 1000 * KB - (47 + 100) * KB / 2, 1000 * KB), 1024,
		     "the ramp's middle left: 1.0");
	cr_assert_eq(tldct_beta_of(&q, 2000 * KB, 1000 * KB), 512, "S_t past the size: 0 left");
	cr_assert_eq(tldct_beta_of(&q, 0, 0), 512, "no size stated: from S_t");
	cr_assert_eq(tldct_beta_of(&q, 200 * KB, 0), 1536, "no size stated: from S_t");
	/* the order reverses: of two tasks that sent the same, the one with
	 * more left backs off more */
	cr_assert_gt(tldct_beta_of(&q, 50 * KB, 500 * KB), tldct_beta_of(&q, 50 * KB, 120 * KB));
}

/* grow_l2dct: segments per +1 is cwnd * f / beta_min, in [cwnd, 20 cwnd]:
 * the smallest task grows as DCTCP, never faster; grow_min/max ignored. */
Test(tldct_ai, l2dct_weighted_growth)
{
	struct tldct_params q = P;

	q.grow_l2dct = 1;
	cr_assert_eq(tldct_ai_window_f(&q, 100, 512), 100, "f = beta_min: DCTCP's");
	cr_assert_eq(tldct_ai_window_f(&q, 100, 256), 100, "never faster than DCTCP");
	cr_assert_eq(tldct_ai_window_f(&q, 100, 1024), 200);
	cr_assert_eq(tldct_ai_window_f(&q, 100, 2304), 450, "f 2.25: k = 0.5 / 2.25");
	cr_assert_eq(tldct_ai_window_f(&q, 100, 4096 * 4), 2000, "at most 20x slower");
	cr_assert_eq(tldct_ai_window_f(&q, 0, 2304), 1, "never 0");
	q.beta_min = 0;
	cr_assert_eq(tldct_ai_window_f(&q, 100, 2048), 200, "beta_min 0: 1/f of DCTCP's");
}
