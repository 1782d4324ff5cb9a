// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "kcc.h"
#include "log.h"
#include "obj.h"
#include "parse.h"
#include "pins.h"
#include "util.h"

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

static bool is_default(const char *cc)
{
	char cur[64];

	return read_line(SYSCTL_CC, cur, sizeof(cur)) == 0 && !strcmp(cur, cc);
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

/* An algorithm's cgroup programs (sockops: TCP options, per-connection
 * state; cgroup/setsockopt: options of its own) run for every socket:
 * attached to the cgroup v2 root by links pinned beside the maps, so they
 * stay when ccload exits and go with detach. */
static bool is_cgroup_prog(const struct bpf_program *prog)
{
	switch (bpf_program__type(prog)) {
	case BPF_PROG_TYPE_SOCK_OPS:
	case BPF_PROG_TYPE_CGROUP_SOCKOPT: return true;
	default: return false;
	}
}

/* A registry entry's cgroup programs are those it declares (each must be
 * in the object, and no other may be); an object of the user's has its
 * cgroup programs found by type. */
static int check_cgroup_progs(const struct algo *a, struct bpf_object *obj)
{
	const char *const *n;
	struct bpf_program *prog;

	for (n = a->cgroup_progs; n && *n; n++)
		if (!bpf_object__find_program_by_name(obj, *n)) {
			pr_warn("%s: no cgroup program %s in the object\n", a->name, *n);
			return -ENOENT;
		}
	bpf_object__for_each_program(prog, obj) {
		bool declared = false;

		for (n = a->cgroup_progs; n && *n; n++)
			declared |= !strcmp(*n, bpf_program__name(prog));
		if (is_cgroup_prog(prog) && !declared) {
			pr_warn("%s: cgroup program %s is not in its registry entry\n", a->name,
				bpf_program__name(prog));
			return -EINVAL;
		}
	}
	return 0;
}

static int attach_cgroup_progs(struct bpf_object *obj, const char *cc)
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
			pr_warn("%s needs cgroup v2: none is mounted\n", bpf_program__name(prog));
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
			pr_warn("cannot attach %s to %s: %s\n", bpf_program__name(prog), cg,
				strerror(-err));
			return err;
		}
		pin_path(cc, bpf_program__name(prog), path, sizeof(path));
		err = bpf_link__pin(link, path);
		bpf_link__destroy(link); /* the pin keeps it */
		if (err) {
			pr_warn("cannot pin %s: %s\n", path, strerror(-err));
			return err;
		}
		pr_info("%s attached to the cgroup %s\n", bpf_program__name(prog), cg);
	}
	return 0;
}

/* The entry's iterator programs, each on its map, pinned beside the maps:
 * reading the pin (ccload ppqd flows, or cat) runs the program. */
static int attach_iters(const struct algo *a, struct bpf_object *obj, const char *cc)
{
	const struct iter_prog *it;

	for (it = a ? a->iters : NULL; it && it->prog; it++) {
		struct bpf_program *prog = bpf_object__find_program_by_name(obj, it->prog);
		struct bpf_map *map = it->map ? bpf_object__find_map_by_name(obj, it->map) : NULL;
		DECLARE_LIBBPF_OPTS(bpf_iter_attach_opts, opts);
		union bpf_iter_link_info info = {};
		struct bpf_link *link;
		char path[512];
		int err;

		if (!prog || (it->map && !map)) {
			pr_warn("%s: no iterator %s%s%s in the object\n", a->name, it->prog,
				it->map ? " over map " : "", it->map ? it->map : "");
			return -ENOENT;
		}
		if (map) {
			info.map.map_fd = bpf_map__fd(map);
			opts.link_info = &info;
			opts.link_info_len = sizeof(info);
		}
		link = bpf_program__attach_iter(prog, &opts);
		if (!link) {
			err = -errno;
			pr_warn("cannot attach the iterator %s: %s\n", it->prog, strerror(-err));
			return err;
		}
		pin_path(cc, it->prog, path, sizeof(path));
		err = bpf_link__pin(link, path);
		bpf_link__destroy(link); /* the pin keeps it */
		if (err) {
			pr_warn("cannot pin %s: %s\n", path, strerror(-err));
			return err;
		}
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
					"net.ipv4.tcp_congestion_control changes\n",
					e->d_name, cc);
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

int algo_detach(const char *cc)
{
	char dir[256];
	int n;

	const struct algo *a = algo_find(cc);

	if (cc_registered(cc))
		warn_netns_defaults(cc);
	if (a)
		tc_role_detach_all(a);
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
bool attached_by_ccload(const char *name)
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

	if (k->in_use && attached_by_ccload(k->name) && algo_detach(k->name) == 0)
		(*n)++;
	return 0;
}

int attach_env_check(void)
{
	if (need_root() || need_btf() || need_bpffs() || lock_host_state())
		return -EPERM;
	return 0;
}

/* A tunable that sizes a map (the entry's map_sizes): its max_entries. */
static int size_map(const struct algo *a, struct bpf_object *obj, const char *tunable, uint64_t v)
{
	const struct map_size *ms;

	for (ms = a->map_sizes; ms && ms->map; ms++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, ms->map);

		if (strcmp(ms->tunable, tunable))
			continue;
		if (!m)
			return -ENOENT;
		return bpf_map__set_max_entries(m, (uint32_t)v);
	}
	return 0;
}

static int apply_sets(const struct attach_opts *o, struct bpf_object *obj, const char *what)
{
	struct bpf_map *ro = obj_rodata(obj);
	size_t sz, i;
	void *data = ro ? (void *)bpf_map__initial_value(ro, &sz) : NULL;
	int err;

	for (i = 0; i < o->n_sets; i++) {
		err = data ? rodata_set(obj, data, o->sets[i].t->name, o->sets[i].v) : -ENOENT;
		if (!err && o->algo)
			err = size_map(o->algo, obj, o->sets[i].t->name, o->sets[i].v);
		if (err) {
			pr_warn("%s: cannot set %s: %s\n", what, o->sets[i].t->name,
				strerror(-err));
			return err;
		}
	}
	/* a new key for each registration (registry.h) */
	err = data ? rodata_set_random(obj, data, CCS_SECRET_VAR) : 0;
	if (err)
		pr_warn("%s: cannot make its %s: %s\n", what, CCS_SECRET_VAR, strerror(-err));
	return err;
}

/* Replace an earlier registration of the name, then register. */
static struct bpf_link *do_register(const struct algo *a, struct bpf_map *ops, const char *what)
{
	struct bpf_link *link;
	int err;

	if (a && cc_registered(a->name)) {
		err = kcc_unregister(a->name);
		if (err <= 0 && cc_registered(a->name)) {
			pr_warn("%s is registered and is not a BPF struct_ops CC that ccload can replace\n",
				a->name);
			return NULL;
		}
		pr_info("replaced the earlier registration of %s\n", a->name);
		fault_point("unregistered");
	}
	link = bpf_map__attach_struct_ops(ops);
	if (!link) {
		err = -errno;
		pr_warn("%s: the kernel refused to register it: %s%s\n", what, strerror(-err),
			err == -EEXIST ? " (a CC of that name is registered: detach it)" : "");
	}
	return link;
}

/* The registered CC's name: the entry's, or read back from the map. */
static int registered_name(const struct algo *a, struct bpf_map *ops, const char *what,
			   char name[16], uint32_t *id)
{
	struct bpf_map_info info = {};
	uint32_t info_len = sizeof(info);
	struct name_ctx nc = {};

	if (bpf_obj_get_info_by_fd(bpf_map__fd(ops), &info, &info_len) || !info.id) {
		pr_warn("%s: registered, but its struct_ops map cannot be read back: %s\n", what,
			strerror(errno));
		return -EIO;
	}
	nc.id = *id = info.id;
	if (a)
		snprintf(nc.name, sizeof(nc.name), "%s", a->name);
	else
		kcc_for_each(name_of_id, &nc);
	/* an object's CC name becomes a directory name: never "..", never a path */
	if (!parse_cc_name_ok(nc.name)) {
		pr_warn("%s: refusing its CC name '%s' (1 to 15 of A-Z a-z 0-9 _ - ., not "
			"starting with '.')\n",
			what, nc.name);
		return -EINVAL;
	}
	memcpy(name, nc.name, 16);
	return 0;
}

/* Pins, cgroup programs, TC roles, sysctls: all or nothing. */
static int install(const struct attach_opts *o, struct bpf_object *obj, const char *name)
{
	char dir[256];
	size_t i;
	int err;

	pin_dir(name, dir, sizeof(dir));
	rm_pin_dir(dir); /* pins of a replaced registration */
	if (o->algo)
		tc_role_detach_all(o->algo); /* and its TC roles */
	fault_point("unpinned");
	err = pin_all(obj, dir);
	fault_point("pinned");
	if (!err)
		err = attach_cgroup_progs(obj, name);
	fault_point("cgroup");
	if (!err)
		err = attach_iters(o->algo, obj, name);
	for (i = 0; !err && i < o->n_tc; i++)
		err = tc_role_attach(o->algo, obj, &o->tc[i]);
	/* A replaced registration that is the default: the sysctl holds the old
	 * instance, which new sockets would still get; pointed at the new one. */
	if (!err && (o->as_default || is_default(name)))
		err = make_default(name);
	if (!err && o->non_restricted)
		err = make_non_restricted(name);
	if (err) {
		if (o->algo)
			tc_role_detach_all(o->algo);
		rm_pin_dir(dir);
	}
	return err;
}

int algo_attach(const struct attach_opts *o)
{
	const char *what = o->algo ? o->algo->name : o->objfile;
	struct bpf_object *obj;
	struct bpf_link *link = NULL;
	struct bpf_map *ops;
	char name[16], dir[256];
	uint32_t id;
	int err = -EINVAL;

	if (o->n_tc && !o->algo) {
		pr_warn("%s: TC roles are known only for the suite's algorithms\n", what);
		return -EINVAL;
	}
	obj = o->algo ? obj_open_algo(o->algo) : obj_open_file(o->objfile);
	if (!obj)
		return -ENOENT;
	ops = obj_struct_ops(obj);
	if (!ops) {
		pr_warn("%s: no SEC(\".struct_ops\") tcp_congestion_ops in the object\n", what);
		goto out;
	}
	if ((o->algo && check_cgroup_progs(o->algo, obj)) || apply_sets(o, obj, what) ||
	    obj_lru_headroom(obj, what))
		goto out;
	err = obj_load(obj, what);
	if (err)
		goto out;
	fault_point("loaded");

	/* Everything checkable is checked: now replace and register. */
	link = do_register(o->algo, ops, what);
	if (!link) {
		err = -EEXIST;
		goto out;
	}
	fault_point("registered");
	err = registered_name(o->algo, ops, what, name, &id);
	if (!err)
		err = install(o, obj, name);
	if (err)
		goto out; /* the link's destroy unregisters it */
	/* Keep it registered after we exit: drop the link without detaching. */
	bpf_link__disconnect(link);
	pin_dir(name, dir, sizeof(dir));
	printf("%s registered (struct_ops map id %u), maps pinned in %s\n", name, id, dir);
out:
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return err;
}

int algo_detach_all(void)
{
	int n = 0, err;
	size_t i;

	err = kcc_for_each(collect_suite, &n);
	/* pins and TC roles whose registration is gone already */
	for (i = 0; algo_at(i); i++) {
		char dir[256];

		tc_role_detach_all(algo_at(i));
		pin_dir(algo_at(i)->name, dir, sizeof(dir));
		rm_pin_dir(dir);
	}
	return err < 0 ? err : n;
}
