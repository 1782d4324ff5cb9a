/* SPDX-License-Identifier: GPL-2.0 */
/* bpf_lia's and bpf_ppqd's common parts (loader/algos/coupled.c). */
#ifndef CCLOAD_ALGOS_COUPLED_H
#define CCLOAD_ALGOS_COUPLED_H

#include "cli.h"
#include "netns.h"
#include "registry.h"

#define CPL_MAX_NETNS 64

/* cpl_conns's size is the max_conns tunable */
extern const struct map_size cpl_map_sizes[];

/* ccload lia|ppqd's options (-j; -n, which only ppqd flows takes) */
struct cpl_args {
	int json;
	const char *netns[CPL_MAX_NETNS];
	size_t n_netns;
};
int cpl_opt(void *st, int key, char *arg);

/* ccload <lia|ppqd> conns: @algo's coupled connections; an exit status. */
int cpl_conns(const char *algo, int json);

#endif
