// SPDX-License-Identifier: GPL-2.0
/*
 * ccload: attach ccsuite's congestion controls and read their stats.
 *
 * The generic commands are the table below; every other command is an
 * algorithm's own (struct algo's cmd, loader/algos/<algo>.c), found in the
 * registry.  Each runs through cli_main() (cli.h).
 */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "log.h"
#include "registry.h"
#include "util.h"
#include "version.h" /* made by the Makefile from debian/changelog */

static const struct cli *const cmds[] = {
	&list_cli, &attach_cli, &detach_cli, &stats_cli, &switch_cli, &tc_cli, &service_cli,
};

static const struct cli *find_cmd(const char *name)
{
	const struct algo *a = algo_of_cmd(name);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(cmds[i]->cmd, name))
			return cmds[i];
	return a ? a->cmd : NULL;
}

static void usage(FILE *f)
{
	const struct algo *a;
	size_t i;

	fprintf(f, "Usage: ccload [-v|-q] <command> [options]   (ccload <command> --help)\n\n");
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(f, "  %-8s %s\n", cmds[i]->cmd, cmds[i]->summary);
	for (i = 0; (a = algo_at(i)); i++)
		if (a->cmd)
			fprintf(f, "  %-8s %s\n", a->cmd->cmd, a->cmd->summary);
	fprintf(f, "\n  -v, --verbose  libbpf's messages and whole verifier logs\n"
		   "  -q, --quiet    errors only\n"
		   "  --version      the version (and the git commit it was built from)\n");
}

int main(int argc, char **argv)
{
	const struct cli *c;
	int i = 1;

	log_level = LOG_INFO;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			log_level = LOG_DEBUG;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			log_level = LOG_WARN;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			printf("ccload %s%s%s%s\n", CCS_VERSION, *CCS_GIT ? " (git " : "", CCS_GIT,
			       *CCS_GIT ? ")" : "");
			return 0;
		} else if (!strcmp(argv[i], "--man")) { /* make man: build/ccload.8 */
			return doc_man(stdout, cmds, ARRAY_SIZE(cmds));
		} else if (!strcmp(argv[i], "--completion")) { /* build/ccload.bash-completion */
			return doc_completion(stdout, cmds, ARRAY_SIZE(cmds));
		} else {
			pr_warn("unknown option '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	log_init_libbpf();
	c = find_cmd(argv[i]);
	if (!c) {
		pr_warn("unknown command '%s'\n", argv[i]);
		usage(stderr);
		return 2;
	}
	return cli_main(c, argc - i, argv + i);
}
