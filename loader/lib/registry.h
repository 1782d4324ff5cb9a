/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The algorithms ccsuite ships.  An entry declares everything an algorithm
 * has, and attach, detach and list act on all of it: its BPF object
 * (embedded through its skeleton; one object, so its programs share its
 * maps), whose struct_ops map is the CC; its cgroup programs (attached to
 * the cgroup v2 root); its TC programs, each a role with a direction,
 * attached on the devices named at attach or with ccload tc; its
 * iterator programs (each over one of its maps, pinned); the
 * tunables ccload accepts and the names of its stats slots (both
 * generated from the lists in bpf/<algo>.h); whether it needs a
 * running process beside the kernel; and its own ccload command (cli.h),
 * which ccload dispatches to through the registry.  Every map of the
 * object is pinned under PIN_ROOT/<name>/.  A tunable is a
 * `const volatile` variable of the same name in the object's .rodata.
 * An object's `const volatile` CCS_SECRET_VAR in .rodata, if it has one
 * (any size), is filled from getrandom(2) at each attach: a key its
 * programs hold, readable only by who may read its maps (bpf_tldct's wire
 * ids).
 *
 * An in-tree algorithm is its bpf/<algo>.bpf.c and bpf/<algo>.h, and one
 * registry file, loader/algos/<algo>.c: its entry `algo_<algo>` and the
 * code of its own command, if it has one; its word in the Makefile's
 * ALGOS lists it.  Another program adds one of its own with algo_add()
 * (test/kern/ccsdummy.c).
 */
#ifndef CCLOAD_REGISTRY_H
#define CCLOAD_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CCS_SECRET_VAR "ccs_secret"

struct cli; /* cli.h */

enum tunable_kind {
	TUN_UINT, /* plain integer */
	TUN_BOOL, /* 0/1, true/false, on/off */
	TUN_SIZE, /* bytes, tc units */
	TUN_RATE, /* bits/s, tc units */
	TUN_TIME, /* nanoseconds, tc units */
};

struct tunable {
	const char *name;
	enum tunable_kind kind;
	uint64_t min, max;
	const char *help;
};

enum stat_kind { STAT_COUNTER, STAT_GAUGE };

struct stat_desc {
	const char *name;
	enum stat_kind kind;
	const char *help;
};

enum tc_dir { TC_INGRESS, TC_EGRESS };

/* A TC program of the algorithm (clsact, direct action). */
struct tc_role {
	const char *role; /* name on the command line, unique in the
					 * registry: "<algo>-<role>" */
	const char *prog; /* the program's name in the object */
	enum tc_dir dir;
	const char *help;
};

/* An iterator program of the object, attached at attach and pinned as
 * PIN_ROOT/<name>/<prog>: reading the pin runs it. */
struct iter_prog {
	const char *prog;
	const char *map; /* the map it walks (map iterators); NULL for others */
};

/* A map whose size a tunable sets (its max_entries, before load). */
struct map_size {
	const char *map;
	const char *tunable;
};

struct algo {
	const char *name; /* kernel CC name, <= 15 chars */
	const char *summary;
	const void *(*elf_bytes)(size_t *sz);
	/* the object built with -DCCS_PRE_6_10, for kernels whose cong_control
	 * takes (sk, rs); NULL when one object serves every kernel */
	const void *(*elf_bytes_pre_6_10)(size_t *sz);
	const struct tunable *tunables;
	size_t n_tunables;
	const struct stat_desc *stats; /* slots from CCS_STAT_ALGO on */
	size_t n_stats;
	const char *const *cgroup_progs;  /* program names, NULL-terminated */
	const struct iter_prog *iters;	  /* NULL-terminated (prog NULL) */
	const struct map_size *map_sizes; /* NULL-terminated (map NULL) */
	const struct tc_role *tc_roles;
	size_t n_tc_roles;
	/* a process must run beside the kernel side (ccload <cmd> run) */
	bool needs_process;
	/* its own ccload command, `ccload <cmd->cmd> ...`; NULL: none */
	const struct cli *cmd;
};

/* Names of the common slots (bpf/lib/stats.h). */
/* An entry's stats and tunables from the lists in its bpf/<algo>.h
 * (bpf/lib/stats.h, bpf/lib/tunables.h):
 *   static const struct stat_desc foo_stats[] = { FOO_STATS(STAT_DESC, FOO) };
 *   static const struct tunable foo_tunables[] = { FOO_TUNABLES(TUNABLE_DESC) };
 *   FOO_TUNABLES(TUNABLE_CHECK)
 */
#define STAT_DESC(P, id, name, kind, help) \
	[P##_STAT_##id - CCS_STAT_ALGO] = { #name, STAT_##kind, help },
#define TUNABLE_DESC(name, kind, lo, hi, def, help) { #name, TUN_##kind, lo, hi, help },
/* a default outside its own range is a bug in the list */
#define TUNABLE_CHECK(name, kind, lo, hi, def, help)                    \
	_Static_assert((uint64_t)(def) - (lo) <= (uint64_t)(hi) - (lo), \
		       #name "'s default is out of range");

extern const struct stat_desc common_stats[];
extern const size_t n_common_stats;

const struct algo *algo_find(const char *name);
/* Add an algorithm of another program's own (a test's); < 0 when the
 * registry is full or the name is taken. */
int algo_add(const struct algo *a);
const struct algo *algo_at(size_t i); /* NULL past the last */
const struct tc_role *algo_tc_role(const struct algo *a, const char *role);
/* The algorithm with TC role @role (role names are unique in the registry). */
const struct algo *algo_of_tc_role(const char *role);
/* The algorithm whose own command is @cmd ("task"), NULL if none. */
const struct algo *algo_of_cmd(const char *cmd);
const struct tunable *algo_tunable(const struct algo *a, const char *name);

/* Parse @text for @t into @out; on error print one line and return < 0. */
int tunable_parse(const struct tunable *t, const char *text, uint64_t *out);
/* Format @v for display with its unit (buffer of >= 32 bytes). */
const char *tunable_format(const struct tunable *t, uint64_t v, char *buf, size_t len);

#endif
