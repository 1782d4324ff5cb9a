// SPDX-License-Identifier: GPL-2.0
/*
 * docgen: the tables of the docs pages that come from the code (docs/gen-tables
 * puts them between their markers).  Host C: no BPF object is opened, no
 * kernel state read, no root needed.
 *
 *   docgen tunables ALGO   ALGO's tunables, as `ccload list` lists them
 *   docgen stats ALGO      ALGO's own counters and gauges
 *   docgen stats common    the slots every algorithm has
 *   docgen algos           the registry's algorithm names, one a line
 *
 * Which tunables and stats an algorithm has, their order, kinds, ranges
 * and help come from its registry entry (loader/algos/<algo>.c), the
 * entries ccload parses and lists.  The entry carries no default (ccload
 * reads it from the object's .rodata), so defaults come from the X-macro
 * lists themselves (bpf/lib/tunables.h): every list is named below, and a
 * tunable found in none of them, or in two with different defaults, is an
 * error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "dctcp.h"
#include "bbr.h"
#include "tldct.h"
#include "flashpass.h"
#include "lia.h"
#include "ppqd.h"

struct tun_default {
	const char *name;
	uint64_t def;
};

#define DEFAULT_ROW(name, kind, lo, hi, def, help) { #name, (uint64_t)(def) },

/* Every tunables list of bpf/: a new list goes here too. */
static const struct tun_default defaults[] = {
	CCS_COMMON_TUNABLES(DEFAULT_ROW) DCTCP_TUNABLES(DEFAULT_ROW)
		DCTCP_ONLY_TUNABLES(DEFAULT_ROW) BBR_TUNABLES(DEFAULT_ROW)
			TLDCT_TUNABLES(DEFAULT_ROW) FP_TUNABLES(DEFAULT_ROW)
				CPL_TUNABLES(DEFAULT_ROW) PPQD_TUNABLES(DEFAULT_ROW)
};

/* The default of tunable @name; < 0 when no list has it or two disagree. */
static int default_of(const char *algo, const char *name, uint64_t *def)
{
	size_t i, n = 0;

	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		if (strcmp(defaults[i].name, name))
			continue;
		if (n++ && defaults[i].def != *def) {
			fprintf(stderr, "docgen: %s: tunable %s has two defaults in bpf/\n", algo,
				name);
			return -1;
		}
		*def = defaults[i].def;
	}
	if (!n)
		fprintf(stderr, "docgen: %s: tunable %s is in no list docgen.c names\n", algo,
			name);
	return n ? 0 : -1;
}

/* @s as a Markdown table cell. */
static void cell(const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			putchar('\\');
		putchar(*s);
	}
}

static const struct algo *find(const char *name)
{
	const struct algo *a = algo_find(name);

	if (!a)
		fprintf(stderr, "docgen: no algorithm '%s' in the registry\n", name);
	return a;
}

static int tunables(const char *name)
{
	const struct algo *a = find(name);
	char lo[32], hi[32], def[32];
	size_t i;

	if (!a)
		return 1;
	printf("| tunable | default | range | meaning |\n|---|---|---|---|\n");
	for (i = 0; i < a->n_tunables; i++) {
		const struct tunable *t = &a->tunables[i];
		uint64_t d;

		if (default_of(a->name, t->name, &d))
			return 1;
		printf("| `%s` | %s | %s..%s | ", t->name, tunable_format(t, d, def, sizeof(def)),
		       tunable_format(t, t->min, lo, sizeof(lo)),
		       tunable_format(t, t->max, hi, sizeof(hi)));
		cell(t->help);
		printf(" |\n");
	}
	return 0;
}

static void stat_rows(const struct stat_desc *s, size_t n)
{
	size_t i;

	printf("| counter | kind | meaning |\n|---|---|---|\n");
	for (i = 0; i < n; i++) {
		printf("| `%s` | %s | ", s[i].name, s[i].kind == STAT_GAUGE ? "gauge" : "counter");
		cell(s[i].help);
		printf(" |\n");
	}
}

static int stats(const char *name)
{
	const struct algo *a;

	if (!strcmp(name, "common")) {
		stat_rows(common_stats, n_common_stats);
		return 0;
	}
	a = find(name);
	if (!a)
		return 1;
	stat_rows(a->stats, a->n_stats);
	return 0;
}

int main(int argc, char **argv)
{
	const struct algo *a;
	size_t i;

	if (argc == 2 && !strcmp(argv[1], "algos")) {
		for (i = 0; (a = algo_at(i)); i++)
			printf("%s\n", a->name);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "tunables"))
		return tunables(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "stats"))
		return stats(argv[2]);
	fprintf(stderr, "usage: docgen tunables ALGO | stats ALGO|common | algos\n");
	return 2;
}
