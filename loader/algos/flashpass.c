// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_flashpass's registry entry (registry.h) and its own command:
 *
 * ccload flashpass run    the emulation pacer in the foreground; attaches
 *                         bpf_flashpass and the TC roles it is given, and
 *                         removes what it attached when it stops
 * ccload flashpass flows  the credit ledgers, live
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cli.h"
#include "attach.h"
#include "kcc.h"
#include "log.h"
#include "netns.h"
#include "obj.h"
#include "pacer.h"
#include "parse.h"
#include "pins.h"
#include "registry.h"
#include "tcrole.h"
#include "util.h"
#include "flashpass.h"
#include "flashpass.skel.h"
#include "flashpass.pre610.skel.h"

#define FP_NAME	  "bpf_flashpass"
#define MAX_SETS  16
#define MAX_ROLES (2 * PACER_MAX_NETNS + 8) /* two per sender, and the others */

/* one pacer at a time (pacer_lock()) */
#define PACER_LOCK RUN_DIR "/flashpass-pacer.lock"

enum { FP_RUN, FP_FLOWS };

/* What the command line asks of run (and of flows: json). */
struct fp_args {
	struct pacer_opts po;
	struct tunable_set sets[MAX_SETS];
	struct tc_place tc[MAX_ROLES];
	struct attach_opts ao; /* its sets and tc are the arrays above */
	int json;
};

static const struct fp_args fp_defaults = {
	.po = { .link_bps = 100000000ULL,
		.scan_us = 2000,
		.rt_priority = 10,
		.rel_expire_ns = PACER_REL_EXPIRE,
		.jitter_pct = 90,
		.rc = { .max_loss = 102,
			.min_loss = 102,
			.w_min = 8,
			.w_max = 64,
			.settle = 1,
			.start = FP_ONE / 4 } },
};

static int fp_opt(void *st, int ch, char *arg);
static int fp_run(void *st, int sub, int argc, char **argv);

static const struct cli fp_cli = {
	.cmd = "flashpass",
	.summary = "bpf_flashpass's emulation pacer (run) and credit ledgers (flows)",
	.subs = (const char *const[]){ "run", "flows", NULL },
	.synopsis =
		"ccload flashpass run [--link-rate RATE] [--max-loss N] [--min-loss N] [--w-max N]\n"
		"                         [--w-min N] [--start N] [--[no-]settle] [--set k=v]...\n"
		"                         [--non-restricted] [--jitter PCT] [--release-expiry TIME]\n"
		"                         [--no-over-provision]\n"
		"                         [--tc ROLE=DEV[@NETNS]]... [-n NETNS]...\n"
		"       ccload flashpass flows [--json]",
	.about = "run: the emulation pacer, in the foreground until SIGINT, SIGTERM, SIGHUP or\n"
		 "SIGQUIT, sending from the senders' namespaces (-n, one per sender; a flow\n"
		 "leaves from the one that has its source address).  It attaches bpf_flashpass\n"
		 "(with --set) when it is not attached, and the --tc roles; on exit it removes\n"
		 "what it attached and prints its CPU cost per emulation packet.\n"
		 "flows: every flow's credit ledger and the pacer's view of it.",
	.opts =
		(const struct cli_opt[]){
			{ "link-rate", 'r', "RATE", SUB(FP_RUN),
			  "the senders' link rate: a flow's highest emulation rate is its "
			  "84/1622 (default 100mbit)" },
			{ "max-loss", 'L', "N", SUB(FP_RUN),
			  "rate control: decrease above this emulation loss, 1/1024 (default 102)" },
			{ "min-loss", 'l', "N", SUB(FP_RUN),
			  "rate control: increase below this emulation loss, 1/1024 (default 102: no "
			  "band that holds the rate; a 1 % band is 10)" },
			{ "w-max", 'W', "N", SUB(FP_RUN),
			  "rate control: the largest w, the part of the gap to the highest rate an "
			  "increase closes, 1/1024 (default 64)" },
			{ "w-min", 'w', "N", SUB(FP_RUN),
			  "rate control: the smallest w, where decreases leave it, 1/1024 (default 8)" },
			{ "start", 'a', "N", SUB(FP_RUN),
			  "rate control: a new flow's emulation rate, 1/1024 of the highest, "
			  "doubled each RTT until its first decrease (default 256; 1024: the "
			  "paper's, with which N flows starting together send N times what the "
			  "emulation queue takes: docs/flashpass.md)" },
			{ "settle", 'S', NULL, SUB(FP_RUN),
			  "rate control: after a change, measure only the new rate's packets "
			  "(the default)" },
			{ "no-settle", 'U', NULL, SUB(FP_RUN),
			  "rate control: measure every interval from its start, the packets of "
			  "the rate before a change too (flows whose intervals end together then "
			  "decrease twice for one congestion)" },
			{ "no-over-provision", 'O', NULL, SUB(FP_RUN),
			  "a flow whose expected credits cover its demand sends no more emulation "
			  "packets (default: it sends them over-provisioned, Not-ECT, which the "
			  "switch drops first: the paper's; also in the kernel's loop)" },
			{ "jitter", 'J', "PCT", SUB(FP_RUN),
			  "each emulation gap drawn uniformly within PCT % of the rate's, 0-99 "
			  "(default 90; 0: exact gaps, with which a flow paced near the emulation "
			  "queue's whole rate takes the queue from the others)" },
			{ "release-expiry", 'x', "TIME", SUB(FP_RUN),
			  "release: a release the pacer would send later than this expires, "
			  "its credit with it (default 1ms; a slow or emulated machine needs "
			  "more)" },
			{ "set", 's', ARG_SET, SUB(FP_RUN),
			  "a tunable of bpf_flashpass, when run attaches it" },
			{ "non-restricted", 'N', NULL, SUB(FP_RUN),
			  "when run attaches it: any namespace may make it its default" },
			{ "tc", 't', ARG_TC, SUB(FP_RUN),
			  "attach TC role ROLE on DEV for the run" },
			{ "netns", 'n', ARG_NETNS, SUB(FP_RUN),
			  "send emulation packets from NAME (repeatable: one per sender)" },
			{ "json", 'j', NULL, SUB(FP_FLOWS), "as JSON, one object per flow" },
			{ 0 },
		},
	.state_size = sizeof(struct fp_args),
	.defaults = &fp_defaults,
	.opt = fp_opt,
	.run = fp_run,
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * The signals that stop run, each as SIGTERM does: the pacer stops and
 * what run attached is removed.  SIGHUP (its terminal gone) and SIGQUIT
 * would otherwise end it where it stands, its registration, roles and
 * pins left behind for a later detach.
 */
static const int stop_signals[] = PACER_STOP_SIGNALS;

static const char *phase_name(uint32_t ph)
{
	static const char *const n[] = { "pre-credit", "credit", "fallback", "done" };

	return ph < 4 ? n[ph] : "?";
}

/* A flow whose credits clock its emulation (loop): the kernel's loop
 * has its rate control, the pacer sent its first packets.  1 if so. */
static int flow_emu_loop(const struct fp_ledger *l, struct fp_emu *e)
{
	if (!l->loop.rc.rate)
		return 0;
	e->sent += l->loop.sent;
	e->lost = l->loop.lost;
	e->rate = l->loop.rc.rate;
	e->w = l->loop.rc.w;
	e->last_loss = l->loop.rc.last_loss;
	e->decreases = l->loop.rc.decreases;
	return 1;
}

static int flows(int json)
{
	int fl = pin_open_map(FP_NAME, "fp_ledgers", sizeof(struct fp_key),
			      sizeof(struct fp_ledger));
	int fe = pin_open_map(FP_NAME, "fp_emu", sizeof(struct fp_key), sizeof(struct fp_emu));
	int n = 0;
	struct fp_key k, next, *prev = NULL;
	struct fp_ledger *l = malloc(sizeof(*l));
	struct fp_emu e;

	if (fl < 0 || fe < 0 || !l) {
		if (errno == EBADMSG)
			pr_warn("flashpass flows: " FP_NAME " was attached by another build of "
				"ccsuite: detach it and attach this build's\n");
		else
			pr_warn("flashpass flows: " FP_NAME
				" is not attached (no pinned ledgers)\n");
		if (fl >= 0)
			close(fl);
		if (fe >= 0)
			close(fe);
		free(l);
		return 1;
	}
	if (!json)
		printf("%-22s %-22s %-10s %8s %10s %10s %8s %6s %8s %10s %9s %6s\n", "flow", "to",
		       "phase", "demand", "credits", "used", "wasted", "spare", "lag ms",
		       "emu sent", "emu pps", "loss");
	while (!bpf_map_get_next_key(fl, prev, &next)) {
		char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN + 12], sa[80], da[80], demand[24];
		__u32 lag;
		int open, loop;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fl, &k, l))
			continue;
		if (bpf_map_lookup_elem(fe, &k, &e))
			memset(&e, 0, sizeof(e));
		loop = flow_emu_loop(l, &e);
		addr6_str(k.saddr, s, sizeof(s));
		addr6_str(k.daddr, d, sizeof(d));
		/* a link-local flow's interface, in the sender's namespace */
		if (k.scope)
			snprintf(d + strlen(d), sizeof(d) - strlen(d), "%%%u", k.scope);
		open = l->demand_segs >= FP_DEMAND_OPEN;
		if (open)
			snprintf(demand, sizeof(demand), "%s", json ? "null" : "open");
		else
			snprintf(demand, sizeof(demand), "%llu", l->demand_segs);
		lag = fp_ring_lag_us(&l->ring, fp_stamp(mono_ns()));
		if (json) {
			printf("{\"netns\":%llu,\"src\":\"%s\",\"sport\":%u,\"dst\":\"%s\",\"dport\":%u,\"phase\":\"%s\","
			       "\"demand_segs\":%s,\"demand_open\":%s,\"credits\":%llu,\"credits_used\":%llu,"
			       "\"credits_wasted\":%llu,\"banked\":%u,\"lag_us\":%u,\"spare\":%llu,"
			       "\"min_rtt_us\":%llu,"
			       "\"t_wait_us\":%llu,\"emu_sent\":%llu,\"emu_over\":%llu,"
			       "\"emu_lost\":%llu,\"emu_pps\":%llu,\"emu_loss\":%.4f,\"w\":%.4f,"
			       "\"emu_by\":\"%s\",\"loop_in_flight\":%u,\"loop_window\":%u,"
			       "\"loop_rtt_us\":%llu,"
			       "\"snd_una\":%u,\"snd_nxt\":%u,\"rcv_nxt\":%u,\"wnd_raw\":%u,"
			       "\"own_acks\":%s,\"own_ts\":%s}\n",
			       k.netns, s, ntohs(k.sport), d, ntohs(k.dport), phase_name(l->phase),
			       demand, open ? "true" : "false", l->credits_recv, l->credits_used,
			       l->idle_wasted + l->ring_wasted + l->expired, fp_ring_fill(&l->ring),
			       lag, fp_spare(l), l->min_rtt_ns / 1000, l->t_wait_ns / 1000, e.sent,
			       e.over, e.lost, e.rate, e.last_loss / 1024.0, e.w / 1024.0,
			       loop ? "kernel" : "pacer",
			       loop ? fp_loop_in_flight(l->loop.seq, l->last_seq) : 0,
			       loop ? fp_loop_window(l->loop.rc.rate, l->loop.rtt_ns) : 0,
			       l->loop.rtt_ns / 1000, l->snd_una, l->snd_nxt, l->rcv_nxt,
			       l->wnd_raw, l->out_ok & FP_OUT_ACK ? "true" : "false",
			       l->out_ok & FP_OUT_TS ? "true" : "false");
		} else {
			snprintf(sa, sizeof(sa), "%s:%u", s, ntohs(k.sport));
			snprintf(da, sizeof(da), "%s:%u", d, ntohs(k.dport));
			printf("%-22s %-22s %-10s %8s %10llu %10llu %8llu %6llu %8.1f %10llu %9llu "
			       "%5.1f%%\n",
			       sa, da, phase_name(l->phase), demand, l->credits_recv,
			       l->credits_used, l->idle_wasted + l->ring_wasted + l->expired,
			       fp_spare(l), lag / 1000.0, e.sent, e.rate,
			       e.last_loss * 100.0 / 1024);
		}
		n++;
	}
	if (!json && !n)
		printf("(no flows)\n");
	free(l);
	close(fl);
	close(fe);
	return 0;
}

/*
 * One pacer on the host: bpf_flashpass's ledgers are one map for every
 * namespace, and a second pacer would send every flow's emulation
 * packets again (twice its rate into the emulation queue, every credit
 * counted against the other's sequence numbers) and overwrite the first
 * one's view (fp_emu).  The lock is taken before anything is attached,
 * so a second pacer touches nothing, and it lasts until the process and
 * its worker (pacer.c) have exited: the kernel releases it then, however
 * they end.  The file holds the holder's PID for the refusal to name.
 * Returns the locked descriptor, kept open, or < 0 after a message.
 */
static int pacer_lock(void)
{
	char pid[24] = "";
	ssize_t n;
	int fd, err = mkdir_p(RUN_DIR);

	if (err) {
		pr_warn("flashpass run: cannot make %s: %s\n", RUN_DIR, strerror(-err));
		return err;
	}
	fd = open(PACER_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		pr_warn("flashpass run: cannot open %s: %s\n", PACER_LOCK, strerror(errno));
		return err;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = -errno;
		if (err != -EWOULDBLOCK) {
			pr_warn("flashpass run: cannot lock %s: %s\n", PACER_LOCK, strerror(-err));
		} else {
			/* written by the holder just after it locked: empty at worst */
			n = pread(fd, pid, sizeof(pid) - 1, 0);
			pid[n > 0 ? n : 0] = '\0';
			pid[strcspn(pid, "\n")] = '\0';
			pr_warn("flashpass run: another pacer is running (PID %s, holding %s): "
				"one per host\n",
				pid[0] ? pid : "unknown", PACER_LOCK);
		}
		close(fd);
		return err;
	}
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n)
		pr_warn("flashpass run: cannot write its PID to %s: %s\n", PACER_LOCK,
			strerror(errno));
	return fd;
}

/* What run attached, to remove at its end. */
struct run_state {
	bool attached; /* the algorithm itself */
	struct tc_place roles[MAX_ROLES];
	size_t n_roles;
};

static void run_cleanup(const struct algo *a, struct run_state *st)
{
	if (st->attached) {
		algo_detach(FP_NAME); /* its roles too */
		return;
	}
	for (size_t i = 0; i < st->n_roles; i++)
		tc_role_detach(a, &st->roles[i]);
}

/* Tunable @name of the registration: its tunables are fixed at its load. */
static int fp_tunable(const struct algo *a, const char *name, uint64_t *v)
{
	uint64_t cur[ALGO_TUNABLES_MAX], def[ALGO_TUNABLES_MAX];

	for (size_t i = 0; i < a->n_tunables && a->n_tunables <= ALGO_TUNABLES_MAX; i++)
		if (!strcmp(a->tunables[i].name, name)) {
			if (algo_tunables_read(a, cur, def))
				break;
			*v = cur[i];
			return 0;
		}
	pr_warn("flashpass run: cannot read " FP_NAME "'s %s tunable\n", name);
	return -1;
}

/* What the pacer takes from the registration: the port, release,
 * whether credits are batched and whether the kernel clocks the loop. */
static int fp_pacer_tunables(const struct algo *a, struct pacer_opts *po)
{
	uint64_t port, release, batch, loop;

	if (fp_tunable(a, "port", &port) || fp_tunable(a, "release", &release) ||
	    fp_tunable(a, "credit_batch", &batch) || fp_tunable(a, "loop", &loop))
		return -1;
	if (loop && (release || batch > 1)) {
		pr_warn("flashpass run: loop=1 needs release=0 and credit_batch=1 (the pacer "
			"releases and batches only the packets it sends)\n");
		return -1;
	}
	po->port = (uint16_t)port;
	po->release = release != 0;
	po->batched = batch > 1;
	po->loop = loop != 0;
	/* the kernel clocks the loop: the pacer's seeds need no real time */
	if (po->loop)
		po->rt_priority = 0;
	return 0;
}

static int run(const struct algo *a, struct pacer_opts *po, struct attach_opts *ao)
{
	struct run_state st = { 0 };
	struct pacer_report r;
	struct sigaction sa = { .sa_handler = on_signal };
	int err;

	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &sa, NULL);
	/* first: a second pacer neither waits for the host's lock nor attaches */
	if (pacer_lock() < 0 || attach_env_check())
		return 1;
	if (!cc_registered(FP_NAME)) {
		if (algo_attach(ao))
			return 1;
		st.attached = true;
	} else {
		if (ao->n_sets)
			pr_warn("flashpass run: " FP_NAME " is attached already: --set ignored "
				"(detach it to change tunables)\n");
		for (size_t i = 0; i < ao->n_tc; i++) {
			if (tc_role_attach(a, NULL, &ao->tc[i])) {
				run_cleanup(a, &st);
				return 1;
			}
			st.roles[st.n_roles++] = ao->tc[i];
		}
	}
	if (fp_pacer_tunables(a, po)) {
		run_cleanup(a, &st);
		return 1;
	}
	unlock_host_state(); /* the pacer runs on; others may attach meanwhile */
	printf("flashpass pacer running in %s%s (r_max %" PRIu64 " emulation packets/s per flow, "
	       "%" PRIu64 " in all; "
	       "rate control: loss %u..%u/1024, w %u..%u/1024, start %u/1024, %s; "
	       "gaps jittered %u %%); "
	       "SIGINT, SIGTERM, SIGHUP or SIGQUIT stops it\n",
	       po->n_netns ? po->netns[0] : "this namespace", po->n_netns > 1 ? " and others" : "",
	       (uint64_t)fp_emu_pps_max(po->link_bps),
	       (uint64_t)fp_emu_pps_max(po->link_bps) * (po->n_netns ? po->n_netns : 1),
	       po->rc.min_loss, po->rc.max_loss, po->rc.w_min, po->rc.w_max, po->rc.start,
	       po->rc.settle ? "settle" : "no settle", po->jitter_pct);
	if (po->rc.no_over)
		printf("flashpass pacer: no over-provisioning: a flow whose expected credits "
		       "cover its demand sends no emulation packet\n");
	if (po->loop)
		printf("flashpass pacer: the kernel clocks the emulation (loop): the pacer starts "
		       "each loop, at no real-time priority\n");
	fflush(stdout);
	err = pacer_run(po, &stop, &r);
	lock_host_state();
	run_cleanup(a, &st);
	printf("flashpass pacer: %" PRIu64 " flows, %" PRIu64 " emulation packets (%" PRIu64
	       " over IPv6, %" PRIu64 " over-provisioned, %" PRIu64 " not sent as such, %" PRIu64
	       " send errors, %" PRIu64 " flows from no namespace of ours) in %.1f s, peak %" PRIu64
	       "/s; CPU %.3f s, %.0f ns per packet\n",
	       r.flows, r.sent, r.sent_v6, r.over, r.not_over, r.send_errors, r.no_sender, r.wall_s,
	       r.peak_pps, r.cpu_s, r.sent ? r.cpu_s * 1e9 / (double)r.sent : 0.0);
	printf("flashpass pacer: late by up to 100 us %" PRIu64 ", 1 ms %" PRIu64 ", more %" PRIu64
	       " packets, at most %.3f ms; %.3f s skipped by flows"
	       " over %.0f ms behind; %" PRIu64 " held back by the rate cap\n",
	       r.late[0], r.late[1], r.late[2], (double)r.late_max_ns / 1e6,
	       (double)r.skipped_ns / 1e9, PACER_LAG_MAX / 1e6, r.capped);
	if (po->release)
		printf("flashpass pacer: %" PRIu64 " releases, %" PRIu64
		       " not sent (credit lost), %" PRIu64
		       " not sent (credit not known, releases busy), %" PRIu64
		       " expired (over %g ms late), %" PRIu64
		       " not kept (%d pending a flow at most), %" PRIu64 " send errors\n",
		       r.released, r.release_lost, r.release_unjudged, r.release_expired,
		       (double)po->rel_expire_ns / 1e6, r.release_full, PACER_REL,
		       r.release_errors);
	return err ? 1 : 0;
}

/* A fraction in 1/1024: the rate control's loss targets and w, below 1
 * (w not 0: a flow could never increase again), and the start rate, up
 * to 1 (not 0: a flow would send nothing). */
static int parse_frac(int ch, const char *arg, struct fp_rc_params *rc)
{
	const struct {
		int ch;
		const char *name;
		uint32_t *v;
		uint32_t lo, hi;
	} f[] = {
		{ 'L', "max-loss", &rc->max_loss, 0, FP_ONE - 1 },
		{ 'l', "min-loss", &rc->min_loss, 0, FP_ONE - 1 },
		{ 'W', "w-max", &rc->w_max, 1, FP_ONE - 1 },
		{ 'w', "w-min", &rc->w_min, 1, FP_ONE - 1 },
		{ 'a', "start", &rc->start, 1, FP_ONE },
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (f[i].ch != ch)
			continue;
		if (parse_u64(arg, &v) || v < f[i].lo || v > f[i].hi) {
			pr_warn("--%s: '%s' is not a fraction in 1/1024 in [%u, %u]\n", f[i].name,
				arg, f[i].lo, f[i].hi);
			return 2;
		}
		*f[i].v = (uint32_t)v;
		return 0;
	}
	return 2;
}

/* --set k=v: a tunable of bpf_flashpass, for when run attaches it. */
static int parse_set(const struct algo *a, char *arg, struct fp_args *args)
{
	const struct tunable *t;
	char *k, *val;
	uint64_t v;

	if (args->ao.n_sets == MAX_SETS || parse_kv(arg, &k, &val) || !(t = algo_tunable(a, k)) ||
	    tunable_parse(t, val, &v)) {
		pr_warn("--set: '%s' is not a tunable of " FP_NAME " (ccload list shows them)\n",
			arg);
		return 2;
	}
	args->sets[args->ao.n_sets++] = (struct tunable_set){ t, v };
	return 0;
}

/* Option @ch into @st, struct fp_args: 0, or exit status 2 after a
 * message. */
static int fp_opt(void *st, int ch, char *arg)
{
	const struct algo *a = algo_find(FP_NAME);
	struct fp_args *args = st;
	struct pacer_opts *po = &args->po;

	switch (ch) {
	case 'r':
		if (parse_rate(arg, &po->link_bps) || po->link_bps < 1000000ULL ||
		    po->link_bps > 100000000000ULL) {
			pr_warn("--link-rate: '%s' is not a rate in [1mbit, 100gbit]\n", arg);
			return 2;
		}
		break;
	case 'L':
	case 'l':
	case 'W':
	case 'w':
	case 'a': return parse_frac(ch, arg, &po->rc);
	case 'S': po->rc.settle = 1; break;
	case 'U': po->rc.settle = 0; break;
	case 'O': po->rc.no_over = 1; break;
	case 'J': {
		uint64_t v;

		if (parse_u64(arg, &v) || v > FP_JITTER_MAX) {
			pr_warn("--jitter: '%s' is not a percentage in [0, %u]\n", arg,
				FP_JITTER_MAX);
			return 2;
		}
		po->jitter_pct = (unsigned int)v;
		break;
	}
	case 'x':
		if (parse_time(arg, &po->rel_expire_ns) || po->rel_expire_ns < 100000ULL ||
		    po->rel_expire_ns > 1000000000ULL) {
			pr_warn("--release-expiry: '%s' is not a time in [100us, 1s]\n", arg);
			return 2;
		}
		break;
	case 's': return parse_set(a, arg, args);
	case 't':
		if (args->ao.n_tc == MAX_ROLES || tc_place_parse(a, arg, &args->tc[args->ao.n_tc]))
			return 2;
		args->ao.n_tc++;
		break;
	case 'n':
		if (po->n_netns == PACER_MAX_NETNS) {
			pr_warn("flashpass run: at most %d namespaces (-n)\n", PACER_MAX_NETNS);
			return 2;
		}
		po->netns[po->n_netns++] = arg;
		break;
	case 'N': args->ao.non_restricted = true; break;
	case 'j': args->json = 1; break;
	default: return 2;
	}
	return 0;
}

static int fp_run(void *st, int sub, int argc, char **argv)
{
	struct fp_args *args = st;
	struct pacer_opts *po = &args->po;

	(void)argc;
	(void)argv;
	args->ao.algo = algo_find(FP_NAME);
	args->ao.sets = args->sets;
	args->ao.tc = args->tc;
	if (po->rc.w_min > po->rc.w_max) {
		pr_warn("--w-min (%u) is above --w-max (%u)\n", po->rc.w_min, po->rc.w_max);
		return 2;
	}
	if (po->rc.min_loss > po->rc.max_loss) {
		pr_warn("--min-loss (%u) is above --max-loss (%u)\n", po->rc.min_loss,
			po->rc.max_loss);
		return 2;
	}
	if (need_root())
		return 1;
	if (sub == FP_FLOWS)
		return flows(args->json);
	for (size_t i = 0; i < po->n_netns; i++)
		if (!netns_exists(po->netns[i])) {
			pr_warn("flashpass run: no network namespace '%s'\n", po->netns[i]);
			return 2;
		}
	return run(args->ao.algo, po, &args->ao);
}

/* ---- the registry entry ---- */

FP_TUNABLES(TUNABLE_CHECK)
static const struct tunable fp_tunables[] = { CCS_COMMON_TUNABLES(TUNABLE_DESC)
						      FP_TUNABLES(TUNABLE_DESC) };
static const struct stat_desc fp_stats[] = { FP_STATS(STAT_DESC, FP) };
_Static_assert(ARRAY_SIZE(fp_stats) == FP_STAT_MAX - CCS_STAT_ALGO, "name every flashpass stat");
_Static_assert(FP_STAT_MAX <= CCS_STAT_MAX, "bpf_flashpass has more stats than slots");

static const struct tc_role fp_roles[] = {
	{ "flashpass-sender", "fp_sender_out", TC_EGRESS,
	  "sender: tags data scheduled (under a usable credit) or unscheduled, spends credits" },
	{ "flashpass-credits", "fp_sender_in", TC_INGRESS,
	  "sender: takes credits into the flows' ledgers and drops them" },
	{ "flashpass-receiver", "fp_receiver", TC_INGRESS,
	  "receiver: returns each emulation packet as a credit" },
};

const struct algo algo_flashpass = {
	.name = FP_NAME,
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
	.cmd = &fp_cli,
};
