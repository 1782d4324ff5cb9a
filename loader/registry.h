/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The algorithms ccsuite ships.  Each entry names the BPF object (embedded
 * through its skeleton), the tunables ccload accepts for it, and the names
 * of its own stats slots.  A tunable is a `const volatile` variable of the
 * same name in the object's .rodata; its default is the value compiled
 * there, so the BPF source stays the one place defaults are written.
 */
#ifndef CCLOAD_REGISTRY_H
#define CCLOAD_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

enum tunable_kind {
	TUN_UINT,	/* plain integer */
	TUN_BOOL,	/* 0/1, true/false, on/off */
	TUN_SIZE,	/* bytes, tc units */
	TUN_RATE,	/* bits/s, tc units */
	TUN_TIME,	/* nanoseconds, tc units */
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

struct algo {
	const char *name;		/* kernel CC name, <= 15 chars */
	const char *summary;
	const void *(*elf_bytes)(size_t *sz);
	/* the object built with -DCCS_PRE_6_10, for kernels whose cong_control
	 * takes (sk, rs); NULL when one object serves every kernel */
	const void *(*elf_bytes_pre_6_10)(size_t *sz);
	const struct tunable *tunables;
	size_t n_tunables;
	const struct stat_desc *stats;	/* slots from CCS_STAT_ALGO on */
	size_t n_stats;
};

extern const struct algo *const algos[];
extern const size_t n_algos;

/* Names of the common slots (bpf/lib/stats.h). */
extern const struct stat_desc common_stats[];
extern const size_t n_common_stats;

const struct algo *algo_find(const char *name);
const struct tunable *algo_tunable(const struct algo *a, const char *name);

/* Parse @text for @t into @out; on error print one line and return < 0. */
int tunable_parse(const struct tunable *t, const char *text, uint64_t *out);
/* Format @v for display with its unit (buffer of >= 32 bytes). */
const char *tunable_format(const struct tunable *t, uint64_t v, char *buf, size_t len);

#endif
