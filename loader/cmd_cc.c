// SPDX-License-Identifier: GPL-2.0
/* ccload list / attach / detach: the command line over lib/attach.h. */
#include <dirent.h>
#include <getopt.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "cmds.h"
#include "kcc.h"
#include "log.h"
#include "obj.h"
#include "parse.h"
#include "pins.h"
#include "registry.h"
#include "stats_map.h"
#include "util.h"

/* ---- attach ---- */

struct attach_args {
	char *set_texts[ATTACH_MAX_SETS], *tc_texts[ATTACH_MAX_TC];
	int n_sets, n_tc;
	struct attach_opts o;
};

static int attach_opt(void *st, int key, char *arg);
static int attach_run(void *st, int sub, int argc, char **argv);

const struct cli attach_cli = {
	.cmd = "attach",
	.summary = "load and register an algorithm (stays after exit)",
	.synopsis =
		"ccload attach <algo> [--set key=value]... [--tc ROLE=DEV[@NETNS]]... [--default]\n"
		"                     [--non-restricted]\n"
		"       ccload attach --obj FILE.bpf.o [--default] [--non-restricted]",
	.about = "Load and register a congestion control with everything it has (cgroup and\n"
		 "TC programs, maps); it stays after ccload exits.  An earlier registration\n"
		 "of the same name is replaced.",
	.opts =
		(const struct cli_opt[]){
			{ "set", 's', ARG_SET, SUB_ALL, "set a tunable (ccload list shows them)" },
			{ "tc", 't', ARG_TC, SUB_ALL,
			  "attach TC role ROLE on device DEV (in namespace NETNS)" },
			{ "default", 'd', NULL, SUB_ALL,
			  "make it net.ipv4.tcp_congestion_control (and usable as the default inside "
			  "network namespaces)" },
			{ "non-restricted", 'N', NULL, SUB_ALL,
			  "add it to net.ipv4.tcp_allowed_congestion_control" },
			{ "obj", 'o', ARG_FILE, SUB_ALL,
			  "load a struct_ops object of your own instead" },
			{ 0 },
		},
	.args = (const struct cli_args[]){ { 0, 1, { ARG_ALGO } } },
	.state_size = sizeof(struct attach_args),
	.opt = attach_opt,
	.run = attach_run,
};

static int parse_set(const struct algo *a, char *text, struct tunable_set *s)
{
	char *k, *v;

	if (parse_kv(text, &k, &v)) {
		pr_warn("--set wants key=value, got '%s'\n", text);
		return -EINVAL;
	}
	if (!a) {
		pr_warn("--set: tunables are known only for the suite's algorithms\n");
		return -EINVAL;
	}
	s->t = algo_tunable(a, k);
	if (!s->t) {
		pr_warn("%s has no tunable '%s' (ccload list shows them)\n", a->name, k);
		return -EINVAL;
	}
	return tunable_parse(s->t, v, &s->v);
}

static int attach_opt(void *st, int c, char *arg)
{
	struct attach_args *a = st;

	switch (c) {
	case 's':
	case 't':
		if ((c == 's' ? a->n_sets : a->n_tc) ==
		    (c == 's' ? ATTACH_MAX_SETS : ATTACH_MAX_TC)) {
			pr_warn("too many --%s\n", c == 's' ? "set" : "tc");
			return 2;
		}
		if (c == 's')
			a->set_texts[a->n_sets++] = arg;
		else
			a->tc_texts[a->n_tc++] = arg;
		break;
	case 'd': a->o.as_default = true; break;
	case 'N': a->o.non_restricted = true; break;
	case 'o': a->o.objfile = arg; break;
	default: return 2;
	}
	return 0;
}

/* @a's options and operands checked and made @l's attach_opts: 0, or 2
 * after a message. */
static int attach_prepare(const struct attach_args *a, int argc, char **argv, struct attach_line *l)
{
	struct attach_opts *o = &l->o;
	int i;

	*o = a->o;
	o->sets = l->sets;
	o->tc = l->tc;
	if (!o->objfile && argc != 1) {
		cli_usage(&attach_cli, stderr);
		return 2;
	}
	if (o->objfile && argc) {
		pr_warn("attach: give either <algo> or --obj, not both\n");
		return 2;
	}
	if (!o->objfile) {
		o->algo = algo_find(argv[0]);
		if (!o->algo) {
			pr_warn("unknown algorithm '%s' (ccload list shows them)\n", argv[0]);
			return 2;
		}
	}
	for (i = 0; i < a->n_sets; i++)
		if (parse_set(o->algo, a->set_texts[i], &l->sets[i]))
			return 2;
	for (i = 0; i < a->n_tc; i++)
		if (!o->algo || tc_place_parse(o->algo, a->tc_texts[i], &l->tc[i])) {
			if (!o->algo)
				pr_warn("--tc: TC roles are known only for the suite's algorithms\n");
			return 2;
		}
	o->n_sets = (size_t)a->n_sets;
	o->n_tc = (size_t)a->n_tc;
	return 0;
}

static int attach_run(void *st, int sub, int argc, char **argv)
{
	struct attach_line l;

	(void)sub;
	if (attach_prepare(st, argc, argv, &l))
		return 2;
	if (attach_env_check())
		return 1;
	return algo_attach(&l.o) ? 1 : 0;
}

int attach_parse(int argc, char **argv, struct attach_line *l)
{
	struct attach_args a = { 0 };
	int key, i, err = 0, n;

	/* one line of message each, from here: getopt's and the usage off */
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			pr_warn("'%s' is not for a config line\n", argv[i]);
			return 2;
		}
	optind = 0;
	opterr = 0;
	while (!err && (key = cli_getopt(&attach_cli, -1, argc, argv)) != -1) {
		if (key == '?') {
			pr_warn("'%s' is not an option of attach, or lacks its value (ccload attach "
				"--help)\n",
				argv[optind - 1]);
			err = 2;
		} else {
			err = attach_opt(&a, key, optarg);
		}
	}
	opterr = 1;
	if (err)
		return err;
	n = argc - optind;
	if (n != (a.o.objfile ? 0 : 1)) {
		pr_warn("attach wants one algorithm%s, got %d word(s) besides the options\n",
			a.o.objfile ? " or --obj" : "", n);
		return 2;
	}
	return attach_prepare(&a, n, argv + optind, l);
}

/* ---- detach ---- */

static int detach_opt(void *st, int key, char *arg);
static int detach_run(void *st, int sub, int argc, char **argv);

const struct cli detach_cli = {
	.cmd = "detach",
	.summary = "unregister an algorithm (or --all)",
	.synopsis = "ccload detach <algo> | --all",
	.about = "Unregister, unpin, and remove its cgroup and TC programs.  Sockets already\n"
		 "using it keep it until they close.",
	.opts =
		(const struct cli_opt[]){
			{ "all", 'a', NULL, SUB_ALL,
			  "every CC ccload attached (its algorithms, and what attach --obj pinned under " PIN_ROOT
			  "); CCs others registered stay; succeeds when there is none" },
			{ 0 },
		},
	.args = (const struct cli_args[]){ { 0, 1, { ARG_ALGO } } },
	.state_size = sizeof(int), /* --all */
	.opt = detach_opt,
	.run = detach_run,
};

static int detach_opt(void *st, int key, char *arg)
{
	(void)arg;
	*(int *)st = key == 'a'; /* its one option */
	return 0;
}

static int detach_run(void *st, int sub, int argc, char **argv)
{
	int all = *(int *)st, err;

	(void)sub;
	if (all == (argc > 0)) {
		cli_usage(&detach_cli, stderr);
		return 2;
	}
	if (!all && !parse_cc_name_ok(argv[0])) {
		pr_warn("'%s' is not a congestion control name (1 to 15 of A-Z a-z 0-9 _ - ., "
			"not starting with '.')\n",
			argv[0]);
		return 2;
	}
	if (attach_env_check())
		return 1;
	if (all) {
		err = algo_detach_all();
		if (!err)
			printf("nothing to detach\n");
		return err < 0 ? 1 : 0;
	}
	err = algo_detach(argv[0]);
	if (err == -ENOENT) {
		pr_warn("%s is not registered%s\n", argv[0],
			algo_find(argv[0]) ? "" : " (and is not a ccsuite algorithm)");
		return algo_find(argv[0]) ? 1 : 2;
	}
	return err ? 1 : 0;
}

/* ---- list ---- */

static int list_run(void *st, int sub, int argc, char **argv);

const struct cli list_cli = {
	.cmd = "list",
	.summary = "algorithms, whether registered, flows using them, tunables",
	.synopsis = "ccload list",
	.about = "Every algorithm ccsuite ships: registered or not, the struct_ops map id,\n"
		 "flows using it now (flows_init - flows_release since it was attached), its\n"
		 "cgroup and TC programs (and where they are attached), its iterators, the maps\n"
		 "attach pins (and which a tunable sizes), its own command, and its tunables\n"
		 "with current values (defaults when not registered).",
	.run = list_run,
};

/* Current tunable values (the registration's, else the defaults). */
static void list_tunables(const struct algo *a)
{
	uint64_t cur[ALGO_TUNABLES_MAX], def[ALGO_TUNABLES_MAX];
	char buf[32];
	size_t i;

	if (a->n_tunables > ALGO_TUNABLES_MAX || algo_tunables_read(a, cur, def))
		return;
	for (i = 0; i < a->n_tunables; i++) {
		const struct tunable *t = &a->tunables[i];

		printf("    %-20s = %-12s", t->name, tunable_format(t, cur[i], buf, sizeof(buf)));
		printf(" (default %s) %s\n", tunable_format(t, def[i], buf, sizeof(buf)), t->help);
	}
}

static int print_tc_rec(const struct tc_rec *r, void *ctx)
{
	const char *role = ctx;

	if (!strcmp(r->role, role))
		printf(" %s%s%s%s", r->dev, r->netns[0] ? "@" : "", r->netns,
		       r->live ? "" : " (gone)");
	return 0;
}

static void list_programs(const struct algo *a)
{
	const struct iter_prog *it;
	const char *const *n;
	char path[512];
	size_t i;

	for (n = a->cgroup_progs; n && *n; n++)
		printf("    cgroup program %s\n", *n);
	for (i = 0; i < a->n_tc_roles; i++) {
		const struct tc_role *r = &a->tc_roles[i];

		printf("    tc role %-10s %s %s; on:", r->role,
		       r->dir == TC_INGRESS ? "ingress" : "egress", r->help);
		tc_role_for_each(a, print_tc_rec, (void *)r->role);
		printf("\n");
	}
	for (it = a->iters; it && it->prog; it++) {
		pin_path(a->name, it->prog, path, sizeof(path));
		printf("    iterator %s%s%s, pinned as %s (reading it runs it)\n", it->prog,
		       it->map ? " over map " : "", it->map ? it->map : "", path);
	}
}

/* The tunable that sets map @map's size, NULL when none does. */
static const char *size_tunable(const struct algo *a, const char *map)
{
	const struct map_size *ms;

	for (ms = a->map_sizes; ms && ms->map; ms++)
		if (!strcmp(ms->map, map))
			return ms->tunable;
	return NULL;
}

/* The maps of the object, by the names attach pins them under (pins.h),
 * and those a tunable sizes. */
static void list_maps(const struct algo *a)
{
	struct bpf_object *obj = obj_open_algo(a);
	struct bpf_map *m;
	const char *pin;
	char dir[256];

	if (!obj)
		return;
	pin_dir(a->name, dir, sizeof(dir));
	printf("    maps, pinned in %s/:", dir);
	bpf_object__for_each_map(m, obj)
		if ((pin = pin_name(obj, m)))
			printf(" %s", pin);
	printf("\n");
	bpf_object__for_each_map(m, obj) {
		const char *t = size_tunable(a, bpf_map__name(m));

		if (t)
			printf("    map %s: its max_entries is tunable %s\n", bpf_map__name(m), t);
	}
	bpf_object__close(obj);
}

static void list_process(const struct algo *a)
{
	if (a->cmd)
		printf("    own command: ccload %s\n", a->cmd->cmd);
	if (a->needs_process && a->cmd)
		printf("    needs a running process (ccload %s run)\n", a->cmd->cmd);
	else if (a->needs_process)
		printf("    needs a running process\n");
}

/* Whether @name is registered, its map id, whether it is the default. */
static void list_registration(const char *name, const char *def)
{
	struct ccs_stats s;

	if (!cc_registered(name)) {
		printf("    not registered\n");
		return;
	}
	printf("    registered (struct_ops map id %u)%s", kcc_registered_id(name),
	       strcmp(def, name) ? "" : ", system default");
	if (stats_read_pinned(name, &s) == 0)
		printf(", %" PRIu64 " flows using it now",
		       (uint64_t)(s.v[CCS_STAT_FLOWS_INIT] - s.v[CCS_STAT_FLOWS_RELEASE]));
	printf("\n");
}

/* The CCs of `attach --obj`: a pin directory that is no algorithm's. */
static void list_obj_ccs(const char *def)
{
	DIR *d = opendir(PIN_ROOT);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || algo_find(e->d_name) || !parse_cc_name_ok(e->d_name))
			continue;
		printf("%-12s attached with --obj (detach it by name)\n", e->d_name);
		list_registration(e->d_name, def);
	}
	if (d)
		closedir(d);
}

static int list_run(void *st, int sub, int argc, char **argv)
{
	const struct algo *a;
	char def[64];
	size_t i;

	(void)st;
	(void)sub;
	(void)argc;
	(void)argv;
	if (need_root() || need_btf())
		return 1;
	if (read_line(SYSCTL_CC, def, sizeof(def)) < 0)
		def[0] = '\0';
	for (i = 0; (a = algo_at(i)); i++) {
		printf("%-12s %s\n", a->name, a->summary);
		list_registration(a->name, def);
		list_programs(a);
		list_maps(a);
		list_process(a);
		list_tunables(a);
	}
	list_obj_ccs(def);
	return 0;
}
