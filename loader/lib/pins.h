/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An attached algorithm's maps, pinned in PIN_ROOT/<cc>/: the struct_ops
 * map as "ops" (detach finds it there first), ccs_stats as "stats",
 * .rodata as "rodata" (the tunables it was attached with), and every other
 * map of the object under its own name.  Other programs of the algorithm
 * loaded later (ccload tc attach) reuse these, so they share its state.
 * .bss and .data are not pinned: state shared across programs lives in
 * named maps.
 */
#ifndef CCLOAD_PINS_H
#define CCLOAD_PINS_H

#include <stddef.h>
#include <bpf/libbpf.h>

#define PIN_OPS	   "ops"
#define PIN_STATS  "stats"
#define PIN_RODATA "rodata"

/* PIN_ROOT/<cc>, and PIN_ROOT/<cc>/<name>: a map, or a link of a cgroup or
 * iterator program, by its pin name. */
void pin_dir(const char *cc, char *buf, size_t len);
void pin_path(const char *cc, const char *name, char *buf, size_t len);
/* bpf_obj_get() of pin_path(); < 0 with errno when there is none. */
int pin_open(const char *cc, const char *name);
/* pin_open() of a map whose keys and values are this build's @key_size
 * and @value_size bytes: < 0 with errno, EBADMSG when another build's
 * layout made it. */
int pin_open_map(const char *cc, const char *name, size_t key_size, size_t value_size);
/* The name @m of @obj is pinned under, NULL when it is not pinned. */
const char *pin_name(struct bpf_object *obj, struct bpf_map *m);

int pin_all(struct bpf_object *obj, const char *dir);
/* Before load: every map of @obj that has a pin in @dir uses it. */
int pin_reuse(struct bpf_object *obj, const char *dir);

#endif
