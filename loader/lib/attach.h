/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attaching an algorithm is: open its object, write tunables into
 * .rodata, load (the verifier runs here), then - only once everything that
 * can be checked has been checked - replace any registration of the same
 * name, register the struct_ops map, pin the maps, attach the cgroup
 * programs and the TC roles named, and leave it all in the kernel.  A
 * failure before registration changes nothing; a failure after it undoes
 * what was done.  Detaching removes all of it.
 */
#ifndef CCLOAD_ATTACH_H
#define CCLOAD_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "registry.h"
#include "tcrole.h"

struct tunable_set {
	const struct tunable *t;
	uint64_t v;
};

struct attach_opts {
	const struct algo *algo; /* a registry entry, or NULL and: */
	const char *objfile;	 /* a struct_ops object of the user's */
	const struct tunable_set *sets;
	size_t n_sets;
	const struct tc_place *tc; /* TC roles to attach, and where */
	size_t n_tc;
	bool as_default;     /* net.ipv4.tcp_congestion_control */
	bool non_restricted; /* tcp_allowed_congestion_control */
};

/* Root, BTF, bpffs and the host lock first; 0, or < 0 with a message. */
int attach_env_check(void);

int algo_attach(const struct attach_opts *o);
/* 0; -ENOENT when @cc is not registered; < 0 on other failures. */
int algo_detach(const char *cc);
/* Every CC ccload attached; returns how many, or < 0. */
int algo_detach_all(void);
/* A suite algorithm, or a CC whose pins ccload made (attach --obj). */
bool attached_by_ccload(const char *cc);

#endif
