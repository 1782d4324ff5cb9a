// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_ppqd's registry entry (registry.h) and its own command:
 *   ccload ppqd conns [--json]    its connections (as ccload lia conns)
 *   ccload ppqd flows [--json] [-n NETNS]...
 *                                 its subflows: RTT smoothing, forecast,
 *                                 queueing delay and its mean
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>

#include "cli.h"
#include "coupled.h"
#include "log.h"
#include "netns.h"
#include "pins.h"
#include "registry.h"
#include "util.h"
#include "ppqd.h"
#include "ppqd.skel.h"
#include "ppqd.pre610.skel.h"

#define PPQD_NAME "bpf_ppqd"
#define MAX_NETNS CPL_MAX_NETNS

enum { MP_CONNS, MP_FLOWS };

/* One namespace's subflows from the pinned tcp iterator (it walks the
 * namespace of the reader). */
static int flows_here(const char *ns, int json, int *n)
{
	struct ppqd_flow_rec r;
	ssize_t got;
	int link, fd;

	link = pin_open("bpf_ppqd", "ppqd_flows");
	if (link < 0) {
		pr_warn("bpf_ppqd is not attached (no ppqd_flows pinned)\n");
		return 1;
	}
	fd = bpf_iter_create(link);
	close(link);
	if (fd < 0) {
		pr_warn("ppqd flows: cannot run the iterator: %s\n", strerror(errno));
		return 1;
	}
	while ((got = read(fd, &r, sizeof(r))) == sizeof(r)) {
		const struct ppqd_smooth *m = &r.st.sm;
		char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], sa[64], da[64];

		addr6_str(r.saddr, s, sizeof(s));
		addr6_str(r.daddr, d, sizeof(d));
		if (json) {
			printf("{\"netns\":\"%s\",\"src\":\"%s\",\"sport\":%u,\"dst\":\"%s\","
			       "\"dport\":%u,\"token\":\"%08x\",\"samples\":%" PRIu64 ","
			       "\"base_rtt_us\":%u,\"s1_us\":%.1f,\"s2_us\":%.1f,"
			       "\"forecast_us\":%u,\"q_us\":%u,\"qmean_us\":%u,\"mean_rtt_us\":%" PRIu64
			       ",\"cwnd\":%u,\"ssthresh\":%u,\"decreases\":%u,\"losses\":%u,"
			       "\"mode\":\"%s\",\"competes\":%u}\n",
			       ns, s, r.sport, d, r.dport, r.st.token, (uint64_t)m->samples,
			       m->base_us, (double)m->s1 / (1 << PPQD_FRAC_SHIFT),
			       (double)m->s2 / (1 << PPQD_FRAC_SHIFT), m->forecast_us, m->q_us,
			       m->qmean_us, (uint64_t)(m->samples ? m->sum_us / m->samples : 0),
			       r.st.cwnd, r.st.ssthresh, r.st.decreases, r.st.losses,
			       ppqd_mode_name(r.st.guard.mode), r.st.competes);
		} else {
			snprintf(sa, sizeof(sa), "%s:%u", s, r.sport);
			snprintf(da, sizeof(da), "%s:%u", d, r.dport);
			printf("%-16s %-22s %-22s %08x %8" PRIu64
			       " %8u %8u %8u %8u %6u %5u %5u %-7s %5u\n",
			       ns, sa, da, r.st.token, (uint64_t)m->samples, m->base_us,
			       m->forecast_us, m->q_us, m->qmean_us, r.st.cwnd, r.st.decreases,
			       r.st.losses, ppqd_mode_name(r.st.guard.mode), r.st.competes);
		}
		(*n)++;
	}
	if (got < 0)
		pr_warn("ppqd flows: reading the iterator: %s\n", strerror(errno));
	close(fd);
	return got < 0;
}

static int flows(int json, const char *const *netns, size_t n_netns)
{
	const char *names[MAX_NETNS];
	ino_t seen[MAX_NETNS];
	size_t i, n_names = 0;
	int err = 0, n = 0;
	DIR *dir;
	struct dirent *e = NULL;

	if (n_netns) {
		memcpy(names, netns, n_netns * sizeof(*names));
		n_names = n_netns;
	} else {
		names[n_names++] = NULL; /* ours */
		dir = opendir("/run/netns");
		while (dir && (e = readdir(dir)) && n_names < MAX_NETNS)
			if (e->d_name[0] != '.' && (names[n_names] = strdup(e->d_name)))
				n_names++;
		if (e && n_names == MAX_NETNS)
			pr_warn("ppqd flows: only the first %d named namespaces (-n for others)\n",
				MAX_NETNS - 1);
		if (dir)
			closedir(dir);
	}
	if (!json)
		printf("%-16s %-22s %-22s %-8s %8s %8s %8s %8s %8s %6s %5s %5s %-7s %5s\n", "netns",
		       "subflow", "to", "token", "samples", "base_us", "fcast_us", "q_us",
		       "qmean_us", "cwnd", "decr", "loss", "mode", "yield");
	for (i = 0; i < n_names && !err; i++) {
		struct stat st;
		size_t j;
		int back;

		if (netns_enter(names[i], &back) < 0) {
			err = n_netns ? 1 : 0; /* a namespace gone meanwhile: skip it */
			continue;
		}
		/* each namespace once: ours may have a name too, and two names
		 * may be one namespace */
		seen[i] = stat("/proc/self/ns/net", &st) ? 0 : st.st_ino;
		for (j = 0; j < i && seen[i]; j++)
			if (seen[j] == seen[i])
				break;
		if (!seen[i] || j == i)
			err = flows_here(names[i] ? names[i] : "-", json, &n);
		netns_leave(back);
	}
	if (!n_netns)
		for (i = 1; i < n_names; i++)
			free((char *)names[i]);
	if (!json && !n && !err)
		printf("(no flows)\n");
	return err;
}

static int ppqd_run(void *st, int sub, int argc, char **argv)
{
	struct cpl_args *a = st;

	(void)argc;
	(void)argv;
	if (need_root())
		return 1;
	return sub == MP_CONNS ? cpl_conns(PPQD_NAME, a->json) :
				 flows(a->json, a->netns, a->n_netns);
}

static const struct cli ppqd_cli = {
	.cmd = "ppqd",
	.summary = "bpf_ppqd's connections (conns) and RTT smoothing per subflow (flows)",
	.subs = (const char *const[]){ "conns", "flows", NULL },
	.synopsis = "ccload ppqd conns [--json]\n"
		    "       ccload ppqd flows [--json] [-n NETNS]...",
	.about = "conns: bpf_ppqd's coupled connections (as ccload lia conns).\n"
		 "flows: every subflow's RTT smoothing (S1, S2, forecast), BaseRTT, queueing\n"
		 "delay and its mean, window, delay decreases and losses, its mode (delay\n"
		 "control, or competing with a loss-based flow until its next loss) and how\n"
		 "often it yielded.",
	.opts =
		(const struct cli_opt[]){
			{ "json", 'j', NULL, SUB_ALL, "as JSON, one object per line" },
			{ "netns", 'n', ARG_NETNS, SUB(MP_FLOWS),
			  "only the subflows of namespace NAME (repeatable; default: ours and every "
			  "named one)" },
			{ 0 },
		},
	.state_size = sizeof(struct cpl_args),
	.opt = cpl_opt,
	.run = ppqd_run,
};

/* ---- the registry entry ---- */

PPQD_TUNABLES(TUNABLE_CHECK)
static const struct tunable ppqd_tunables[] = { CCS_COMMON_TUNABLES(TUNABLE_DESC) CPL_TUNABLES(
	TUNABLE_DESC) PPQD_TUNABLES(TUNABLE_DESC) };
static const struct stat_desc ppqd_stats[] = { CPL_STATS(STAT_DESC, CPL)
						       PPQD_OWN_STATS(STAT_DESC, PPQD) };
_Static_assert(ARRAY_SIZE(ppqd_stats) == PPQD_STAT_MAX - CCS_STAT_ALGO, "name every ppqd stat");
_Static_assert(PPQD_STAT_MAX <= CCS_STAT_MAX, "bpf_ppqd has more stats than slots");

const struct algo algo_ppqd = {
	.name = PPQD_NAME,
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
	.cmd = &ppqd_cli,
};
