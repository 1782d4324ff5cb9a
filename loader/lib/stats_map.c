// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "stats_map.h"
#include "pins.h"

const struct stat_desc *stats_desc(const struct algo *a, unsigned int i)
{
	if (i < n_common_stats)
		return &common_stats[i];
	if (a && i >= CCS_STAT_ALGO && i - CCS_STAT_ALGO < a->n_stats)
		return &a->stats[i - CCS_STAT_ALGO];
	return NULL;
}

int stats_read_fd(int fd, const struct algo *a, struct ccs_stats *out)
{
	int ncpu = libbpf_num_possible_cpus();
	struct ccs_stats *percpu;
	uint32_t zero = 0;
	int c, i, err = 0;

	if (ncpu <= 0)
		return -EINVAL;
	percpu = calloc((size_t)ncpu, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &zero, percpu)) {
		err = -errno;
		goto out;
	}
	memset(out, 0, sizeof(*out));
	for (i = 0; i < CCS_STAT_MAX; i++) {
		const struct stat_desc *d = stats_desc(a, (unsigned int)i);
		int gauge = d && d->kind == STAT_GAUGE;

		for (c = 0; c < ncpu; c++) {
			uint64_t v = percpu[c].v[i];

			if (gauge)
				out->v[i] = v > out->v[i] ? v : out->v[i];
			else
				out->v[i] += v;
		}
	}
out:
	free(percpu);
	return err;
}

int stats_read_pinned(const char *cc_name, struct ccs_stats *out)
{
	int fd = pin_open(cc_name, PIN_STATS), err;

	if (fd < 0)
		return -errno;
	err = stats_read_fd(fd, algo_find(cc_name), out);
	close(fd);
	return err;
}
