/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An algorithm's TC programs (registry: struct tc_role) on devices.  The
 * filter keeps the program, and through it the algorithm's maps; each
 * attachment is recorded in RUN_DIR/tc/<algo>/ with the program's id, so
 * detach removes exactly the filters ccload put there, and only while
 * they still hold its program.
 */
#ifndef CCLOAD_TCROLE_H
#define CCLOAD_TCROLE_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include <bpf/libbpf.h>

#include "registry.h"

struct tc_place {
	const char *role;
	const char *dev;
	const char *netns; /* NULL: ccload's own */
};

struct tc_rec {
	char role[32];
	char dev[IF_NAMESIZE];
	char netns[64]; /* "" for ccload's own */
	uint32_t prog_id;
	bool live; /* the filter still holds that program */
};

/* "ROLE=DEV" or "ROLE=DEV@NETNS" (modifies @text); checks the names. */
int tc_place_parse(const struct algo *a, char *text, struct tc_place *p);
/* Check @p's names against @a (a role it has, names that can be recorded). */
int tc_place_check(const struct algo *a, const struct tc_place *p);

/* Attach @p's role from @obj, loaded; or with @obj NULL, from the
 * algorithm's object loaded again on the maps pinned by its attach. */
int tc_role_attach(const struct algo *a, struct bpf_object *obj, const struct tc_place *p);
/* -ENOENT when ccload did not put that role there. */
int tc_role_detach(const struct algo *a, const struct tc_place *p);
/* Every recorded attachment of @a; returns how many were removed. */
int tc_role_detach_all(const struct algo *a);
int tc_role_for_each(const struct algo *a, int (*fn)(const struct tc_rec *r, void *ctx), void *ctx);

#endif
