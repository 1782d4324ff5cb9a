// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cmds.h"
#include "stats_map.h"
#include "log.h"
#include "parse.h"
#include "pins.h"
#include "util.h"

enum fmt { FMT_TABLE, FMT_JSON, FMT_PROM };

static void print_one(enum fmt fmt, const char *cc, const struct ccs_stats *s, int first)
{
	const struct algo *a = algo_find(cc);
	unsigned int i;
	int n = 0;

	if (fmt == FMT_JSON)
		printf("%s\"%s\":{", first ? "" : ",", cc);
	for (i = 0; i < CCS_STAT_MAX; i++) {
		const struct stat_desc *d = stats_desc(a, i);

		if (!d)
			continue;
		switch (fmt) {
		case FMT_TABLE:
			printf("%-12s %-20s %" PRIu64 "\n", cc, d->name, (uint64_t)s->v[i]);
			break;
		case FMT_JSON:
			printf("%s\"%s\":%" PRIu64, n++ ? "," : "", d->name, (uint64_t)s->v[i]);
			break;
		case FMT_PROM: /* print_prom() */ break;
		}
	}
	if (fmt == FMT_JSON)
		printf("}");
}

#define PROM_MAX_ALGOS 16

/* Prometheus text format: each metric family once, HELP and TYPE first,
 * then the samples of every algorithm that has it (a family's samples
 * must be contiguous).  Families in the order they first appear. */
static void print_prom(char names[][256], const struct ccs_stats *s, int n)
{
	const char *done[PROM_MAX_ALGOS * CCS_STAT_MAX];
	int n_done = 0, k, j, m;
	unsigned int i, i2;

	for (k = 0; k < n; k++) {
		const struct algo *a = algo_find(names[k]);

		for (i = 0; i < CCS_STAT_MAX; i++) {
			const struct stat_desc *d = stats_desc(a, i);
			const char *sfx;

			if (!d)
				continue;
			for (m = 0; m < n_done && strcmp(done[m], d->name); m++)
				;
			if (m < n_done)
				continue; /* printed with an earlier algorithm */
			done[n_done++] = d->name;
			sfx = d->kind == STAT_COUNTER ? "_total" : "";
			printf("# HELP ccsuite_%s%s %s\n# TYPE ccsuite_%s%s %s\n", d->name, sfx,
			       d->help, d->name, sfx,
			       d->kind == STAT_COUNTER ? "counter" : "gauge");
			for (j = k; j < n; j++) {
				const struct algo *b = algo_find(names[j]);

				for (i2 = 0; i2 < CCS_STAT_MAX; i2++) {
					const struct stat_desc *e = stats_desc(b, i2);

					if (e && !strcmp(e->name, d->name))
						printf("ccsuite_%s%s{algo=\"%s\"} %" PRIu64 "\n",
						       d->name, sfx, names[j],
						       (uint64_t)s[j].v[i2]);
				}
			}
		}
	}
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* One report over @only (or every pinned algorithm); returns how many. */
static int report(enum fmt fmt, const char *only)
{
	static struct ccs_stats prom_stats[PROM_MAX_ALGOS];
	static char prom_names[PROM_MAX_ALGOS][256];
	struct dirent *de;
	struct ccs_stats s;
	int n = 0;
	DIR *d;

	d = opendir(PIN_ROOT);
	if (fmt == FMT_JSON)
		printf("{");
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "tc"))
			continue;
		if (only && strcmp(only, de->d_name))
			continue;
		if (stats_read_pinned(de->d_name, &s))
			continue;
		if (fmt == FMT_PROM) {
			if (n < PROM_MAX_ALGOS) {
				snprintf(prom_names[n], sizeof(prom_names[n]), "%s", de->d_name);
				prom_stats[n++] = s;
			}
			continue;
		}
		print_one(fmt, de->d_name, &s, n == 0);
		n++;
	}
	if (fmt == FMT_JSON)
		printf("}\n");
	if (fmt == FMT_PROM)
		print_prom(prom_names, prom_stats, n);
	if (d)
		closedir(d);
	fflush(stdout);
	return n;
}

struct stats_args {
	enum fmt fmt;
	uint64_t watch;
};

static int stats_opt(void *st, int key, char *arg);
static int stats_run(void *st, int sub, int argc, char **argv);

const struct cli stats_cli = {
	.cmd = "stats",
	.summary = "counters as a table, JSON or Prometheus text",
	.synopsis = "ccload stats [<algo>] [--json | --prom] [--watch SECONDS]",
	.about = "Counters of attached algorithms (all of them without <algo>).",
	.opts =
		(const struct cli_opt[]){
			{ "json", 'j', NULL, SUB_ALL, "one JSON object {algo: {counter: value}}" },
			{ "prom", 'p', NULL, SUB_ALL, "Prometheus text exposition format" },
			{ "watch", 'w', "S", SUB_ALL,
			  "repeat every S seconds (JSON: one object per line)" },
			{ 0 },
		},
	.args = (const struct cli_args[]){ { 0, 1, { ARG_ALGO } } },
	.state_size = sizeof(struct stats_args),
	.opt = stats_opt,
	.run = stats_run,
};

static int stats_opt(void *st, int key, char *arg)
{
	struct stats_args *a = st;

	switch (key) {
	case 'j': a->fmt = FMT_JSON; break;
	case 'p': a->fmt = FMT_PROM; break;
	case 'w':
		if (parse_u64(arg, &a->watch) || !a->watch || a->watch > 3600) {
			pr_warn("--watch: '%s' is not a number of seconds in [1, 3600]\n", arg);
			return 2;
		}
		break;
	default: return 2;
	}
	return 0;
}

static int stats_run(void *st, int sub, int argc, char **argv)
{
	const struct stats_args *a = st;
	enum fmt fmt = a->fmt;
	uint64_t watch = a->watch;
	const char *only = argc ? argv[0] : NULL;

	(void)sub;
	if (need_root())
		return 1;
	if (only && !algo_find(only) && access(PIN_ROOT, F_OK) == 0) {
		char p[256];

		pin_dir(only, p, sizeof(p));
		if (access(p, F_OK)) {
			pr_warn("unknown algorithm '%s' (ccload list shows them)\n", only);
			return 2;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	do {
		if (watch && fmt == FMT_TABLE)
			printf("\033[H\033[2J%-12s %-20s %s\n", "ALGO", "COUNTER", "VALUE");
		if (!report(fmt, only) && !watch) {
			pr_warn(only ? "%s is not attached by ccload\n" :
				       "no ccsuite algorithm is attached\n",
				only);
			return 1;
		}
		if (watch && !stop)
			sleep((unsigned int)watch);
	} while (watch && !stop);
	return 0;
}
