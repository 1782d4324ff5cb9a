/* SPDX-License-Identifier: GPL-2.0 */
/* Opening an algorithm's BPF object and its tunables in .rodata. */
#ifndef CCLOAD_OBJ_H
#define CCLOAD_OBJ_H

#include <stdint.h>
#include <bpf/libbpf.h>

#include "registry.h"

struct bpf_object *obj_open_algo(const struct algo *a);
struct bpf_object *obj_open_file(const char *path);

struct bpf_map *obj_rodata(struct bpf_object *obj);
struct bpf_map *obj_struct_ops(struct bpf_object *obj);

/* Read/write variable @var of .rodata in a buffer laid out as the section
 * (the map's initial value before load, or a copy read from the kernel). */
int rodata_get(struct bpf_object *obj, const void *data, const char *var, uint64_t *v);
int rodata_set(struct bpf_object *obj, void *data, const char *var, uint64_t v);
/* Fill @var (any size) with random bytes from getrandom(2); 0 when the
 * object has no such variable. */
int rodata_set_random(struct bpf_object *obj, void *data, const char *var);

/* Size every LRU hash of @obj so that its declared max_entries live entries
 * fit before the first eviction (obj.c says why they would not). */
int obj_lru_headroom(struct bpf_object *obj, const char *what);

/* Load with a clear message (and the verifier log's tail) on failure. */
int obj_load(struct bpf_object *obj, const char *what);

/* @a's tunables (a->n_tunables each, at most ALGO_TUNABLES_MAX): @cur as
 * the registration pinned them (the defaults when it is not attached),
 * @def as compiled. */
#define ALGO_TUNABLES_MAX 64

int algo_tunables_read(const struct algo *a, uint64_t *cur, uint64_t *def);

#endif
