// SPDX-License-Identifier: GPL-2.0
/* ccload tc: an attached algorithm's TC roles on devices (lib/tcrole.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "attach.h"
#include "cmds.h"
#include "log.h"
#include "registry.h"
#include "tcrole.h"
#include "util.h"

enum { TC_ATTACH, TC_DETACH, TC_LIST };

static int tc_opt(void *st, int key, char *arg);
static int tc_run(void *st, int sub, int argc, char **argv);

const struct cli tc_cli = {
	.cmd = "tc",
	.summary = "an attached algorithm's TC programs on devices",
	.subs = (const char *const[]){ "attach", "detach", "list", NULL },
	.synopsis = "ccload tc attach <dev> <role> [-n NETNS]\n"
		    "       ccload tc detach <dev> <role> [-n NETNS]\n"
		    "       ccload tc list",
	.about = "An algorithm's TC programs (roles, ccload list shows them) on a device, sharing\n"
		 "the maps of the algorithm's attach (which must come first); detach of the\n"
		 "algorithm removes them too.  The test network's switch is ccload switch.",
	.opts =
		(const struct cli_opt[]){
			{ "netns", 'n', ARG_NETNS, SUB(TC_ATTACH) | SUB(TC_DETACH),
			  "the device is in network namespace NAME" },
			{ 0 },
		},
	.args =
		(const struct cli_args[]){
			[TC_ATTACH] = { 2, 2, { ARG_DEV, ARG_ROLE } },
			[TC_DETACH] = { 2, 2, { ARG_DEV, ARG_ROLE } },
			[TC_LIST] = { 0, 0, { NULL } },
		},
	.state_size = sizeof(const char *), /* -n */
	.opt = tc_opt,
	.run = tc_run,
};

static int print_rec(const struct tc_rec *r, void *ctx)
{
	const struct algo *a = ctx;
	const struct tc_role *role = algo_tc_role(a, r->role);

	printf("%-12s %-20s %-16s %-16s %-8s prog id %u%s\n", a->name, r->role, r->dev,
	       r->netns[0] ? r->netns : "-", role && role->dir == TC_INGRESS ? "ingress" : "egress",
	       r->prog_id, r->live ? "" : " (gone: the filter holds another program or none)");
	return 0;
}

static int tc_opt(void *st, int key, char *arg)
{
	(void)key; /* its one option, -n */
	*(const char **)st = arg;
	return 0;
}

static int tc_run(void *st, int sub, int argc, char **argv)
{
	struct tc_place p = { .netns = *(const char **)st };
	const struct algo *a;
	size_t i;
	int err;

	(void)argc;
	if (sub == TC_LIST) {
		if (need_root())
			return 1;
		for (i = 0; (a = algo_at(i)); i++)
			tc_role_for_each(a, print_rec, (void *)a);
		return 0;
	}
	p.dev = argv[0];
	p.role = argv[1];
	a = algo_of_tc_role(p.role);
	if (!a) {
		pr_warn("no algorithm has a TC role '%s' (ccload list shows them)\n", p.role);
		return 2;
	}
	if (tc_place_check(a, &p))
		return 2;
	if (attach_env_check())
		return 1;
	if (sub == TC_ATTACH)
		return tc_role_attach(a, NULL, &p) ? 1 : 0;
	err = tc_role_detach(a, &p);
	if (err == -ENOENT)
		pr_warn("%s is not attached to %s by ccload\n", p.role, p.dev);
	return err ? 1 : 0;
}
