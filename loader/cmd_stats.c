// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/stat.h>
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

static void print_one(FILE *f, enum fmt fmt, const char *cc, const struct ccs_stats *s, int first)
{
	const struct algo *a = algo_find(cc);
	unsigned int i;
	int n = 0;

	if (fmt == FMT_JSON)
		fprintf(f, "%s\"%s\":{", first ? "" : ",", cc);
	for (i = 0; i < CCS_STAT_MAX; i++) {
		const struct stat_desc *d = stats_desc(a, i);

		if (!d)
			continue;
		switch (fmt) {
		case FMT_TABLE:
			fprintf(f, "%-12s %-20s %" PRIu64 "\n", cc, d->name, (uint64_t)s->v[i]);
			break;
		case FMT_JSON:
			fprintf(f, "%s\"%s\":%" PRIu64, n++ ? "," : "", d->name, (uint64_t)s->v[i]);
			break;
		case FMT_PROM: /* print_prom() */ break;
		}
	}
	if (fmt == FMT_JSON)
		fprintf(f, "}");
}

#define PROM_MAX_ALGOS 16

/*
 * A counter's name in Prometheus: ccsuite_<name>, in base units (seconds,
 * bytes) with the unit spelled out, as Prometheus' naming conventions and
 * promtool's lint want: a name that ends in a unit suffix of ours gets
 * the base unit's instead, and its values @scale.  Counters end in _total.
 */
static const struct prom_unit {
	const char *sfx, *base, *in; /* ours, Prometheus', for HELP */
	double scale;
} prom_units[] = {
	{ "_us", "_seconds", "seconds", 1e-6 },
	{ "_ns", "_seconds", "seconds", 1e-9 },
	{ "_ms", "_seconds", "seconds", 1e-3 },
	{ "_bps", "_bytes_per_second", "bytes/s", 1.0 / 8 }, /* bit/s */
};

static const struct prom_unit *prom_name(const struct stat_desc *d, char *out, size_t len)
{
	size_t n = strlen(d->name), i, k;

	for (i = 0; i < ARRAY_SIZE(prom_units); i++) {
		k = strlen(prom_units[i].sfx);
		if (n > k && !strcmp(d->name + n - k, prom_units[i].sfx)) {
			snprintf(out, len, "ccsuite_%.*s%s%s", (int)(n - k), d->name,
				 prom_units[i].base, d->kind == STAT_COUNTER ? "_total" : "");
			return &prom_units[i];
		}
	}
	snprintf(out, len, "ccsuite_%s%s", d->name, d->kind == STAT_COUNTER ? "_total" : "");
	return NULL;
}

/* Prometheus text format: each metric family once, HELP and TYPE first,
 * then the samples of every algorithm that has it (a family's samples
 * must be contiguous).  Families in the order they first appear. */
static void print_prom(FILE *f, char names[][256], const struct ccs_stats *s, int n)
{
	const char *done[PROM_MAX_ALGOS * CCS_STAT_MAX];
	int n_done = 0, k, j, m;
	unsigned int i, i2;
	char pname[128];

	for (k = 0; k < n; k++) {
		const struct algo *a = algo_find(names[k]);

		for (i = 0; i < CCS_STAT_MAX; i++) {
			const struct stat_desc *d = stats_desc(a, i);
			const struct prom_unit *u;

			if (!d)
				continue;
			for (m = 0; m < n_done && strcmp(done[m], d->name); m++)
				;
			if (m < n_done)
				continue; /* printed with an earlier algorithm */
			done[n_done++] = d->name;
			u = prom_name(d, pname, sizeof(pname));
			fprintf(f, "# HELP %s %s%s%s\n# TYPE %s %s\n", pname, d->help,
				u ? "; here in " : "", u ? u->in : "", pname,
				d->kind == STAT_COUNTER ? "counter" : "gauge");
			for (j = k; j < n; j++) {
				const struct algo *b = algo_find(names[j]);

				for (i2 = 0; i2 < CCS_STAT_MAX; i2++) {
					const struct stat_desc *e = stats_desc(b, i2);
					uint64_t v = s[j].v[i2];

					if (!e || strcmp(e->name, d->name))
						continue;
					if (u)
						fprintf(f, "%s{algo=\"%s\"} %.9g\n", pname,
							names[j], (double)v * u->scale);
					else
						fprintf(f, "%s{algo=\"%s\"} %" PRIu64 "\n", pname,
							names[j], v);
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

/* One report over @only (or every pinned algorithm) to @f; returns how
 * many. */
static int report(FILE *f, enum fmt fmt, const char *only)
{
	static struct ccs_stats prom_stats[PROM_MAX_ALGOS];
	static char prom_names[PROM_MAX_ALGOS][256];
	struct dirent *de;
	struct ccs_stats s;
	int n = 0;
	DIR *d;

	d = opendir(PIN_ROOT);
	if (fmt == FMT_JSON)
		fprintf(f, "{");
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
		print_one(f, fmt, de->d_name, &s, n == 0);
		n++;
	}
	if (fmt == FMT_JSON)
		fprintf(f, "}\n");
	if (fmt == FMT_PROM)
		print_prom(f, prom_names, prom_stats, n);
	if (d)
		closedir(d);
	fflush(f);
	return n;
}

/*
 * The report written to @path whole or not at all: into a temporary file
 * beside it (mkstemp: O_EXCL, a name no one else has), then renamed over
 * it, so that a reader (node-exporter's textfile collector, which reads
 * only *.prom) never sees half of one.  A symbolic link at @path is
 * replaced, not followed.  Mode 0644: the collector runs as another user.
 * Returns how many algorithms it has, or -1 after a message (the file as
 * it was).
 */
static int report_file(const char *path, enum fmt fmt, const char *only)
{
	char tmp[4096];
	FILE *f;
	int fd, n;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		pr_warn("--output: '%s' is too long\n", path);
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		pr_warn("--output: cannot create a file beside '%s': %s\n", path, strerror(errno));
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		pr_warn("--output: %s\n", strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	n = report(f, fmt, only);
	if (ferror(f) || fchmod(fd, 0644) || fsync(fd)) {
		pr_warn("--output: cannot write '%s'%s%s\n", tmp, ferror(f) ? "" : ": ",
			ferror(f) ? "" : strerror(errno));
		fclose(f);
		unlink(tmp);
		return -1;
	}
	if (fclose(f) || rename(tmp, path)) {
		pr_warn("--output: cannot replace '%s': %s\n", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return n;
}

struct stats_args {
	enum fmt fmt;
	uint64_t watch;
	const char *output;
};

static int stats_opt(void *st, int key, char *arg);
static int stats_run(void *st, int sub, int argc, char **argv);

const struct cli stats_cli = {
	.cmd = "stats",
	.summary = "counters as a table, JSON or Prometheus text",
	.synopsis = "ccload stats [<algo>] [--json | --prom] [--watch SECONDS] [--output FILE]",
	.about = "Counters of attached algorithms (all of them without <algo>).",
	.opts =
		(const struct cli_opt[]){
			{ "json", 'j', NULL, SUB_ALL, "one JSON object {algo: {counter: value}}" },
			{ "prom", 'p', NULL, SUB_ALL, "Prometheus text exposition format" },
			{ "watch", 'w', "S", SUB_ALL,
			  "repeat every S seconds (JSON: one object per line)" },
			{ "output", 'o', "FILE", SUB_ALL,
			  "replace FILE with each report, whole (a temporary file renamed over it): "
			  "node-exporter's textfile collector reads no half report; none attached "
			  "is an empty report and exit status 0" },
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
	case 'o': a->output = arg; break;
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
		if (a->output) {
			if (report_file(a->output, fmt, only) < 0)
				return 1;
		} else if (watch && fmt == FMT_TABLE) {
			printf("\033[H\033[2J%-12s %-20s %s\n", "ALGO", "COUNTER", "VALUE");
		}
		if (!a->output && !report(stdout, fmt, only) && !watch) {
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
