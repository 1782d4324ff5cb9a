// SPDX-License-Identifier: GPL-2.0
/*
 * The coupled MPTCP CCs' state, live:
 *   ccload lia conns [--json]     bpf_lia's connections: subflows' windows
 *   ccload ppqd conns [--json]    and RTTs, w_total, alpha (bpf/lib/coupled.h)
 *   ccload ppqd flows [--json] [-n NETNS]...
 *                                 bpf_ppqd's subflows: RTT smoothing,
 *                                 forecast, queueing delay and its mean
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

#include "cmds.h"
#include "opts.h"
#include "log.h"
#include "netns.h"
#include "pins.h"
#include "util.h"
#include "lia.h"
#include "ppqd.h"

enum { MP_CONNS, MP_FLOWS };

#define MAX_NETNS 64

static const struct cli_opt mp_opts[] = {
	{ "json", 'j', NULL, SUB_ALL, "as JSON, one object per line" },
	{ "netns", 'n', "NAME", SUB(MP_FLOWS),
	  "only the subflows of namespace NAME (repeatable; default: ours and every "
	  "named one)" },
	{ 0 },
};

static const struct cli lia_cli = {
	.cmd = "lia",
	.subs = (const char *const[]){ "conns", NULL },
	.synopsis = "ccload lia conns [--json]",
	.about = "conns: bpf_lia's coupled connections, each subflow's window and RTT,\n"
		 "w_total and alpha as the last subflow to move computed them.",
	.opts = mp_opts,
};

static const struct cli ppqd_cli = {
	.cmd = "ppqd",
	.subs = (const char *const[]){ "conns", "flows", NULL },
	.synopsis = "ccload ppqd conns [--json]\n"
		    "       ccload ppqd flows [--json] [-n NETNS]...",
	.about = "conns: bpf_ppqd's coupled connections (as ccload lia conns).\n"
		 "flows: every subflow's RTT smoothing (S1, S2, forecast), BaseRTT, queueing\n"
		 "delay and its mean, window, delay decreases and losses, its mode (delay\n"
		 "control, or competing with a loss-based flow until its next loss) and how\n"
		 "often it yielded.",
	.opts = mp_opts,
};

static int open_pin(const char *algo, const char *name)
{
	int fd = pin_open(algo, name);

	if (fd < 0)
		pr_warn("%s is not attached (no %s pinned)\n", algo, name);
	return fd;
}

static int conns(const char *algo, int json)
{
	int fd = open_pin(algo, "cpl_conns"), n = 0;
	struct cpl_key k, next, *prev = NULL;
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info), steps = 0;
	struct cpl_conn c;

	if (fd < 0)
		return 1;
	/* a walk restarts from the first key when the one it stands on is
	 * deleted: at most the table's size of steps under churn */
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || !info.max_entries)
		info.max_entries = CPL_MAX_CONNS;
	if (!json)
		printf("%-18s %-10s %4s %6s %8s  %s\n", "netns", "token", "subs", "w_tot", "alpha",
		       "subflows (cwnd/rtt_us)");
	while (steps++ < info.max_entries && !bpf_map_get_next_key(fd, prev, &next)) {
		const char *sep = "";
		unsigned i;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &c))
			continue;
		if (json)
			printf("{\"netns\":%" PRIu64 ",\"token\":\"%08x\",\"members\":%u,"
			       "\"w_total\":%u,\"alpha\":%.4f,\"subflows\":[",
			       (uint64_t)k.netns, k.token, ccs_group_slots_used(c.g.members),
			       c.w_total, c.alpha / 1024.0);
		else
			printf("%-18" PRIu64 " %08x   %4u %6u %8.4f  ", (uint64_t)k.netns, k.token,
			       ccs_group_slots_used(c.g.members), c.w_total, c.alpha / 1024.0);
		for (i = 0; i < CPL_MAX_SUBFLOWS; i++) {
			if (!(c.g.members & (1U << i)))
				continue;
			if (json)
				printf("%s{\"slot\":%u,\"cwnd\":%u,\"rtt_us\":%u}", sep, i,
				       c.sub[i].cwnd, c.sub[i].rtt_us);
			else
				printf("%s%u/%u", sep, c.sub[i].cwnd, c.sub[i].rtt_us);
			sep = json ? "," : " ";
		}
		printf(json ? "]}\n" : "\n");
		n++;
	}
	if (!json && !n)
		printf("(no connections)\n");
	close(fd);
	return 0;
}

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

static int run(const struct cli *c, const char *algo, int argc, char **argv)
{
	const char *netns[MAX_NETNS];
	size_t n_netns = 0;
	int sub, opt, json = 0;

	if (argc < 2) {
		cli_usage(c, stderr);
		return 2;
	}
	sub = cli_sub(c, argv[1]);
	if (sub < 0)
		return 2;
	optind = 2;
	while ((opt = cli_getopt(c, sub, argc, argv)) != -1) {
		switch (opt) {
		case 'j': json = 1; break;
		case 'n':
			if (n_netns == MAX_NETNS) {
				pr_warn("%s flows: at most %d namespaces (-n)\n", c->cmd,
					MAX_NETNS);
				return 2;
			}
			if (!netns_exists(optarg)) {
				pr_warn("%s flows: no network namespace '%s'\n", c->cmd, optarg);
				return 2;
			}
			netns[n_netns++] = optarg;
			break;
		case 'h': return 0;
		default: return 2;
		}
	}
	if (optind < argc) {
		pr_warn("%s %s: unexpected argument '%s'\n", c->cmd, c->subs[sub], argv[optind]);
		return 2;
	}
	if (need_root())
		return 1;
	return sub == MP_CONNS ? conns(algo, json) : flows(json, netns, n_netns);
}

int cmd_lia(int argc, char **argv)
{
	return run(&lia_cli, "bpf_lia", argc, argv);
}

int cmd_ppqd(int argc, char **argv)
{
	return run(&ppqd_cli, "bpf_ppqd", argc, argv);
}
