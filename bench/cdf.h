/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Empirical flow-size distributions: a table of (bytes, cumulative
 * probability) points with linear interpolation between them, as
 * TrafficGenerator and the papers' simulators read them; and a small
 * seeded PRNG so that a run is reproducible from its seed.
 * Header-only so the sampler is unit-tested on the host as it runs.
 */
#ifndef CCSUITE_CDF_H
#define CCSUITE_CDF_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CDF_MAX_POINTS 256

struct cdf {
	int n;
	double x[CDF_MAX_POINTS]; /* bytes, non-decreasing */
	double p[CDF_MAX_POINTS]; /* cumulative probability, 0 .. 1 */
};

/* splitmix64: tiny, fast, good enough for sampling workloads. */
struct rng {
	uint64_t s;
};

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double rng_uniform(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Exponential with the given mean (Poisson inter-arrival times). */
static inline double rng_exp(struct rng *r, double mean)
{
	return -log(1.0 - rng_uniform(r)) * mean;
}

/*
 * Parse "bytes probability" lines ('#' starts a comment).  The table must
 * start at probability 0 or above, end at 1, and never decrease in either
 * column.  Returns 0, or -EINVAL with a message in @err.
 */
static inline int cdf_parse(struct cdf *c, FILE *f, char *err, size_t errlen)
{
	char line[256];
	int lineno = 0;

	c->n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#');
		double x, p;
		char extra;
		int k;

		lineno++;
		if (hash)
			*hash = '\0';
		k = sscanf(line, "%lf %lf %c", &x, &p, &extra);
		if (k <= 0)
			continue; /* blank */
		if (k != 2 || x < 0 || p < 0 || p > 1 || !isfinite(x)) {
			snprintf(err, errlen, "line %d: want 'bytes probability'", lineno);
			return -EINVAL;
		}
		if (c->n && (x < c->x[c->n - 1] || p < c->p[c->n - 1])) {
			snprintf(err, errlen, "line %d: bytes and probability must not decrease",
				 lineno);
			return -EINVAL;
		}
		if (c->n == CDF_MAX_POINTS) {
			snprintf(err, errlen, "more than %d points", CDF_MAX_POINTS);
			return -EINVAL;
		}
		c->x[c->n] = x;
		c->p[c->n] = p;
		c->n++;
	}
	if (c->n < 1 || c->p[c->n - 1] != 1.0) {
		snprintf(err, errlen, "the last point must have probability 1");
		return -EINVAL;
	}
	return 0;
}

/* Inverse transform: the size at cumulative probability @u in [0, 1). */
static inline double cdf_quantile(const struct cdf *c, double u)
{
	int lo = 0, hi = c->n - 1;

	if (u <= c->p[0])
		return c->x[0];
	/* first point with p >= u */
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (c->p[mid] >= u)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (c->p[lo] == c->p[lo - 1])
		return c->x[lo];
	return c->x[lo - 1] +
	       (c->x[lo] - c->x[lo - 1]) * (u - c->p[lo - 1]) / (c->p[lo] - c->p[lo - 1]);
}

/* A size in bytes, at least 1. */
static inline uint64_t cdf_sample(const struct cdf *c, struct rng *r)
{
	double v = cdf_quantile(c, rng_uniform(r));

	return v < 1 ? 1 : (uint64_t)(v + 0.5);
}

/* Mean of the piecewise-linear distribution (mass below the first point
 * sits at the first point). */
static inline double cdf_mean(const struct cdf *c)
{
	double m = c->x[0] * c->p[0];
	int i;

	for (i = 1; i < c->n; i++)
		m += (c->p[i] - c->p[i - 1]) * (c->x[i] + c->x[i - 1]) / 2;
	return m;
}

#endif /* CCSUITE_CDF_H */
