// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tcrole.h"
#include "log.h"
#include "netns.h"
#include "obj.h"
#include "parse.h"
#include "pins.h"
#include "util.h"

#define TC_REC_ROOT  RUN_DIR "/tc"
/* cls_bpf priority of algorithm roles; the test switch has 1 (ccload
 * switch).  Each role on a device has its own handle, from its names. */
#define TC_ROLE_PRIO 2

static uint32_t role_handle(const struct algo *a, const char *role)
{
	uint32_t h = 2166136261u; /* FNV-1a of "algo/role" */
	const char *s;

	for (s = a->name; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	h = (h ^ '/') * 16777619u;
	for (s = role; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return 0x1000 | (h & 0xefff);
}

int tc_place_check(const struct algo *a, const struct tc_place *p)
{
	if (!algo_tc_role(a, p->role)) {
		size_t i;

		pr_warn("%s has no TC role '%s'%s", a->name, p->role,
			a->n_tc_roles ? " (roles:" : "");
		for (i = 0; i < a->n_tc_roles; i++)
			fprintf(stderr, " %s", a->tc_roles[i].role);
		fprintf(stderr, "%s\n", a->n_tc_roles ? ")" : "");
		return -EINVAL;
	}
	if (!parse_word_ok(p->dev, IF_NAMESIZE - 1)) {
		pr_warn("'%s' is not a device name\n", p->dev);
		return -EINVAL;
	}
	if (p->netns && !parse_word_ok(p->netns, 63)) {
		pr_warn("'%s' is not a network namespace name\n", p->netns);
		return -EINVAL;
	}
	return 0;
}

int tc_place_parse(const struct algo *a, char *text, struct tc_place *p)
{
	char *at;

	if (parse_kv(text, (char **)&p->role, (char **)&p->dev)) {
		pr_warn("--tc wants ROLE=DEV or ROLE=DEV@NETNS, got '%s'\n", text);
		return -EINVAL;
	}
	at = strchr(p->dev, '@');
	p->netns = NULL;
	if (at) {
		*at = '\0';
		p->netns = at + 1;
	}
	return tc_place_check(a, p);
}

static void rec_path(const struct algo *a, const struct tc_place *p, char *buf, size_t len)
{
	snprintf(buf, len, TC_REC_ROOT "/%s/%s@%s@%s", a->name, p->role, p->dev,
		 p->netns ? p->netns : "-");
}

static void hook_opts(const struct algo *a, const struct tc_role *r, int ifindex,
		      struct bpf_tc_hook *hook, struct bpf_tc_opts *opts)
{
	hook->ifindex = ifindex;
	hook->attach_point = r->dir == TC_INGRESS ? BPF_TC_INGRESS : BPF_TC_EGRESS;
	opts->handle = role_handle(a, r->role);
	opts->priority = TC_ROLE_PRIO;
}

/* Load @a's object again on its pinned maps (it must be attached). */
static struct bpf_object *open_on_pins(const struct algo *a)
{
	struct bpf_object *obj = obj_open_algo(a);
	char dir[256];

	if (!obj)
		return NULL;
	pin_dir(a->name, dir, sizeof(dir));
	if (access(dir, F_OK)) {
		pr_warn("%s is not attached: attach it first (ccload attach %s)\n", a->name,
			a->name);
		goto fail;
	}
	if (pin_reuse(obj, dir) || obj_load(obj, a->name))
		goto fail;
	return obj;
fail:
	bpf_object__close(obj);
	return NULL;
}

int tc_role_attach(const struct algo *a, struct bpf_object *obj, const struct tc_place *p)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .flags = BPF_TC_F_REPLACE);
	const struct tc_role *r = algo_tc_role(a, p->role);
	struct bpf_object *own = NULL;
	struct bpf_program *prog;
	char path[512], id[16];
	int back = -1, ifindex, err;

	if (!r || tc_place_check(a, p))
		return -EINVAL;
	if (!obj) {
		obj = own = open_on_pins(a);
		if (!obj)
			return -ENOENT;
	}
	prog = bpf_object__find_program_by_name(obj, r->prog);
	if (!prog) {
		pr_warn("%s: no program %s for role %s in the object\n", a->name, r->prog, r->role);
		err = -ENOENT;
		goto out;
	}
	err = netns_enter(p->netns, &back);
	if (err)
		goto out;
	ifindex = netns_dev_index(p->dev, p->netns);
	if (!ifindex) {
		err = -ENODEV;
		goto out;
	}
	hook_opts(a, r, ifindex, &hook, &opts);
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		pr_warn("cannot add clsact to %s: %s\n", p->dev, strerror(-err));
		goto out;
	}
	opts.prog_fd = bpf_program__fd(prog);
	err = bpf_tc_attach(&hook, &opts);
	if (err) {
		pr_warn("cannot attach %s %s to %s: %s\n", a->name, r->role, p->dev,
			strerror(-err));
		goto out;
	}
	snprintf(path, sizeof(path), TC_REC_ROOT "/%s", a->name);
	snprintf(id, sizeof(id), "%u", opts.prog_id);
	err = mkdir_p(path);
	rec_path(a, p, path, sizeof(path));
	if (!err)
		err = write_str(path, id);
	if (err) {
		pr_warn("cannot record %s: %s\n", path, strerror(-err));
		opts.prog_fd = opts.prog_id = opts.flags = 0;
		bpf_tc_detach(&hook, &opts);
		goto out;
	}
	pr_info("%s %s on %s%s%s %s (prog id %u)\n", a->name, r->role, p->dev, p->netns ? "@" : "",
		p->netns ? p->netns : "", r->dir == TC_INGRESS ? "ingress" : "egress",
		opts.prog_id);
out:
	netns_leave(back);
	bpf_object__close(own);
	return err;
}

/* Remove the filter of @p if it still holds program @prog_id; the
 * record goes either way (a filter holding another program is not ours). */
static int detach_rec(const struct algo *a, const struct tc_place *p, uint32_t prog_id, bool *live)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts);
	const struct tc_role *r = algo_tc_role(a, p->role);
	int back = -1, ifindex, err = 0;

	*live = false;
	if (!r)
		return -EINVAL;
	if (!netns_exists(p->netns) || netns_enter(p->netns, &back))
		return 0; /* the namespace is gone, and the filter with it */
	ifindex = if_nametoindex(p->dev);
	if (ifindex) {
		hook_opts(a, r, ifindex, &hook, &opts);
		if (!bpf_tc_query(&hook, &opts) && opts.prog_id == prog_id) {
			*live = true;
			opts.prog_id = opts.prog_fd = opts.flags = 0;
			err = bpf_tc_detach(&hook, &opts);
			if (err)
				pr_warn("cannot detach %s %s from %s: %s\n", a->name, r->role,
					p->dev, strerror(-err));
		}
	}
	netns_leave(back);
	return err;
}

/* Each record of @a: its place (pointing into @r) and program id. */
static int for_each_rec(const struct algo *a,
			int (*fn)(const struct algo *a, struct tc_place *p, struct tc_rec *r,
				  void *ctx),
			void *ctx)
{
	char dir[256], path[600], id[16];
	struct dirent *de;
	uint64_t v;
	DIR *d;
	int ret = 0;

	snprintf(dir, sizeof(dir), TC_REC_ROOT "/%s", a->name);
	d = opendir(dir);
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		struct tc_place p = {};
		struct tc_rec r = {};
		char *dev, *ns;

		if (de->d_name[0] == '.' ||
		    strlen(de->d_name) >= sizeof(r.role) + sizeof(r.dev) + sizeof(r.netns))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		dev = strchr(de->d_name, '@');
		ns = dev ? strchr(dev + 1, '@') : NULL;
		if (!ns || read_line(path, id, sizeof(id)) < 0)
			continue;
		*dev++ = '\0';
		*ns++ = '\0';
		snprintf(r.role, sizeof(r.role), "%s", de->d_name);
		snprintf(r.dev, sizeof(r.dev), "%s", dev);
		snprintf(r.netns, sizeof(r.netns), "%s", strcmp(ns, "-") ? ns : "");
		/* a record without a program id names no filter of ours:
		 * id 0, which no program has, so detach only drops it */
		r.prog_id = parse_u64(id, &v) || v > UINT32_MAX ? 0 : (uint32_t)v;
		p.role = r.role;
		p.dev = r.dev;
		p.netns = r.netns[0] ? r.netns : NULL;
		ret = fn(a, &p, &r, ctx);
	}
	closedir(d);
	return ret;
}

struct detach_ctx {
	const struct tc_place *only; /* NULL: all */
	int n, err;
};

static int detach_one_rec(const struct algo *a, struct tc_place *p, struct tc_rec *r, void *ctx)
{
	struct detach_ctx *c = ctx;
	char path[512];
	int err;

	if (c->only && (strcmp(c->only->role, p->role) || strcmp(c->only->dev, p->dev) ||
			strcmp(c->only->netns ? c->only->netns : "", r->netns)))
		return 0;
	err = detach_rec(a, p, r->prog_id, &r->live);
	if (err) {
		c->err = err;
		return 0;
	}
	rec_path(a, p, path, sizeof(path));
	unlink(path);
	c->n++;
	if (r->live)
		pr_info("%s %s detached from %s%s%s\n", a->name, p->role, p->dev,
			p->netns ? "@" : "", p->netns ? p->netns : "");
	return 0;
}

int tc_role_detach(const struct algo *a, const struct tc_place *p)
{
	struct detach_ctx c = { .only = p };

	if (tc_place_check(a, p))
		return -EINVAL;
	for_each_rec(a, detach_one_rec, &c);
	if (c.err)
		return c.err;
	return c.n ? 0 : -ENOENT;
}

int tc_role_detach_all(const struct algo *a)
{
	struct detach_ctx c = {};
	char dir[256];

	for_each_rec(a, detach_one_rec, &c);
	snprintf(dir, sizeof(dir), TC_REC_ROOT "/%s", a->name);
	rmdir(dir);
	return c.err ? c.err : c.n;
}

struct each_ctx {
	int (*fn)(const struct tc_rec *r, void *ctx);
	void *ctx;
};

static int each_live(const struct algo *a, struct tc_place *p, struct tc_rec *r, void *ctx)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts);
	const struct tc_role *role = algo_tc_role(a, p->role);
	struct each_ctx *c = ctx;
	int back = -1, ifindex;

	if (role && netns_exists(p->netns) && !netns_enter(p->netns, &back)) {
		ifindex = if_nametoindex(p->dev);
		if (ifindex) {
			hook_opts(a, role, ifindex, &hook, &opts);
			r->live = !bpf_tc_query(&hook, &opts) && opts.prog_id == r->prog_id;
		}
		netns_leave(back);
	}
	return c->fn(r, c->ctx);
}

int tc_role_for_each(const struct algo *a, int (*fn)(const struct tc_rec *r, void *ctx), void *ctx)
{
	struct each_ctx c = { fn, ctx };

	return for_each_rec(a, each_live, &c);
}
