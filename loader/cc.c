// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching is: open the object, write tunables into .rodata, load (the
 * verifier runs here), then - only once everything that can be checked has
 * been checked - replace any registration of the same name, register,
 * pin, and leave the registration in the kernel when ccload exits.  A
 * failure before registration changes nothing; a failure after it undoes
 * the registration and the pins.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cc.h"
#include "kcc.h"
#include "log.h"
#include "obj.h"
#include "parse.h"
#include "registry.h"
#include "stats.h"
#include "util.h"

#define MAX_SETS 32

struct set {
	const struct tunable *t;
	const char *text;
	uint64_t v;
};

static void pin_dir(const char *cc, char *buf, size_t len)
{
	snprintf(buf, len, PIN_ROOT "/%s", cc);
}

/* ---- default CC bookkeeping ---- */

static void prev_default_path(const char *cc, char *buf, size_t len)
{
	snprintf(buf, len, RUN_DIR "/%s.prev_default", cc);
}

static int make_default(const char *cc)
{
	char cur[64], path[128];
	int err;

	if (read_line(SYSCTL_CC, cur, sizeof(cur)) < 0)
		cur[0] = '\0';
	if (strcmp(cur, cc) && cur[0]) {
		prev_default_path(cc, path, sizeof(path));
		mkdir_p(RUN_DIR);
		write_str(path, cur);
	}
	/* In the initial namespace this also marks the CC non-restricted,
	 * so network namespaces may make it their default too. */
	err = write_str(SYSCTL_CC, cc);
	if (err)
		pr_warn("cannot make %s the default congestion control: %s\n", cc, strerror(-err));
	return err;
}

/* A default that is about to disappear goes back to what it replaced. */
static void restore_default(const char *cc)
{
	char cur[64], prev[64], path[128];

	prev_default_path(cc, path, sizeof(path));
	if (read_line(SYSCTL_CC, cur, sizeof(cur)) == 0 && !strcmp(cur, cc)) {
		if (read_line(path, prev, sizeof(prev)) < 0 || !prev[0] || !cc_registered(prev))
			snprintf(prev, sizeof(prev), "cubic");
		if (write_str(SYSCTL_CC, prev) == 0)
			pr_info("default congestion control is %s again\n", prev);
	}
	unlink(path);
}

static int make_non_restricted(const char *cc)
{
	char cur[1024], next[1100];
	int err;

	if (word_in_file(SYSCTL_ALLOWED, cc))
		return 0;
	if (read_line(SYSCTL_ALLOWED, cur, sizeof(cur)) < 0)
		cur[0] = '\0';
	snprintf(next, sizeof(next), "%s%s%s", cur, cur[0] ? " " : "", cc);
	err = write_str(SYSCTL_ALLOWED, next);
	if (err)
		pr_warn("cannot add %s to %s: %s\n", cc, SYSCTL_ALLOWED, strerror(-err));
	return err;
}

/* ---- pins ---- */

static int pin_map(struct bpf_map *m, const char *dir, const char *name)
{
	char path[256];
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	err = bpf_map__pin(m, path);
	if (err)
		pr_warn("cannot pin %s: %s\n", path, strerror(-err));
	return err;
}

/* ops: the struct_ops map (detach finds it here first); stats; rodata
 * (list shows the tunables a registration was made with); and every other
 * map of the algorithm under its own name (tables that ccload task and
 * applications use). */
static int pin_all(struct bpf_object *obj, const char *dir)
{
	struct bpf_map *stats = bpf_object__find_map_by_name(obj, "ccs_stats");
	struct bpf_map *ro = obj_rodata(obj), *ops = obj_struct_ops(obj), *m;
	int err;

	err = mkdir_p(dir);
	if (err) {
		pr_warn("cannot create %s: %s\n", dir, strerror(-err));
		return err;
	}
	err = pin_map(ops, dir, "ops");
	if (!err && stats)
		err = pin_map(stats, dir, "stats");
	if (!err && ro)
		err = pin_map(ro, dir, "rodata");
	bpf_object__for_each_map(m, obj) {
		if (err)
			break;
		if (m != ops && m != stats && !bpf_map__is_internal(m))
			err = pin_map(m, dir, bpf_map__name(m));
	}
	return err;
}

/* An algorithm's cgroup programs (sockops: TCP options, per-connection
 * state; cgroup/setsockopt: options of its own) run for every socket:
 * attached to the cgroup v2 root by links pinned beside the maps, so they
 * stay when ccload exits and go with detach. */
static bool is_cgroup_prog(const struct bpf_program *prog)
{
	switch (bpf_program__type(prog)) {
	case BPF_PROG_TYPE_SOCK_OPS:
	case BPF_PROG_TYPE_CGROUP_SOCKOPT:
		return true;
	default:
		return false;
	}
}

static int attach_cgroup_progs(struct bpf_object *obj, const char *dir)
{
	struct bpf_program *prog;
	struct bpf_link *link;
	char cg[256], path[512];
	int fd, err;

	bpf_object__for_each_program(prog, obj) {
		if (!is_cgroup_prog(prog))
			continue;
		err = cgroup2_root(cg, sizeof(cg));
		if (err) {
			pr_warn("%s needs cgroup v2: none is mounted\n",
				bpf_program__name(prog));
			return err;
		}
		fd = open(cg, O_RDONLY | O_DIRECTORY);
		if (fd < 0) {
			pr_warn("cannot open %s: %s\n", cg, strerror(errno));
			return -errno;
		}
		link = bpf_program__attach_cgroup(prog, fd);
		err = link ? 0 : -errno;
		close(fd);
		if (err) {
			pr_warn("cannot attach %s to %s: %s\n", bpf_program__name(prog), cg, strerror(-err));
			return err;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, bpf_program__name(prog));
		err = bpf_link__pin(link, path);
		bpf_link__destroy(link);	/* the pin keeps it */
		if (err) {
			pr_warn("cannot pin %s: %s\n", path, strerror(-err));
			return err;
		}
		pr_info("%s attached to the cgroup %s\n", bpf_program__name(prog), cg);
	}
	return 0;
}

/* ---- attach ---- */

static void attach_usage(FILE *f)
{
	fprintf(f,
		"Usage: ccload attach <algo> [--set key=value]... [--default] [--non-restricted]\n"
		"       ccload attach --obj FILE.bpf.o [--default] [--non-restricted]\n"
		"Load and register a congestion control; it stays registered after ccload exits.\n"
		"An earlier registration of the same name is replaced.\n"
		"  -s, --set k=v         set a tunable (ccload list shows them)\n"
		"  -d, --default         make it net.ipv4.tcp_congestion_control (and usable\n"
		"                        as the default inside network namespaces)\n"
		"  -N, --non-restricted  add it to net.ipv4.tcp_allowed_congestion_control\n"
		"  -o, --obj FILE        load a struct_ops object of your own instead\n");
}

static int parse_sets(const struct algo *a, char **texts, int n, struct set *sets)
{
	int i;

	for (i = 0; i < n; i++) {
		char *k, *v;

		if (parse_kv(texts[i], &k, &v)) {
			pr_warn("--set wants key=value, got '%s'\n", texts[i]);
			return -EINVAL;
		}
		if (!a) {
			pr_warn("--set: tunables are known only for the suite's algorithms\n");
			return -EINVAL;
		}
		sets[i].t = algo_tunable(a, k);
		if (!sets[i].t) {
			pr_warn("%s has no tunable '%s' (ccload list shows them)\n", a->name, k);
			return -EINVAL;
		}
		sets[i].text = v;
		if (tunable_parse(sets[i].t, v, &sets[i].v))
			return -EINVAL;
	}
	return 0;
}

/* Read the CC name back from the registered map (for --obj objects). */
struct name_ctx {
	uint32_t id;
	char name[16];
};

static int name_of_id(const struct kcc *k, void *ctx)
{
	struct name_ctx *n = ctx;

	if (k->map_id != n->id)
		return 0;
	memcpy(n->name, k->name, sizeof(n->name));
	return 1;
}

int cmd_attach(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "set", required_argument, NULL, 's' },
		{ "default", no_argument, NULL, 'd' },
		{ "non-restricted", no_argument, NULL, 'N' },
		{ "obj", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char *set_texts[MAX_SETS];
	struct set sets[MAX_SETS];
	int n_sets = 0, as_default = 0, non_restricted = 0, c, i, err, ret = 1;
	const char *objfile = NULL, *name;
	const struct algo *a = NULL;
	struct bpf_object *obj = NULL;
	struct bpf_link *link = NULL;
	struct bpf_map *ops;
	struct bpf_map_info info = {};
	uint32_t info_len = sizeof(info);
	struct name_ctx nc = {};
	char dir[256];

	while ((c = getopt_long(argc, argv, "s:dNo:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (n_sets == MAX_SETS) {
				pr_warn("too many --set (at most %d)\n", MAX_SETS);
				return 2;
			}
			set_texts[n_sets++] = optarg;
			break;
		case 'd': as_default = 1; break;
		case 'N': non_restricted = 1; break;
		case 'o': objfile = optarg; break;
		case 'h': attach_usage(stdout); return 0;
		default: attach_usage(stderr); return 2;
		}
	}
	if (!objfile && optind + 1 != argc) {
		attach_usage(stderr);
		return 2;
	}
	if (objfile && optind != argc) {
		pr_warn("attach: give either <algo> or --obj, not both\n");
		return 2;
	}
	if (!objfile) {
		a = algo_find(argv[optind]);
		if (!a) {
			pr_warn("unknown algorithm '%s' (ccload list shows them)\n", argv[optind]);
			return 2;
		}
	}
	if (parse_sets(a, set_texts, n_sets, sets))
		return 2;
	if (need_root() || need_btf() || need_bpffs() || lock_host_state())
		return 1;

	obj = a ? obj_open_algo(a) : obj_open_file(objfile);
	if (!obj)
		return 1;
	ops = obj_struct_ops(obj);
	if (!ops) {
		pr_warn("%s: no SEC(\".struct_ops\") tcp_congestion_ops in the object\n",
			a ? a->name : objfile);
		goto out;
	}
	if (n_sets) {
		struct bpf_map *ro = obj_rodata(obj);
		size_t sz;
		void *data = ro ? (void *)bpf_map__initial_value(ro, &sz) : NULL;

		for (i = 0; i < n_sets; i++) {
			err = data ? rodata_set(obj, data, sets[i].t->name, sets[i].v) : -ENOENT;
			if (err) {
				pr_warn("%s: cannot set %s: %s\n", a->name, sets[i].t->name, strerror(-err));
				goto out;
			}
		}
	}
	if (obj_load(obj, a ? a->name : objfile))
		goto out;

	/* Everything checkable is checked: now replace and register. */
	if (a && cc_registered(a->name)) {
		err = kcc_unregister(a->name);
		if (err <= 0 && cc_registered(a->name)) {
			pr_warn("%s is registered and is not a BPF struct_ops CC that ccload can replace\n",
				a->name);
			goto out;
		}
		pr_info("replaced the earlier registration of %s\n", a->name);
	}
	link = bpf_map__attach_struct_ops(ops);
	if (!link) {
		err = -errno;
		pr_warn("%s: the kernel refused to register it: %s%s\n", a ? a->name : objfile,
			strerror(-err), err == -EEXIST ? " (a CC of that name is registered: detach it)" : "");
		goto out;
	}
	if (bpf_obj_get_info_by_fd(bpf_map__fd(ops), &info, &info_len) || !info.id) {
		pr_warn("%s: registered, but its struct_ops map cannot be read back: %s\n",
			a ? a->name : objfile, strerror(errno));
		goto out;	/* the link's destroy unregisters it */
	}
	nc.id = info.id;
	if (a)
		snprintf(nc.name, sizeof(nc.name), "%s", a->name);
	else
		kcc_for_each(name_of_id, &nc);
	name = nc.name;
	/* an object's CC name becomes a directory name: never "..", never a path */
	if (!parse_cc_name_ok(name)) {
		pr_warn("%s: refusing its CC name '%s' (1 to 15 of A-Z a-z 0-9 _ - ., not "
			"starting with '.')\n", objfile ? objfile : a->name, name);
		goto out;
	}

	pin_dir(name, dir, sizeof(dir));
	rm_pin_dir(dir);	/* pins of a replaced registration */
	if (pin_all(obj, dir) || attach_cgroup_progs(obj, dir) || (as_default && make_default(name)) ||
	    (non_restricted && make_non_restricted(name))) {
		rm_pin_dir(dir);
		bpf_link__destroy(link);	/* unregisters */
		link = NULL;
		goto out;
	}
	/* Keep it registered after we exit: drop the link without detaching. */
	bpf_link__disconnect(link);
	printf("%s registered (struct_ops map id %u), maps pinned in %s\n", name, info.id, dir);
	ret = 0;
out:
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return ret;
}

/* ---- detach ---- */

/*
 * Named network namespaces (/run/netns) whose default CC is @cc: after the
 * detach their new sockets still get the unregistered instance (the
 * default holds it) until the namespace's sysctl changes, so say which.
 * Namespaces without a name are not seen.
 */
static void warn_netns_defaults(const char *cc)
{
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	DIR *d = opendir("/run/netns");
	struct dirent *e;

	while (self >= 0 && d && (e = readdir(d))) {
		char path[512], cur[64];
		int fd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (setns(fd, CLONE_NEWNET) == 0) {
			if (read_line(SYSCTL_CC, cur, sizeof(cur)) == 0 && !strcmp(cur, cc))
				pr_warn("network namespace %s still defaults to %s: its new sockets get "
					"the unregistered instance until its "
					"net.ipv4.tcp_congestion_control changes\n", e->d_name, cc);
			if (setns(self, CLONE_NEWNET))
				pr_warn("cannot return to ccload's network namespace: %s\n",
					strerror(errno));
		}
		close(fd);
	}
	if (d)
		closedir(d);
	if (self >= 0)
		close(self);
}

static int detach_one(const char *cc)
{
	char dir[256];
	int n;

	if (cc_registered(cc))
		warn_netns_defaults(cc);
	restore_default(cc);
	n = kcc_unregister(cc);
	pin_dir(cc, dir, sizeof(dir));
	rm_pin_dir(dir);
	if (n < 0)
		return n;
	if (n == 0)
		return -ENOENT;
	printf("%s unregistered (sockets using it keep it until they close)\n", cc);
	return 0;
}

/* What ccload attached: its own algorithms, and a CC it pinned (attach
 * --obj).  A CC someone else registered is theirs to remove. */
static bool attached_by_ccload(const char *name)
{
	char dir[256];

	if (algo_find(name))
		return true;
	if (!parse_cc_name_ok(name))
		return false;
	pin_dir(name, dir, sizeof(dir));
	return access(dir, F_OK) == 0;
}

static int collect_suite(const struct kcc *k, void *ctx)
{
	int *n = ctx;

	if (k->in_use && attached_by_ccload(k->name) && detach_one(k->name) == 0)
		(*n)++;
	return 0;
}

static void detach_usage(FILE *f)
{
	fprintf(f,
		"Usage: ccload detach <algo> | --all\n"
		"Unregister and unpin.  Sockets already using it keep it until they close.\n"
		"  -a, --all   every CC ccload attached (its algorithms, and what attach --obj\n"
		"              pinned under " PIN_ROOT "); CCs others registered stay;\n"
		"              succeeds when there is none\n");
}

int cmd_detach(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int all = 0, c, err, n = 0;

	while ((c = getopt_long(argc, argv, "ah", opts, NULL)) != -1) {
		switch (c) {
		case 'a': all = 1; break;
		case 'h': detach_usage(stdout); return 0;
		default: detach_usage(stderr); return 2;
		}
	}
	if (all == (optind < argc) || argc - optind > 1) {
		detach_usage(stderr);
		return 2;
	}
	if (need_root() || need_btf() || need_bpffs() || lock_host_state())
		return 1;
	if (all) {
		size_t i;

		err = kcc_for_each(collect_suite, &n);
		/* pins whose registration is gone already */
		for (i = 0; i < n_algos; i++) {
			char dir[256];

			pin_dir(algos[i]->name, dir, sizeof(dir));
			rm_pin_dir(dir);
		}
		if (!n)
			printf("nothing to detach\n");
		return err < 0 ? 1 : 0;
	}
	if (!parse_cc_name_ok(argv[optind])) {
		pr_warn("'%s' is not a congestion control name (1 to 15 of A-Z a-z 0-9 _ - ., "
			"not starting with '.')\n", argv[optind]);
		return 2;
	}
	err = detach_one(argv[optind]);
	if (err == -ENOENT) {
		pr_warn("%s is not registered%s\n", argv[optind],
			algo_find(argv[optind]) ? "" : " (and is not a ccsuite algorithm)");
		return algo_find(argv[optind]) ? 1 : 2;
	}
	return err ? 1 : 0;
}

/* ---- list ---- */

struct id_ctx {
	const char *name;
	uint32_t id;
};

static int id_of_name(const struct kcc *k, void *ctx)
{
	struct id_ctx *x = ctx;

	if (!k->in_use || strcmp(k->name, x->name))
		return 0;
	x->id = k->map_id;
	return 1;
}

static void list_usage(FILE *f)
{
	fprintf(f,
		"Usage: ccload list\n"
		"Every algorithm ccsuite ships: registered or not, the struct_ops map id,\n"
		"flows using it now (flows_init - flows_release since it was attached),\n"
		"and its tunables with current values (defaults when not registered).\n");
}

/* Current tunable values: the pinned .rodata of the registration, else the
 * defaults compiled into the object. */
static void list_tunables(const struct algo *a)
{
	struct bpf_object *obj = obj_open_algo(a);
	struct bpf_map *ro = obj ? obj_rodata(obj) : NULL;
	size_t sz = 0, i;
	const void *def = ro ? bpf_map__initial_value(ro, &sz) : NULL;
	void *cur = NULL;
	char path[256], buf[32];
	int fd;

	snprintf(path, sizeof(path), PIN_ROOT "/%s/rodata", a->name);
	fd = bpf_obj_get(path);
	if (fd >= 0 && sz) {
		uint32_t zero = 0;

		cur = calloc(1, sz);
		if (cur && bpf_map_lookup_elem(fd, &zero, cur)) {
			free(cur);
			cur = NULL;
		}
	}
	if (fd >= 0)
		close(fd);
	for (i = 0; i < a->n_tunables; i++) {
		const struct tunable *t = &a->tunables[i];
		uint64_t v = 0, d = 0;

		if (def)
			rodata_get(obj, def, t->name, &d);
		if (cur)
			rodata_get(obj, cur, t->name, &v);
		else
			v = d;
		printf("    %-20s = %-12s", t->name, tunable_format(t, v, buf, sizeof(buf)));
		printf(" (default %s) %s\n", tunable_format(t, d, buf, sizeof(buf)), t->help);
	}
	free(cur);
	bpf_object__close(obj);
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char def[64];
	size_t i;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			list_usage(stdout);
			return 0;
		}
		list_usage(stderr);
		return 2;
	}
	if (optind < argc) {
		list_usage(stderr);
		return 2;
	}
	if (need_root() || need_btf())
		return 1;
	if (read_line(SYSCTL_CC, def, sizeof(def)) < 0)
		def[0] = '\0';
	for (i = 0; i < n_algos; i++) {
		const struct algo *a = algos[i];
		struct id_ctx x = { .name = a->name };
		struct ccs_stats s;

		printf("%-12s %s\n", a->name, a->summary);
		if (cc_registered(a->name)) {
			kcc_for_each(id_of_name, &x);
			printf("    registered (struct_ops map id %u)%s", x.id,
			       strcmp(def, a->name) ? "" : ", system default");
			if (stats_read_pinned(a->name, &s) == 0)
				printf(", %" PRIu64 " flows using it now",
				       (uint64_t)(s.v[CCS_STAT_FLOWS_INIT] - s.v[CCS_STAT_FLOWS_RELEASE]));
			printf("\n");
		} else {
			printf("    not registered\n");
		}
		list_tunables(a);
	}
	return 0;
}
