// SPDX-License-Identifier: GPL-2.0
/* ccload: attach ccsuite's congestion controls and read their stats. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "log.h"
#include "util.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct cmd cmds[] = {
	{ "list", cmd_list, "algorithms, whether registered, flows using them, tunables" },
	{ "attach", cmd_attach, "load and register an algorithm (stays after exit)" },
	{ "detach", cmd_detach, "unregister an algorithm (or --all)" },
	{ "stats", cmd_stats, "counters as a table, JSON or Prometheus text" },
	{ "switch", cmd_switch, "the test network's switch program on a device" },
	{ "tc", cmd_tc, "an attached algorithm's TC programs on devices" },
	{ "task", cmd_task, "bpf_tldct's tasks: set a socket's task, show the task tables" },
	{ "flashpass", cmd_flashpass,
	  "bpf_flashpass's emulation pacer (run) and credit ledgers (flows)" },
	{ "lia", cmd_lia, "bpf_lia's coupled MPTCP connections (conns)" },
	{ "ppqd", cmd_ppqd,
	  "bpf_ppqd's connections (conns) and RTT smoothing per subflow (flows)" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: ccload [-v|-q] <command> [options]   (ccload <command> --help)\n\n");
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n  -v, --verbose  libbpf's messages and whole verifier logs\n"
		   "  -q, --quiet    errors only\n");
}

int main(int argc, char **argv)
{
	int i = 1;
	size_t c;

	log_level = LOG_INFO;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			log_level = LOG_DEBUG;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			log_level = LOG_WARN;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
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
	for (c = 0; c < ARRAY_SIZE(cmds); c++) {
		if (strcmp(argv[i], cmds[c].name))
			continue;
		optind = 0; /* each command parses its own options */
		return cmds[c].fn(argc - i, argv + i);
	}
	pr_warn("unknown command '%s'\n", argv[i]);
	usage(stderr);
	return 2;
}
