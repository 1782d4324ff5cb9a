// SPDX-License-Identifier: GPL-2.0
/*
 * The workload generator's sampler (bench/cdf.h): samples follow the CDF
 * they are drawn from, Poisson gaps have the asked mean, seeds reproduce.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "cdf.h"

#define N_SAMPLES 200000

static void load(struct cdf *c, const char *path)
{
	char err[128];
	FILE *f = fopen(path, "r");

	cr_assert_not_null(f, "%s (run from the repository root)", path);
	cr_assert_eq(cdf_parse(c, f, err, sizeof(err)), 0, "%s: %s", path, err);
	fclose(f);
}

/* Empirical CDF at every point of the table vs the table: the standard
 * error of a frequency over 200000 draws is below 0.0012, so 0.005 is
 * more than 4 standard errors. */
static void check_follows(const char *path)
{
	static uint64_t v[N_SAMPLES];
	struct rng r = { 42 };
	struct cdf c;
	int i, k;

	load(&c, path);
	for (i = 0; i < N_SAMPLES; i++)
		v[i] = cdf_sample(&c, &r);
	for (k = 0; k < c.n; k++) {
		int below = 0;

		for (i = 0; i < N_SAMPLES; i++)
			below += (double)v[i] <= c.x[k] + 0.5;
		cr_assert(fabs((double)below / N_SAMPLES - c.p[k]) < 0.005,
			  "%s: P(size <= %.0f) = %.4f, table says %.4f", path, c.x[k],
			  (double)below / N_SAMPLES, c.p[k]);
	}
}

Test(cdf, websearch_samples_follow_the_table)
{
	check_follows("bench/workloads/websearch.cdf");
}

Test(cdf, datamining_samples_follow_the_table)
{
	check_follows("bench/workloads/datamining.cdf");
}

Test(cdf, wan_samples_follow_the_table)
{
	check_follows("bench/workloads/wan.cdf");
}

/* workloads.md: web search mean about 1.71 MB, WAN mix about 63 MB. */
Test(cdf, means_match_the_sources)
{
	struct cdf c;

	load(&c, "bench/workloads/websearch.cdf");
	cr_assert(fabs(cdf_mean(&c) - 1.71e6) < 0.01e6, "web search mean %.0f", cdf_mean(&c));
	load(&c, "bench/workloads/wan.cdf");
	cr_assert(fabs(cdf_mean(&c) - 63e6) < 1.5e6, "WAN mean %.0f", cdf_mean(&c));
}

/* The sample mean converges to the table's mean (web search: standard
 * deviation about 3.5 MB, so the standard error is below 0.5 %). */
Test(cdf, sample_mean_matches)
{
	struct rng r = { 7 };
	struct cdf c;
	double sum = 0;
	int i;

	load(&c, "bench/workloads/websearch.cdf");
	for (i = 0; i < N_SAMPLES; i++)
		sum += (double)cdf_sample(&c, &r);
	cr_assert(fabs(sum / N_SAMPLES / cdf_mean(&c) - 1) < 0.03, "sample mean %.0f vs %.0f",
		  sum / N_SAMPLES, cdf_mean(&c));
}

Test(cdf, quantile_interpolates_linearly)
{
	struct cdf c = { .n = 3, .x = { 0, 100, 1100 }, .p = { 0, 0.5, 1 } };

	cr_assert_float_eq(cdf_quantile(&c, 0.25), 50.0, 1e-9);
	cr_assert_float_eq(cdf_quantile(&c, 0.5), 100.0, 1e-9);
	cr_assert_float_eq(cdf_quantile(&c, 0.75), 600.0, 1e-9);
	cr_assert_float_eq(cdf_quantile(&c, 0.0), 0.0, 1e-9);
	cr_assert_float_eq(cdf_mean(&c), 0.5 * 50 + 0.5 * 600, 1e-9);
}

Test(cdf, poisson_gaps_have_the_mean)
{
	struct rng r = { 3 };
	double sum = 0, sq = 0;
	int i;

	for (i = 0; i < N_SAMPLES; i++) {
		double g = rng_exp(&r, 250.0);

		sum += g;
		sq += g * g;
	}
	sum /= N_SAMPLES;
	cr_assert(fabs(sum / 250.0 - 1) < 0.01, "mean gap %.2f", sum);
	/* exponential: standard deviation equals the mean */
	cr_assert(fabs(sqrt(sq / N_SAMPLES - sum * sum) / 250.0 - 1) < 0.02);
}

Test(cdf, same_seed_same_sequence)
{
	struct rng a = { 99 }, b = { 99 }, c = { 100 };
	int i, same = 1, differ = 0;

	for (i = 0; i < 100; i++) {
		uint64_t x = rng_next(&a);

		same &= x == rng_next(&b);
		differ |= x != rng_next(&c);
	}
	cr_assert(same && differ);
}

static int parse_str(const char *text)
{
	char err[128];
	struct cdf c;
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret = cdf_parse(&c, f, err, sizeof(err));

	fclose(f);
	return ret;
}

Test(cdf, bad_tables_are_refused)
{
	cr_assert_eq(parse_str("0 0\n100 1\n"), 0);
	cr_assert_eq(parse_str("# comment\n\n0 0 # here too\n100 1\n"), 0);
	cr_assert_eq(parse_str("0 0\n100 0.9\n"), -EINVAL, "must end at 1");
	cr_assert_eq(parse_str("0 0\n100 0.5\n50 1\n"), -EINVAL, "bytes decrease");
	cr_assert_eq(parse_str("0 0.5\n100 0.2\n200 1\n"), -EINVAL, "probability decreases");
	cr_assert_eq(parse_str("0 0\n100 1.5\n"), -EINVAL, "probability above 1");
	cr_assert_eq(parse_str("0 0\nabc 1\n"), -EINVAL, "not numbers");
	cr_assert_eq(parse_str("0 0\n100 1 x\n"), -EINVAL, "trailing junk");
	cr_assert_eq(parse_str(""), -EINVAL, "empty");
}
