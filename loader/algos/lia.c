// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_lia's registry entry (registry.h) and its own command:
 *   ccload lia conns [--json]     its connections: subflows' windows and
 *                                 RTTs, w_total, alpha (bpf/lib/coupled.h)
 */
#include "cli.h"
#include "coupled.h"
#include "registry.h"
#include "util.h"
#include "lia.h"
#include "lia.skel.h"
#include "lia.pre610.skel.h"

#define LIA_NAME "bpf_lia"

static int lia_run(void *st, int sub, int argc, char **argv)
{
	(void)sub;
	(void)argc;
	(void)argv;
	if (need_root())
		return 1;
	return cpl_conns(LIA_NAME, ((struct cpl_args *)st)->json);
}

static const struct cli lia_cli = {
	.cmd = "lia",
	.summary = "bpf_lia's coupled MPTCP connections (conns)",
	.subs = (const char *const[]){ "conns", NULL },
	.synopsis = "ccload lia conns [--json]",
	.about = "conns: bpf_lia's coupled connections, each subflow's window and RTT,\n"
		 "w_total and alpha as the last subflow to move computed them.",
	.opts =
		(const struct cli_opt[]){
			{ "json", 'j', NULL, SUB_ALL, "as JSON, one object per line" },
			{ 0 },
		},
	.state_size = sizeof(struct cpl_args),
	.opt = cpl_opt,
	.run = lia_run,
};

/* ---- the registry entry ---- */

CPL_TUNABLES(TUNABLE_CHECK)
static const struct tunable lia_tunables[] = { CCS_COMMON_TUNABLES(TUNABLE_DESC)
						       CPL_TUNABLES(TUNABLE_DESC) };
static const struct stat_desc lia_stats[] = { LIA_STATS(STAT_DESC, CPL) };
_Static_assert(ARRAY_SIZE(lia_stats) == LIA_STAT_MAX - CCS_STAT_ALGO, "name every lia stat");
_Static_assert(LIA_STAT_MAX <= CCS_STAT_MAX, "bpf_lia has more stats than slots");

const struct algo algo_lia = {
	.name = LIA_NAME,
	.summary = "RFC 6356 LIA: MPTCP subflows coupled per connection (a TCP flow: Reno)",
	.elf_bytes = lia_bpf__elf_bytes,
	.elf_bytes_pre_6_10 = lia_pre610_bpf__elf_bytes,
	.tunables = lia_tunables,
	.n_tunables = ARRAY_SIZE(lia_tunables),
	.stats = lia_stats,
	.n_stats = ARRAY_SIZE(lia_stats),
	.cgroup_progs = (const char *const[]){ "lia_sockops", NULL },
	.map_sizes = cpl_map_sizes,
	.cmd = &lia_cli,
};
