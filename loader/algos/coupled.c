// SPDX-License-Identifier: GPL-2.0
/*
 * What bpf_lia's and bpf_ppqd's registry entries share (coupled.h): the
 * map a tunable sizes, --json, and their connections, live:
 *   ccload lia conns [--json]     bpf_lia's connections: subflows' windows
 *   ccload ppqd conns [--json]    and RTTs, w_total, alpha (bpf/lib/coupled.h)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "coupled.h"
#include "log.h"
#include "pins.h"
#include "lia.h"

const struct map_size cpl_map_sizes[] = { { "cpl_conns", "max_conns" }, { NULL, NULL } };

int cpl_opt(void *st, int key, char *arg)
{
	struct cpl_args *a = st;

	if (key == 'j') {
		a->json = 1;
		return 0;
	}
	if (a->n_netns == CPL_MAX_NETNS) { /* 'n': only ppqd flows takes it */
		pr_warn("ppqd flows: at most %d namespaces (-n)\n", CPL_MAX_NETNS);
		return 2;
	}
	if (!netns_exists(arg)) {
		pr_warn("ppqd flows: no network namespace '%s'\n", arg);
		return 2;
	}
	a->netns[a->n_netns++] = arg;
	return 0;
}

static int open_pin(const char *algo, const char *name)
{
	int fd = pin_open(algo, name);

	if (fd < 0)
		pr_warn("%s is not attached (no %s pinned)\n", algo, name);
	return fd;
}

int cpl_conns(const char *algo, int json)
{
	int fd = open_pin(algo, "cpl_conns"), n = 0;
	struct cpl_key k, next, *prev = NULL;
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info), steps = 0;
	struct cpl_conn c;

	if (fd < 0)
		return 1;
	/* a walk restarts from the first key when the one it stands on is
	 * deleted: at most the table's size of steps under churn */
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || !info.max_entries)
		info.max_entries = CPL_MAX_CONNS;
	if (!json)
		printf("%-18s %-10s %4s %6s %8s  %s\n", "netns", "token", "subs", "w_tot", "alpha",
		       "subflows (cwnd/rtt_us)");
	while (steps++ < info.max_entries && !bpf_map_get_next_key(fd, prev, &next)) {
		const char *sep = "";
		unsigned i;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &c))
			continue;
		if (json)
			printf("{\"netns\":%" PRIu64 ",\"token\":\"%08x\",\"members\":%u,"
			       "\"w_total\":%u,\"alpha\":%.4f,\"subflows\":[",
			       (uint64_t)k.netns, k.token, ccs_group_slots_used(c.g.members),
			       c.w_total, c.alpha / 1024.0);
		else
			printf("%-18" PRIu64 " %08x   %4u %6u %8.4f  ", (uint64_t)k.netns, k.token,
			       ccs_group_slots_used(c.g.members), c.w_total, c.alpha / 1024.0);
		for (i = 0; i < CPL_MAX_SUBFLOWS; i++) {
			if (!(c.g.members & (1U << i)))
				continue;
			if (json)
				printf("%s{\"slot\":%u,\"cwnd\":%u,\"rtt_us\":%u}", sep, i,
				       c.sub[i].cwnd, c.sub[i].rtt_us);
			else
				printf("%s%u/%u", sep, c.sub[i].cwnd, c.sub[i].rtt_us);
			sep = json ? "," : " ";
		}
		printf(json ? "]}\n" : "\n");
		n++;
	}
	if (!json && !n)
		printf("(no connections)\n");
	close(fd);
	return 0;
}
