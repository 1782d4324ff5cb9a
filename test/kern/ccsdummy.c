// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_ccsdummy's registry file, as loader/algos/<algo>.c is an in-tree
 * algorithm's: its entry and its own command, which a program that adds
 * the entry (algo_add(), test_algo.c) runs through the registry as
 * ccload runs the suite's:
 *
 *   ccsdummy hello [--step N]   a greeting; N is checked as the step
 *                               tunable (nothing touches the kernel)
 */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "registry.h"
#include "util.h"
#include "ccsdummy.h"
#include "ccsdummy.skel.h"

#define CC "bpf_ccsdummy"

/* --step, 0 when not given */
static int hello_opt(void *st, int key, char *arg)
{
	const struct tunable *t = algo_tunable(algo_find(CC), "step");

	(void)key; /* its one option */
	return t && !tunable_parse(t, arg, st) ? 0 : 2;
}

static int hello_run(void *st, int sub, int argc, char **argv)
{
	uint64_t step = *(uint64_t *)st;

	(void)sub;
	(void)argc;
	(void)argv;
	printf("hello from " CC);
	if (step)
		printf(": its TC role would add %" PRIu64 " to pkts per packet", step);
	printf("\n");
	return 0;
}

static const struct cli dummy_cli = {
	.cmd = "ccsdummy",
	.summary = "test only: bpf_ccsdummy's greeting",
	.subs = (const char *const[]){ "hello", NULL },
	.synopsis = "ccload ccsdummy hello [--step N]",
	.about = "hello: a greeting, from the command of a registry entry.",
	.opts =
		(const struct cli_opt[]){
			{ "step", 's', "N", SUB_ALL, "the step tunable's value to greet with" },
			{ 0 },
		},
	.state_size = sizeof(uint64_t),
	.opt = hello_opt,
	.run = hello_run,
};

DUMMY_TUNABLES(TUNABLE_CHECK)
static const struct tunable dummy_tunables[] = { CCS_COMMON_TUNABLES(TUNABLE_DESC)
							 DUMMY_TUNABLES(TUNABLE_DESC) };
static const struct stat_desc dummy_stats[] = { DUMMY_STATS(STAT_DESC, DUMMY) };
_Static_assert(ARRAY_SIZE(dummy_stats) == DUMMY_STAT_MAX - CCS_STAT_ALGO, "name every dummy stat");
_Static_assert(DUMMY_STAT_MAX <= CCS_STAT_MAX, "bpf_ccsdummy has more stats than slots");
static const struct tc_role dummy_roles[] = {
	{ "ccsdummy-count", "dummy_count", TC_EGRESS, "counts TCP packets out" },
};

const struct algo algo_ccsdummy = {
	.name = CC,
	.summary = "test only: Reno, and a TC role that counts",
	.elf_bytes = ccsdummy_bpf__elf_bytes,
	.tunables = dummy_tunables,
	.n_tunables = ARRAY_SIZE(dummy_tunables),
	.stats = dummy_stats,
	.n_stats = ARRAY_SIZE(dummy_stats),
	.tc_roles = dummy_roles,
	.n_tc_roles = ARRAY_SIZE(dummy_roles),
	.cmd = &dummy_cli,
};
