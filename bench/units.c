// SPDX-License-Identifier: GPL-2.0
/*
 * units: a rate, size or time with tc's units, in base units, parsed by
 * loader/lib/parse.c so that the scripts (test/net/topo.sh, bench/run)
 * read a value as ccload and tc do.
 *
 *   units rate VALUE [FACTOR]    bit/s
 *   units size VALUE [FACTOR]    bytes
 *   units time VALUE [FACTOR]    nanoseconds
 *
 * FACTOR multiplies the value (a decimal, e.g. 0.5), rounded to a whole
 * base unit.  Prints the number alone; exits 2 with the reason on bad
 * input.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "util.h"

struct kind {
	const char *name;
	int (*parse)(const char *s, uint64_t *out);
	const char *base;
	const char *units; /* for the message on bad input */
};

static const struct kind kinds[] = {
	{ "rate", parse_rate, "bit/s",
	  "bit kbit mbit gbit tbit (x1000), kibit mibit gibit (x1024), "
	  "bps kbps mbps gbps (bytes/s); a unit is required" },
	{ "size", parse_size, "bytes",
	  "b, k kb kib, m mb mib, g gb gib (x1024); a bare number is bytes" },
	{ "time", parse_time, "ns", "ns, us usec, ms msec, s sec; a bare number is us" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: units rate|size|time VALUE [FACTOR]\n"
		   "  VALUE in tc's units (loader/lib/parse.c), printed in base units:\n");
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		fprintf(f, "  %s -> %s: %s\n", kinds[i].name, kinds[i].base, kinds[i].units);
	fprintf(f, "  FACTOR: a decimal the value is multiplied by, rounded to a whole unit\n"
		   "exit status 2 on bad input\n");
}

static const struct kind *kind_of(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct kind *k;
	uint64_t v;
	double f, scaled;
	int err;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 3 || argc > 4) {
		usage(stderr);
		return 2;
	}
	k = kind_of(argv[1]);
	if (!k) {
		fprintf(stderr, "units: '%s': want rate, size or time\n", argv[1]);
		return 2;
	}
	err = k->parse(argv[2], &v);
	if (err) {
		fprintf(stderr, "units: %s '%s': %s (units: %s)\n", k->name, argv[2],
			err == -ERANGE ? "out of range" : "not understood", k->units);
		return 2;
	}
	if (argc == 3) {
		printf("%" PRIu64 "\n", v);
		return 0;
	}
	if (parse_double(argv[3], &f)) {
		fprintf(stderr, "units: factor '%s': want a decimal >= 0, e.g. 0.5\n", argv[3]);
		return 2;
	}
	/* to the nearest, ties to even, as awk's printf "%.0f" rounds */
	scaled = (double)v * f;
	if (scaled >= 18446744073709551616.0) {
		fprintf(stderr, "units: %s '%s' times %s: out of range\n", k->name, argv[2],
			argv[3]);
		return 2;
	}
	printf("%.0f\n", scaled);
	return 0;
}
