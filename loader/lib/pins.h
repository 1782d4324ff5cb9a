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

void pin_dir(const char *cc, char *buf, size_t len);
int pin_all(struct bpf_object *obj, const char *dir);
/* Before load: every map of @obj that has a pin in @dir uses it. */
int pin_reuse(struct bpf_object *obj, const char *dir);

#endif
