/* SPDX-License-Identifier: GPL-2.0 */
/* Reading the per-CPU stats map every algorithm keeps (bpf/lib/stats.h). */
#ifndef CCLOAD_STATS_MAP_H
#define CCLOAD_STATS_MAP_H

#include "../../bpf/lib/stats.h"
#include "registry.h"

/* Sum counters and take the maximum of gauges over CPUs; @a may be NULL
 * (an object ccsuite does not ship: common slots only). */
int stats_read_fd(int map_fd, const struct algo *a, struct ccs_stats *out);
int stats_read_pinned(const char *cc_name, struct ccs_stats *out);

/* Name and kind of slot @i for @a; NULL when the slot is unused. */
const struct stat_desc *stats_desc(const struct algo *a, unsigned int i);

#endif
