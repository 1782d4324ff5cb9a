// SPDX-License-Identifier: GPL-2.0
/* ccload tc: an attached algorithm's TC roles on devices (lib/tcrole.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "attach.h"
#include "cmds.h"
#include "log.h"
#include "opts.h"
#include "registry.h"
#include "tcrole.h"
#include "util.h"

enum { TC_ATTACH, TC_DETACH, TC_LIST };

static const struct cli tc_cli = {
	.cmd = "tc",
	.subs = (const char *const[]){ "attach", "detach", "list", NULL },
	.synopsis = "ccload tc attach <dev> <role> [-n NETNS]\n"
		    "       ccload tc detach <dev> <role> [-n NETNS]\n"
		    "       ccload tc list",
	.about = "An algorithm's TC programs (roles, ccload list shows them) on a device, sharing\n"
		 "the maps of the algorithm's attach (which must come first); detach of the\n"
		 "algorithm removes them too.  The test network's switch is ccload switch.",
	.opts =
		(const struct cli_opt[]){
			{ "netns", 'n', "NAME", SUB(TC_ATTACH) | SUB(TC_DETACH),
			  "the device is in network namespace NAME" },
			{ 0 },
		},
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

int cmd_tc(int argc, char **argv)
{
	struct tc_place p = {};
	const struct algo *a;
	int c, sub, err;
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cli_usage(&tc_cli, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	sub = cli_sub(&tc_cli, argv[1]);
	if (sub < 0)
		return 2;
	argc--;
	argv++;
	optind = 0;
	while ((c = cli_getopt(&tc_cli, sub, argc, argv)) != -1) {
		switch (c) {
		case 'n': p.netns = optarg; break;
		case 'h': return 0;
		default: return 2;
		}
	}
	if (sub == TC_LIST) {
		if (optind != argc) {
			cli_usage(&tc_cli, stderr);
			return 2;
		}
		if (need_root())
			return 1;
		for (i = 0; (a = algo_at(i)); i++)
			tc_role_for_each(a, print_rec, (void *)a);
		return 0;
	}
	if (argc - optind != 2) {
		cli_usage(&tc_cli, stderr);
		return 2;
	}
	p.dev = argv[optind];
	p.role = argv[optind + 1];
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
