/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel has registered: struct_ops maps of type
 * tcp_congestion_ops, found by id (a registration can outlive its pins and
 * the process that made it), read through the kernel's own BTF layout of
 * the map value.
 */
#ifndef CCLOAD_KCC_H
#define CCLOAD_KCC_H

#include <stdbool.h>
#include <stdint.h>

struct kcc {
	uint32_t map_id;
	char name[16]; /* tcp_congestion_ops.name */
	bool in_use;   /* BPF_STRUCT_OPS_STATE_INUSE: registered */
};

/* Call @fn for every tcp_congestion_ops struct_ops map; stop when it
 * returns non-zero and return that value. */
int kcc_for_each(int (*fn)(const struct kcc *k, void *ctx), void *ctx);

/* Unregister every registered map named @name; returns how many, or < 0. */
int kcc_unregister(const char *name);

/* The struct_ops map id of @name's registration; 0 when there is none. */
uint32_t kcc_registered_id(const char *name);

/* Is @name a registered CC (the kernel's available list)? */
bool cc_registered(const char *name);

#endif
