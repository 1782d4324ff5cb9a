// SPDX-License-Identifier: GPL-2.0
/* bpf_bbr's registry entry (registry.h). */
#include "registry.h"
#include "util.h"
#include "bbr.h"
#include "bbr.skel.h"
#include "bbr.pre610.skel.h"

BBR_TUNABLES(TUNABLE_CHECK)
static const struct tunable bbr_tunables[] = { CCS_COMMON_TUNABLES(TUNABLE_DESC)
						       BBR_TUNABLES(TUNABLE_DESC) };
static const struct stat_desc bbr_stats[] = { BBR_STATS(STAT_DESC, BBR) };
_Static_assert(ARRAY_SIZE(bbr_stats) == BBR_STAT_MAX - CCS_STAT_ALGO, "name every bbr stat");
_Static_assert(BBR_STAT_MAX <= CCS_STAT_MAX, "bpf_bbr has more stats than slots");

const struct algo algo_bbr = {
	.name = "bpf_bbr",
	.summary = "BBR v1 as in Linux: bw and min_rtt model, pacing",
	.elf_bytes = bbr_bpf__elf_bytes,
	.elf_bytes_pre_6_10 = bbr_pre610_bpf__elf_bytes,
	.tunables = bbr_tunables,
	.n_tunables = ARRAY_SIZE(bbr_tunables),
	.stats = bbr_stats,
	.n_stats = ARRAY_SIZE(bbr_stats),
};
