// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "parse.h"
#include "log.h"
#include "stats_map.h"
#include "util.h"
#include "dctcp.h"
#include "dctcp.skel.h"
#include "dctcp.pre610.skel.h"
#include "bbr.h"
#include "bbr.skel.h"
#include "bbr.pre610.skel.h"
#include "tldct.h"
#include "tldct.skel.h"
#include "tldct.pre610.skel.h"
#include "flashpass.h"
#include "flashpass.skel.h"
#include "flashpass.pre610.skel.h"
#include "lia.h"
#include "lia.skel.h"
#include "lia.pre610.skel.h"
#include "ppqd.h"
#include "ppqd.skel.h"
#include "ppqd.pre610.skel.h"

#define COMMON_STAT_DESC(P, id, name, kind, help) [P##_STAT_##id] = { #name, STAT_##kind, help },

const struct stat_desc common_stats[] = { CCS_COMMON_STATS(COMMON_STAT_DESC, CCS) };
const size_t n_common_stats = ARRAY_SIZE(common_stats);
_Static_assert(ARRAY_SIZE(common_stats) == CCS_STAT_COMMON_MAX, "name every common stat");

CCS_COMMON_TUNABLES(TUNABLE_CHECK)

/* ---- bpf_dctcp ---- */

DCTCP_TUNABLES(TUNABLE_CHECK)
DCTCP_ONLY_TUNABLES(TUNABLE_CHECK)
static const struct tunable dctcp_tunables[] = { CCS_COMMON_TUNABLES(TUNABLE_DESC) DCTCP_TUNABLES(
	TUNABLE_DESC) DCTCP_ONLY_TUNABLES(TUNABLE_DESC) };
static const struct stat_desc dctcp_stats[] = { DCTCP_STATS(STAT_DESC, DCTCP) };
_Static_assert(ARRAY_SIZE(dctcp_stats) == DCTCP_STAT_MAX - CCS_STAT_ALGO, "name every dctcp stat");

static const struct algo algo_dctcp = {
	.name = "bpf_dctcp",
	.summary = "DCTCP (RFC 8257): ECN-fraction window reduction",
	.elf_bytes = dctcp_bpf__elf_bytes,
	.elf_bytes_pre_6_10 = dctcp_pre610_bpf__elf_bytes,
	.tunables = dctcp_tunables,
	.n_tunables = ARRAY_SIZE(dctcp_tunables),
	.stats = dctcp_stats,
	.n_stats = ARRAY_SIZE(dctcp_stats),
};

/* ---- bpf_bbr ---- */

BBR_TUNABLES(TUNABLE_CHECK)
static const struct tunable bbr_tunables[] = { CCS_COMMON_TUNABLES(TUNABLE_DESC)
						       BBR_TUNABLES(TUNABLE_DESC) };
static const struct stat_desc bbr_stats[] = { BBR_STATS(STAT_DESC, BBR) };
_Static_assert(ARRAY_SIZE(bbr_stats) == BBR_STAT_MAX - CCS_STAT_ALGO, "name every bbr stat");

static const struct algo algo_bbr = {
	.name = "bpf_bbr",
	.summary = "BBR v1 as in Linux: bw and min_rtt model, pacing",
	.elf_bytes = bbr_bpf__elf_bytes,
	.elf_bytes_pre_6_10 = bbr_pre610_bpf__elf_bytes,
	.tunables = bbr_tunables,
	.n_tunables = ARRAY_SIZE(bbr_tunables),
	.stats = bbr_stats,
	.n_stats = ARRAY_SIZE(bbr_stats),
};

/* ---- bpf_tldct ---- */

TLDCT_TUNABLES(TUNABLE_CHECK)
static const struct tunable tldct_tunables[] = { CCS_COMMON_TUNABLES(TUNABLE_DESC) DCTCP_TUNABLES(
	TUNABLE_DESC) TLDCT_TUNABLES(TUNABLE_DESC) };
static const struct stat_desc tldct_stats[] = { DCTCP_STATS(STAT_DESC, DCTCP)
							TLDCT_STATS(STAT_DESC, TLDCT) };
_Static_assert(ARRAY_SIZE(tldct_stats) == TLDCT_STAT_MAX - CCS_STAT_ALGO, "name every tldct stat");
_Static_assert(TLDCT_STAT_MAX <= CCS_STAT_MAX, "bpf_tldct has more stats than slots");

static const struct algo algo_tldct = {
	.name = "bpf_tldct",
	.summary = "task-aware DCTCP: task-size and tail factors, receiver feedback in TCP options",
	.elf_bytes = tldct_bpf__elf_bytes,
	.elf_bytes_pre_6_10 = tldct_pre610_bpf__elf_bytes,
	.tunables = tldct_tunables,
	.n_tunables = ARRAY_SIZE(tldct_tunables),
	.stats = tldct_stats,
	.n_stats = ARRAY_SIZE(tldct_stats),
	.cgroup_progs = (const char *const[]){ "tldct_sockops", "tldct_setsockopt", NULL },
};

/* ---- bpf_flashpass ---- */

FP_TUNABLES(TUNABLE_CHECK)
static const struct tunable fp_tunables[] = { CCS_COMMON_TUNABLES(TUNABLE_DESC)
						      FP_TUNABLES(TUNABLE_DESC) };
static const struct stat_desc fp_stats[] = { FP_STATS(STAT_DESC, FP) };
_Static_assert(ARRAY_SIZE(fp_stats) == FP_STAT_MAX - CCS_STAT_ALGO, "name every flashpass stat");
_Static_assert(FP_STAT_MAX <= CCS_STAT_MAX, "bpf_flashpass has more stats than slots");

static const struct tc_role fp_roles[] = {
	{ "flashpass-sender", "fp_sender_out", TC_EGRESS,
	  "sender: tags data scheduled/unscheduled, spends credits, holds data to its credit's time" },
	{ "flashpass-credits", "fp_sender_in", TC_INGRESS,
	  "sender: takes credits into the flows' ledgers and drops them" },
	{ "flashpass-receiver", "fp_receiver", TC_INGRESS,
	  "receiver: returns each emulation packet as a credit" },
};

static const struct algo algo_flashpass = {
	.name = "bpf_flashpass",
	.summary = "FlashPass: proactive credits from emulation packets, for shallow buffers",
	.elf_bytes = flashpass_bpf__elf_bytes,
	.elf_bytes_pre_6_10 = flashpass_pre610_bpf__elf_bytes,
	.tunables = fp_tunables,
	.n_tunables = ARRAY_SIZE(fp_tunables),
	.stats = fp_stats,
	.n_stats = ARRAY_SIZE(fp_stats),
	.tc_roles = fp_roles,
	.n_tc_roles = ARRAY_SIZE(fp_roles),
	.needs_process = true,
};

/* ---- bpf_lia, bpf_ppqd: coupled MPTCP (bpf/lib/coupled.h) ---- */

CPL_TUNABLES(TUNABLE_CHECK)
static const struct tunable lia_tunables[] = { CCS_COMMON_TUNABLES(TUNABLE_DESC)
						       CPL_TUNABLES(TUNABLE_DESC) };
static const struct map_size cpl_map_sizes[] = { { "cpl_conns", "max_conns" }, { NULL, NULL } };
static const struct stat_desc lia_stats[] = { LIA_STATS(STAT_DESC, CPL) };
_Static_assert(ARRAY_SIZE(lia_stats) == LIA_STAT_MAX - CCS_STAT_ALGO, "name every lia stat");
_Static_assert(LIA_STAT_MAX <= CCS_STAT_MAX, "bpf_lia has more stats than slots");

static const struct algo algo_lia = {
	.name = "bpf_lia",
	.summary = "RFC 6356 LIA: MPTCP subflows coupled per connection (a TCP flow: Reno)",
	.elf_bytes = lia_bpf__elf_bytes,
	.elf_bytes_pre_6_10 = lia_pre610_bpf__elf_bytes,
	.tunables = lia_tunables,
	.n_tunables = ARRAY_SIZE(lia_tunables),
	.stats = lia_stats,
	.n_stats = ARRAY_SIZE(lia_stats),
	.cgroup_progs = (const char *const[]){ "lia_sockops", NULL },
	.map_sizes = cpl_map_sizes,
};

PPQD_TUNABLES(TUNABLE_CHECK)
static const struct tunable ppqd_tunables[] = { CCS_COMMON_TUNABLES(TUNABLE_DESC) CPL_TUNABLES(
	TUNABLE_DESC) PPQD_TUNABLES(TUNABLE_DESC) };
static const struct stat_desc ppqd_stats[] = { CPL_STATS(STAT_DESC, CPL)
						       PPQD_OWN_STATS(STAT_DESC, PPQD) };
_Static_assert(ARRAY_SIZE(ppqd_stats) == PPQD_STAT_MAX - CCS_STAT_ALGO, "name every ppqd stat");
_Static_assert(PPQD_STAT_MAX <= CCS_STAT_MAX, "bpf_ppqd has more stats than slots");

static const struct algo algo_ppqd = {
	.name = "bpf_ppqd",
	.summary = "PPQD: smoothed-RTT queueing delay against its mean, LIA-coupled growth",
	.elf_bytes = ppqd_bpf__elf_bytes,
	.elf_bytes_pre_6_10 = ppqd_pre610_bpf__elf_bytes,
	.tunables = ppqd_tunables,
	.n_tunables = ARRAY_SIZE(ppqd_tunables),
	.stats = ppqd_stats,
	.n_stats = ARRAY_SIZE(ppqd_stats),
	.cgroup_progs = (const char *const[]){ "ppqd_sockops", NULL },
	.map_sizes = cpl_map_sizes,
	.iters = (const struct iter_prog[]){ { "ppqd_flows", NULL }, { NULL, NULL } },
};

#define MAX_ALGOS 16

static const struct algo *algos[MAX_ALGOS] = { &algo_dctcp,	&algo_bbr, &algo_tldct,
					       &algo_flashpass, &algo_lia, &algo_ppqd };
static size_t n_algos = 6;

const struct algo *algo_at(size_t i)
{
	return i < n_algos ? algos[i] : NULL;
}

const struct algo *algo_find(const char *name)
{
	size_t i;

	for (i = 0; i < n_algos; i++)
		if (!strcmp(algos[i]->name, name))
			return algos[i];
	return NULL;
}

int algo_add(const struct algo *a)
{
	if (algo_find(a->name))
		return -EEXIST;
	if (n_algos == MAX_ALGOS)
		return -ENOSPC;
	algos[n_algos++] = a;
	return 0;
}

const struct algo *algo_of_tc_role(const char *role)
{
	size_t i;

	for (i = 0; i < n_algos; i++)
		if (algo_tc_role(algos[i], role))
			return algos[i];
	return NULL;
}

const struct tc_role *algo_tc_role(const struct algo *a, const char *role)
{
	size_t i;

	for (i = 0; i < a->n_tc_roles; i++)
		if (!strcmp(a->tc_roles[i].role, role))
			return &a->tc_roles[i];
	return NULL;
}

const struct tunable *algo_tunable(const struct algo *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->n_tunables; i++)
		if (!strcmp(a->tunables[i].name, name))
			return &a->tunables[i];
	return NULL;
}

int tunable_parse(const struct tunable *t, const char *text, uint64_t *out)
{
	static const char *const what[] = {
		[TUN_UINT] = "an unsigned integer",
		[TUN_BOOL] = "a boolean (0/1, true/false, on/off)",
		[TUN_SIZE] = "a size (e.g. 30kb)",
		[TUN_RATE] = "a rate (e.g. 100mbit)",
		[TUN_TIME] = "a time (e.g. 10ms)",
	};
	uint64_t v;
	int err;

	switch (t->kind) {
	case TUN_BOOL: err = parse_bool(text, &v); break;
	case TUN_SIZE: err = parse_size(text, &v); break;
	case TUN_RATE: err = parse_rate(text, &v); break;
	case TUN_TIME: err = parse_time(text, &v); break;
	default: err = parse_u64(text, &v); break;
	}
	if (err) {
		pr_warn("tunable %s: '%s' is not %s\n", t->name, text, what[t->kind]);
		return -EINVAL;
	}
	if (v < t->min || v > t->max) {
		char lo[32], hi[32];

		pr_warn("tunable %s: %s is out of range [%s, %s]\n", t->name, text,
			tunable_format(t, t->min, lo, sizeof(lo)),
			tunable_format(t, t->max, hi, sizeof(hi)));
		return -ERANGE;
	}
	*out = v;
	return 0;
}

const char *tunable_format(const struct tunable *t, uint64_t v, char *buf, size_t len)
{
	switch (t->kind) {
	case TUN_SIZE: snprintf(buf, len, "%" PRIu64 "b", v); break;
	case TUN_RATE: snprintf(buf, len, "%" PRIu64 "bit", v); break;
	case TUN_TIME: snprintf(buf, len, "%" PRIu64 "ns", v); break;
	default: snprintf(buf, len, "%" PRIu64, v); break;
	}
	return buf;
}
