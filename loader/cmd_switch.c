// SPDX-License-Identifier: GPL-2.0
/*
 * ccload switch: the test network's switch program on a device's egress.
 * The switch program is found again through the TC filter itself (handle
 * and priority are fixed), not through pins: a device in another network
 * namespace has no natural pin path, and the filter is what keeps the
 * program alive anyway.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cmds.h"
#include "log.h"
#include "parse.h"
#include "netns.h"
#include "util.h"
#include "switch.h"
#include "switch.skel.h"
#include "flashpass/rc.h" /* the emulation queue's rate */

_Static_assert(SW_EMU_FRAME == FP_FRAME_WIRE, "the switch and bpf_flashpass agree on the frame");

/* FlashPass's emulation queue: 8 packets, Not-ECT dropped above 2. */
#define SW_EMU_PKTS	 8
#define SW_EMU_OVER_PKTS 2

/* __u64 is unsigned long long, uint64_t unsigned long: print through this. */
#define U(x) ((uint64_t)(x))

#define SW_HANDLE 0xcc5
#define SW_PRIO	  1

enum { SW_ATTACH, SW_DETACH, SW_STATS };

/* What the command line asks of the switch. */
struct switch_args {
	struct sw_config c; /* attach */
	int emu_over_set;   /* --emu-over given */
	const char *netns;
	int json, reset;   /* stats */
	uint64_t interval; /* stats: ms, 0 for none */
};

static int switch_opt(void *st, int ch, char *arg);
static int switch_run(void *st, int sub, int argc, char **argv);

const struct cli switch_cli = {
	.cmd = "switch",
	.summary = "the test network's switch program on a device",
	.subs = (const char *const[]){ "attach", "detach", "stats", NULL },
	.synopsis =
		"ccload switch attach <dev> [options] [-n NETNS]\n"
		"       ccload switch detach <dev> [-n NETNS]\n"
		"       ccload switch stats <dev> [--json] [--reset] [--interval MS] [-n NETNS]",
	.about = "The test network's switch on <dev>'s egress (clsact, direct action): judges\n"
		 "a queue, CE-marks ECT packets above --ecn-k, drops above --buffer or above a\n"
		 "class's own limit.  Sizes and rates use tc's units.",
	.opts =
		(const struct cli_opt[]){
			{ "queue", 'q', "virtual|qdisc", SUB(SW_ATTACH),
			  "which queue: a virtual one drained at --rate (default), or the backlog of "
			  "<dev>'s root qdisc, a rate limiter such as tbf put there (the real queue)" },
			{ "rate", 'r', "RATE", SUB(SW_ATTACH),
			  "link rate (default 100mbit; 1mbit..10gbit)" },
			{ "buffer", 'b', "SIZE", SUB(SW_ATTACH), "buffer (default 100kb)" },
			{ "ecn-k", 'k', "SIZE", SUB(SW_ATTACH),
			  "ECN marking threshold K (default: no marking)" },
			{ "class-limit", 'c', "C=SIZE", SUB(SW_ATTACH),
			  "drop threshold of traffic class C (1..3)" },
			{ "dscp-class", 'D', "D=C", SUB(SW_ATTACH),
			  "DSCP value D (0..63) belongs to class C" },
			{ "emulation", 'e', "PORT", SUB(SW_ATTACH),
			  "FlashPass's emulation queue for UDP to PORT (bpf_flashpass's port "
			  "tunable, 7190 by default): rate x 84/1622, 8 packets, Not-ECT dropped "
			  "above 2" },
			{ "emu-class", 'E', "MAJ:MIN", SUB(SW_ATTACH),
			  "the emulation packets it passes join class MAJ:MIN (hex, as tc writes "
			  "it) of <dev>'s qdisc, e.g. an htb class at the emulation rate: a real "
			  "queue that spaces them, as a switch's (default: none; needs --emulation)" },
			{ "emu-over", 'O', "N", SUB(SW_ATTACH),
			  "the emulation queue drops Not-ECT (over-provisioned) packets above N "
			  "packets, 0..8 (default 2, as in the paper; 8: no selective dropping, "
			  "they are admitted as normal ones are)" },
			{ "emu-keep", 'Y', "PCT", SUB(SW_ATTACH),
			  "the emulation yields to class 0's data (senders without emulation, and "
			  "ACKs) the share of the link it takes, down to PCT % of its rate (1..99; "
			  "default: it never yields, as in the paper).  FlashPass's scheduled data "
			  "then needs a class of its own (--dscp-class for its dscp_sched)" },
			{ "netns", 'n', ARG_NETNS, SUB_ALL,
			  "the device is in network namespace NAME" },
			{ "json", 'j', NULL, SUB(SW_STATS), "stats as JSON" },
			{ "reset", 'R', NULL, SUB(SW_STATS),
			  "zero the counters after printing them" },
			{ "interval", 'i', "MS", SUB(SW_STATS),
			  "sample the queue every MS ms, one JSON line each, until interrupted" },
			{ 0 },
		},
	.args =
		(const struct cli_args[]){
			[SW_ATTACH] = { 1, 1, { ARG_DEV } },
			[SW_DETACH] = { 1, 1, { ARG_DEV } },
			[SW_STATS] = { 1, 1, { ARG_DEV } },
		},
	.state_size = sizeof(struct switch_args),
	.defaults =
		&(const struct switch_args){ .c = { .rate_bps = 100000000, .buffer = 100 << 10 } },
	.opt = switch_opt,
	.run = switch_run,
};
_Static_assert(SW_CLASSES == 4, "--class-limit's help names the classes");

/* "a=b" where both sides are numbers (b may be a size). */
static int parse_pair(const char *opt, char *text, uint64_t amax, uint64_t *a, int b_is_size,
		      uint64_t bmax, uint64_t *b)
{
	char *k, *v;

	if (parse_kv(text, &k, &v) || parse_u64(k, a) || *a > amax ||
	    (b_is_size ? parse_size(v, b) : parse_u64(v, b)) || *b > bmax) {
		pr_warn("%s: bad value (want N=%s with N <= %" PRIu64 ")\n", opt,
			b_is_size ? "SIZE" : "CLASS", amax);
		return -EINVAL;
	}
	return 0;
}

static const char *queue_name(uint32_t q)
{
	return q == SW_QUEUE_QDISC ? "qdisc" : "virtual";
}

static int switch_attach(const char *dev, const char *netns, struct sw_config *c)
{
	int back; /* a one-shot command: it stays in @netns */
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = SW_HANDLE, .priority = SW_PRIO,
			    .flags = BPF_TC_F_REPLACE);
	struct switch_bpf *skel;
	int err;

	skel = switch_bpf__open();
	if (!skel) {
		pr_warn("cannot open the switch program: %s\n", strerror(errno));
		return 1;
	}
	memcpy((void *)&skel->rodata->cfg, c, sizeof(*c));
	err = switch_bpf__load(skel);
	if (err) {
		pr_warn("switch: the kernel refused to load it: %s\n", strerror(-err));
		log_print_verifier_tail(20);
		goto out;
	}
	if (netns_enter(netns, &back)) {
		err = -1;
		goto out;
	}
	hook.ifindex = netns_dev_index(dev, netns);
	if (!hook.ifindex) {
		err = -ENODEV;
		goto out;
	}
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		pr_warn("cannot add clsact to %s: %s\n", dev, strerror(-err));
		goto out;
	}
	opts.prog_fd = bpf_program__fd(skel->progs.ccs_switch);
	err = bpf_tc_attach(&hook, &opts);
	if (err) {
		pr_warn("cannot attach the switch to %s: %s\n", dev, strerror(-err));
		goto out;
	}
	printf("switch on %s egress: rate %" PRIu64
	       "bit buffer %ub ecn-k %ub, %s queue (prog id %u)\n",
	       dev, U(c->rate_bps), c->buffer, c->ecn_k, queue_name(c->queue), opts.prog_id);
	if (c->emu_port)
		printf("emulation queue for UDP port %u: %" PRIu64
		       "bit, %u packets, Not-ECT dropped above %u",
		       c->emu_port, U(c->emu_rate_bps), c->emu_buffer / SW_EMU_FRAME,
		       c->emu_over / SW_EMU_FRAME);
	if (c->emu_port && c->emu_keep_pct)
		printf("; yields to class 0 down to %u %%", c->emu_keep_pct);
	if (c->emu_port && c->emu_class)
		printf("; those passed join class %x:%x", c->emu_class >> 16,
		       c->emu_class & 0xffff);
	if (c->emu_port)
		printf("\n");
out:
	switch_bpf__destroy(skel);
	return err ? 1 : 0;
}

static int switch_detach(const char *dev, const char *netns)
{
	int back; /* a one-shot command: it stays in @netns */
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = SW_HANDLE, .priority = SW_PRIO);
	int err;

	if (netns_enter(netns, &back))
		return 1;
	hook.ifindex = netns_dev_index(dev, netns);
	if (!hook.ifindex)
		return 1;
	err = bpf_tc_detach(&hook, &opts);
	if (err) {
		pr_warn("no switch attached to %s\n", dev);
		return 1;
	}
	printf("switch detached from %s\n", dev);
	return 0;
}

/* The state map of the switch attached to @dev: through the filter's prog. */
static int find_state(const char *dev, const char *netns, int *state_fd, int *ctl_fd,
		      struct sw_config *c)
{
	int back; /* a one-shot command: it stays in @netns */
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = SW_HANDLE, .priority = SW_PRIO);
	struct bpf_prog_info pinfo = {};
	uint32_t len = sizeof(pinfo), ids[16], i;
	int pfd, err;

	if (netns_enter(netns, &back))
		return -1;
	hook.ifindex = netns_dev_index(dev, netns);
	if (!hook.ifindex)
		return -ENODEV;
	err = bpf_tc_query(&hook, &opts);
	if (err) {
		pr_warn("no switch attached to %s\n", dev);
		return err;
	}
	pfd = bpf_prog_get_fd_by_id(opts.prog_id);
	if (pfd < 0)
		return -errno;
	pinfo.nr_map_ids = 16;
	pinfo.map_ids = (uint64_t)(uintptr_t)ids;
	err = bpf_obj_get_info_by_fd(pfd, &pinfo, &len);
	close(pfd);
	if (err)
		return -errno;
	*state_fd = -1;
	*ctl_fd = -1;
	for (i = 0; i < pinfo.nr_map_ids && i < 16; i++) {
		struct bpf_map_info minfo = {};
		uint32_t mlen = sizeof(minfo), zero = 0;
		int fd = bpf_map_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;
		bpf_obj_get_info_by_fd(fd, &minfo, &mlen);
		/* of this ccload's layout: an older switch's state has another */
		if (!strcmp(minfo.name, "sw_state") && *state_fd < 0 &&
		    minfo.value_size == sizeof(struct sw_state)) {
			*state_fd = fd;
			continue;
		}
		if (!strcmp(minfo.name, "sw_ctl") && *ctl_fd < 0) {
			*ctl_fd = fd;
			continue;
		}
		/* .rodata holds cfg first (it is the only rodata variable). */
		if (strstr(minfo.name, ".rodata") && minfo.value_size >= sizeof(*c)) {
			char *buf = calloc(1, minfo.value_size);

			if (buf && !bpf_map_lookup_elem(fd, &zero, buf))
				memcpy(c, buf, sizeof(*c));
			free(buf);
		}
		close(fd);
	}
	if (*state_fd < 0 || *ctl_fd < 0) {
		pr_warn("the program on %s is not ccsuite's switch (or an older one: attach it again)\n",
			dev);
		if (*state_fd >= 0)
			close(*state_fd);
		if (*ctl_fd >= 0)
			close(*ctl_fd);
		return -ENOENT;
	}
	return 0;
}

/* The switch's state as a reader sees it: a reset the program has not
 * carried out yet (no packet since) is applied to the copy. */
static int read_state(int state_fd, int ctl_fd, uint32_t key, struct sw_state *s,
		      struct sw_ctl *ctl)
{
	uint32_t zero = 0;

	if (bpf_map_lookup_elem_flags(state_fd, &key, s, BPF_F_LOCK) ||
	    bpf_map_lookup_elem(ctl_fd, &zero, ctl)) {
		pr_warn("cannot read the switch state: %s\n", strerror(errno));
		return -1;
	}
	if (s->reset_gen != ctl->reset_gen)
		sw_reset_counters(s, ctl->reset_gen);
	return 0;
}

/* The emulation queue's part of the stats (class 0: Not-ECT, 1: ECT). */
static void print_emu_stats(const struct sw_config *c, const struct sw_state *e, int json)
{
	char cls[16] = "null";

	if (c->emu_class)
		snprintf(cls, sizeof(cls), "\"%x:%x\"", c->emu_class >> 16, c->emu_class & 0xffff);
	if (json) {
		printf(",\"emulation\":{\"port\":%u,\"class\":%s,\"rate_bps\":%" PRIu64
		       ",\"buffer\":%u,\"over\":%u,\"keep_pct\":%u,\"other_bps\":%" PRIu64
		       ",\"backlog\":%" PRIu64 ",\"max_backlog\":%" PRIu64
		       ",\"normal\":{\"pkts\":%" PRIu64 ",\"dropped\":%" PRIu64
		       "},\"over_provisioned\":{\"pkts\":%" PRIu64 ",\"dropped\":%" PRIu64 "}}",
		       c->emu_port, cls, U(c->emu_rate_bps), c->emu_buffer, c->emu_over,
		       c->emu_keep_pct, U(e->other_bps), U(e->backlog), U(e->max_backlog),
		       U(e->cls[1].pkts), U(e->cls[1].dropped), U(e->cls[0].pkts),
		       U(e->cls[0].dropped));
		return;
	}
	printf("emulation queue (UDP port %u): %" PRIu64
	       "bit, %u packets, Not-ECT above %u; now %" PRIu64 "b, max %" PRIu64 "b\n",
	       c->emu_port, U(c->emu_rate_bps), c->emu_buffer / SW_EMU_FRAME,
	       c->emu_over / SW_EMU_FRAME, U(e->backlog), U(e->max_backlog));
	if (c->emu_keep_pct)
		printf("  yields to class 0 (now %" PRIu64 " bit/s) down to %u %%\n",
		       U(e->other_bps), c->emu_keep_pct);
	printf("  normal (ECT): %" PRIu64 " passed, %" PRIu64
	       " dropped; over-provisioned (Not-ECT): %" PRIu64 " passed, %" PRIu64 " dropped\n",
	       U(e->cls[1].pkts), U(e->cls[1].dropped), U(e->cls[0].pkts), U(e->cls[0].dropped));
}

static void print_stats(const char *dev, const struct sw_config *c, const struct sw_state *s,
			const struct sw_state *emu, int json)
{
	uint64_t avg = s->busy_ns ? U(s->area) * 1000 / U(s->busy_ns) : 0;
	uint64_t tot[6] = {};
	int i;

	for (i = 0; i < SW_CLASSES; i++) {
		tot[0] += s->cls[i].pkts;
		tot[1] += s->cls[i].bytes;
		tot[2] += s->cls[i].marked;
		tot[3] += s->cls[i].dropped;
		tot[4] += s->cls[i].dropped_bytes;
		tot[5] += s->cls[i].not_ect_over_k;
	}
	if (json) {
		printf("{\"dev\":\"%s\",\"queue\":\"%s\",\"rate_bps\":%" PRIu64
		       ",\"buffer\":%u,\"ecn_k\":%u,"
		       "\"backlog\":%" PRIu64 ",\"max_backlog\":%" PRIu64
		       ",\"avg_backlog\":%" PRIu64 ",\"observed_ns\":%" PRIu64 ",\"pkts\":%" PRIu64
		       ",\"bytes\":%" PRIu64 ",\"marked\":%" PRIu64 ",\"dropped\":%" PRIu64
		       ",\"dropped_bytes\":%" PRIu64 ",\"not_ect_over_k\":%" PRIu64
		       ",\"malformed\":%" PRIu64 ",\"no_real\":%" PRIu64 ",\"classes\":[",
		       dev, queue_name(c->queue), U(c->rate_bps), c->buffer, c->ecn_k,
		       U(s->backlog), U(s->max_backlog), avg, U(s->busy_ns), tot[0], tot[1], tot[2],
		       tot[3], tot[4], tot[5], U(s->malformed), U(s->no_real));
		for (i = 0; i < SW_CLASSES; i++)
			printf("%s{\"class\":%d,\"limit\":%u,\"pkts\":%" PRIu64
			       ",\"bytes\":%" PRIu64 ",\"marked\":%" PRIu64 ",\"dropped\":%" PRIu64
			       ",\"dropped_bytes\":%" PRIu64 ",\"not_ect_over_k\":%" PRIu64
			       ",\"max_backlog\":%" PRIu64 "}",
			       i ? "," : "", i, c->class_limit[i] ? c->class_limit[i] : c->buffer,
			       U(s->cls[i].pkts), U(s->cls[i].bytes), U(s->cls[i].marked),
			       U(s->cls[i].dropped), U(s->cls[i].dropped_bytes),
			       U(s->cls[i].not_ect_over_k), U(s->cls[i].max_backlog));
		printf("]");
		if (emu)
			print_emu_stats(c, emu, 1);
		printf("}\n");
		return;
	}
	printf("switch on %s: rate %" PRIu64 "bit buffer %ub ecn-k %ub, %s queue\n", dev,
	       U(c->rate_bps), c->buffer, c->ecn_k, queue_name(c->queue));
	printf("queue: now %" PRIu64 "b, max %" PRIu64 "b, time-average %" PRIu64 "b over %.3fs\n",
	       U(s->backlog), U(s->max_backlog), avg, (double)s->busy_ns / 1e9);
	printf("malformed IP frames (class 0, Not-ECT): %" PRIu64 "\n", U(s->malformed));
	if (s->no_real)
		printf("warning: %" PRIu64
		       " packets found no tbf root qdisc to read the queue from "
		       "and were judged on the virtual queue\n",
		       U(s->no_real));
	printf("%-6s %12s %14s %10s %10s %12s %10s\n", "class", "pkts", "bytes", "marked",
	       "dropped", "not-ect>K", "max-queue");
	for (i = 0; i < SW_CLASSES; i++)
		printf("%-6d %12" PRIu64 " %14" PRIu64 " %10" PRIu64 " %10" PRIu64 " %12" PRIu64
		       " %10" PRIu64 "\n",
		       i, U(s->cls[i].pkts), U(s->cls[i].bytes), U(s->cls[i].marked),
		       U(s->cls[i].dropped), U(s->cls[i].not_ect_over_k), U(s->cls[i].max_backlog));
	if (emu)
		print_emu_stats(c, emu, 0);
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * A time series of the queue for plots: every @interval_ms one JSON line
 * with the backlog as it is at that instant (the map holds it as of the
 * last packet; an idle queue has drained since) and the running totals;
 * per class, the bytes admitted and the frames dropped so far, and the
 * emulation packets passed (they share the port's qdisc), so that what
 * the queue holds can be told apart afterwards: it is FIFO, the last
 * backlog bytes admitted.
 */
static int sample_queue(int fd, int ctl_fd, const struct sw_config *c, unsigned int interval_ms)
{
	uint64_t t0 = mono_ns();

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while (!stop) {
		struct sw_state s, emu = {};
		struct sw_ctl ctl;
		uint64_t tot[3] = {}, now;
		int i;

		if (read_state(fd, ctl_fd, SW_STATE_DATA, &s, &ctl) ||
		    (c->emu_port && read_state(fd, ctl_fd, SW_STATE_EMU, &emu, &ctl)))
			return 1;
		now = mono_ns();
		if (s.last_ns)
			sw_advance(&s, now, c->rate_bps);
		for (i = 0; i < SW_CLASSES; i++) {
			tot[0] += s.cls[i].pkts;
			tot[1] += s.cls[i].marked;
			tot[2] += s.cls[i].dropped;
		}
		printf("{\"t_ms\":%.1f,\"backlog\":%" PRIu64 ",\"pkts\":%" PRIu64
		       ",\"marked\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"cls_bytes\":[",
		       (double)(now - t0) / 1e6, U(s.backlog), tot[0], tot[1], tot[2]);
		for (i = 0; i < SW_CLASSES; i++)
			printf("%s%" PRIu64, i ? "," : "", U(s.cls[i].bytes));
		printf("],\"cls_dropped\":[");
		for (i = 0; i < SW_CLASSES; i++)
			printf("%s%" PRIu64, i ? "," : "", U(s.cls[i].dropped));
		/* the peaks so far, per packet (between two samples the queue
		 * can rise and fall again) */
		printf("],\"max_backlog\":%" PRIu64 ",\"cls_max\":[", U(s.max_backlog));
		for (i = 0; i < SW_CLASSES; i++)
			printf("%s%" PRIu64, i ? "," : "", U(s.cls[i].max_backlog));
		/* mono_ns: bpf_ktime_get_ns's clock, as a bpftrace trace's nsecs */
		printf("],\"emu_pkts\":%" PRIu64 ",\"mono_ns\":%" PRIu64 "}\n",
		       U(emu.cls[0].pkts + emu.cls[1].pkts), now);
		fflush(stdout);
		usleep(interval_ms * 1000);
	}
	return 0;
}

static int switch_stats(const char *dev, const char *netns, int json, int reset,
			unsigned int interval_ms)
{
	struct sw_config c = {};
	struct sw_state s = {}, emu = {};
	struct sw_ctl ctl = {};
	uint32_t zero = 0;
	int fd = -1, ctl_fd = -1, err = 0;

	if (find_state(dev, netns, &fd, &ctl_fd, &c))
		return 1;
	if (interval_ms) {
		err = sample_queue(fd, ctl_fd, &c, interval_ms);
		goto out;
	}
	if (read_state(fd, ctl_fd, SW_STATE_DATA, &s, &ctl) ||
	    (c.emu_port && read_state(fd, ctl_fd, SW_STATE_EMU, &emu, &ctl))) {
		err = 1;
		goto out;
	}
	print_stats(dev, &c, &s, c.emu_port ? &emu : NULL, json);
	/* The program resets at its next packet, under its lock (sw_ctl). */
	ctl.reset_gen++;
	if (reset && bpf_map_update_elem(ctl_fd, &zero, &ctl, 0)) {
		pr_warn("cannot reset the switch counters: %s\n", strerror(errno));
		err = 1;
	}
out:
	close(fd);
	close(ctl_fd);
	return err;
}

static int parse_queue(const char *arg, struct sw_config *c)
{
	if (!strcmp(arg, "virtual")) {
		c->queue = SW_QUEUE_VIRTUAL;
	} else if (!strcmp(arg, "qdisc")) {
		c->queue = SW_QUEUE_QDISC;
	} else {
		pr_warn("--queue: '%s' is not virtual or qdisc\n", arg);
		return 2;
	}
	return 0;
}

/* --buffer and --ecn-k, both sizes up to SW_BUFFER_MAX. */
static int parse_buffer_size(int ch, const char *arg, struct sw_config *c)
{
	uint64_t v;

	if (parse_size(arg, &v) || v > SW_BUFFER_MAX) {
		pr_warn("--%s: '%s' is not a size up to 64mb\n", ch == 'b' ? "buffer" : "ecn-k",
			arg);
		return 2;
	}
	if (ch == 'b')
		c->buffer = (uint32_t)v;
	else
		c->ecn_k = (uint32_t)v;
	return 0;
}

/* A qdisc class id as tc writes it, "MAJ:MIN" in hex (1:20; major ffff
 * is the ingress qdisc's), into @id (TC_H_MAKE).  0, or exit status 2
 * after a message. */
static int parse_classid(const char *arg, uint32_t *id)
{
	unsigned long maj, min;
	char *end, *end2;

	/* hex digits and one colon, nothing else that strtoul() would take */
	if (strspn(arg, "0123456789abcdefABCDEF:") != strlen(arg))
		goto bad;
	errno = 0;
	maj = strtoul(arg, &end, 16);
	if (end == arg || *end != ':' || errno || !maj || maj >= 0xffff)
		goto bad;
	min = strtoul(end + 1, &end2, 16);
	if (end2 == end + 1 || *end2 || errno || !min || min > 0xffff)
		goto bad;
	*id = (uint32_t)(maj << 16 | min);
	return 0;
bad:
	pr_warn("--emu-class: '%s' is not a class id MAJ:MIN (hex, 1..fffe and 1..ffff)\n", arg);
	return 2;
}

/* Option @ch of any subcommand into @st, struct switch_args: 0, or exit
 * status 2 after a message. */
static int switch_opt(void *st, int ch, char *arg)
{
	struct switch_args *a = st;
	struct sw_config *c = &a->c;
	uint64_t v, k;

	switch (ch) {
	case 'q': return parse_queue(arg, c);
	case 'r':
		if (parse_rate(arg, &v) || v < SW_RATE_MIN || v > SW_RATE_MAX) {
			pr_warn("--rate: '%s' is not a rate in [1mbit, 10gbit]\n", arg);
			return 2;
		}
		c->rate_bps = v;
		break;
	case 'b':
	case 'k': return parse_buffer_size(ch, arg, c);
	case 'c':
		if (parse_pair("--class-limit", arg, SW_CLASSES - 1, &k, 1, SW_BUFFER_MAX, &v))
			return 2;
		c->class_limit[k] = (uint32_t)v;
		break;
	case 'D':
		if (parse_pair("--dscp-class", arg, SW_DSCPS - 1, &k, 0, SW_CLASSES - 1, &v))
			return 2;
		c->dscp_class[k] = (uint8_t)v;
		break;
	case 'e':
		if (parse_u64(arg, &v) || !v || v > 65535) {
			pr_warn("--emulation: '%s' is not a UDP port\n", arg);
			return 2;
		}
		c->emu_port = (uint32_t)v;
		break;
	case 'E': return parse_classid(arg, &c->emu_class);
	case 'O':
		if (parse_u64(arg, &v) || v > SW_EMU_PKTS) {
			pr_warn("--emu-over: '%s' is not a number of packets in [0, %u]\n", arg,
				SW_EMU_PKTS);
			return 2;
		}
		c->emu_over = (uint32_t)v * SW_EMU_FRAME;
		a->emu_over_set = 1;
		break;
	case 'Y':
		if (parse_u64(arg, &v) || v < 1 || v > 99) {
			pr_warn("--emu-keep: '%s' is not a percentage in [1, 99]\n", arg);
			return 2;
		}
		c->emu_keep_pct = (uint32_t)v;
		break;
	case 'n': a->netns = arg; break;
	case 'j': a->json = 1; break;
	case 'R': a->reset = 1; break;
	case 'i':
		if (parse_u64(arg, &a->interval) || !a->interval || a->interval > 60000) {
			pr_warn("--interval: '%s' is not a number of ms in [1, 60000]\n", arg);
			return 2;
		}
		break;
	default: return 2;
	}
	return 0;
}

/* The attach options taken together; the emulation queue's from the
 * link rate.  0, or exit status 2 after a message. */
static int finish_config(struct sw_config *c, int emu_over_set)
{
	int i;

	if (c->buffer < SW_BUFFER_MIN) {
		pr_warn("--buffer (%u) must hold a full-sized frame (%u bytes): a smaller "
			"one drops every packet\n",
			c->buffer, SW_BUFFER_MIN);
		return 2;
	}
	if (c->ecn_k >= c->buffer) {
		pr_warn("--ecn-k (%u) must be below --buffer (%u)\n", c->ecn_k, c->buffer);
		return 2;
	}
	if (c->emu_class && !c->emu_port) {
		pr_warn("--emu-class: there is no emulation queue (--emulation)\n");
		return 2;
	}
	if (c->emu_keep_pct && !c->emu_port) {
		pr_warn("--emu-keep: there is no emulation queue (--emulation)\n");
		return 2;
	}
	if (emu_over_set && !c->emu_port) {
		pr_warn("--emu-over: there is no emulation queue (--emulation)\n");
		return 2;
	}
	if (c->emu_port) {
		c->emu_rate_bps = fp_emu_bps(c->rate_bps);
		c->emu_buffer = SW_EMU_PKTS * SW_EMU_FRAME;
		if (!emu_over_set)
			c->emu_over = SW_EMU_OVER_PKTS * SW_EMU_FRAME;
	}
	for (i = 1; i < SW_CLASSES; i++)
		if (c->class_limit[i] > c->buffer) {
			pr_warn("--class-limit %d (%u) is above --buffer (%u)\n", i,
				c->class_limit[i], c->buffer);
			return 2;
		}
	return 0;
}

static int switch_run(void *st, int sub, int argc, char **argv)
{
	struct switch_args *a = st;
	const char *dev = argv[0];

	(void)argc;
	if (sub == SW_ATTACH && finish_config(&a->c, a->emu_over_set))
		return 2;
	if (need_root())
		return 1;
	if (sub == SW_ATTACH)
		return switch_attach(dev, a->netns, &a->c);
	if (sub == SW_DETACH)
		return switch_detach(dev, a->netns);
	return switch_stats(dev, a->netns, a->json, a->reset, (unsigned int)a->interval);
}
