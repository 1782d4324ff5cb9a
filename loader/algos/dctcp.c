// SPDX-License-Identifier: GPL-2.0
/* bpf_dctcp's registry entry (registry.h). */
#include "registry.h"
#include "util.h"
#include "dctcp.h"
#include "dctcp.skel.h"
#include "dctcp.pre610.skel.h"

DCTCP_TUNABLES(TUNABLE_CHECK)
DCTCP_ONLY_TUNABLES(TUNABLE_CHECK)
static const struct tunable dctcp_tunables[] = { CCS_COMMON_TUNABLES(TUNABLE_DESC) DCTCP_TUNABLES(
	TUNABLE_DESC) DCTCP_ONLY_TUNABLES(TUNABLE_DESC) };
static const struct stat_desc dctcp_stats[] = { DCTCP_STATS(STAT_DESC, DCTCP) };
_Static_assert(ARRAY_SIZE(dctcp_stats) == DCTCP_STAT_MAX - CCS_STAT_ALGO, "name every dctcp stat");
_Static_assert(DCTCP_STAT_MAX <= CCS_STAT_MAX, "bpf_dctcp has more stats than slots");

const struct algo algo_dctcp = {
	.name = "bpf_dctcp",
	.summary = "DCTCP (RFC 8257): ECN-fraction window reduction",
	.elf_bytes = dctcp_bpf__elf_bytes,
	.elf_bytes_pre_6_10 = dctcp_pre610_bpf__elf_bytes,
	.tunables = dctcp_tunables,
	.n_tunables = ARRAY_SIZE(dctcp_tunables),
	.stats = dctcp_stats,
	.n_stats = ARRAY_SIZE(dctcp_stats),
};
