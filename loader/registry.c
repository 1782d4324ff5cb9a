// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "parse.h"
#include "log.h"
#include "stats.h"
#include "dctcp.h"
#include "dctcp.skel.h"
#include "dctcp.pre610.skel.h"
#include "bbr.h"
#include "bbr.skel.h"
#include "bbr.pre610.skel.h"
#include "tldct.h"
#include "tldct.skel.h"
#include "tldct.pre610.skel.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

const struct stat_desc common_stats[] = {
	[CCS_STAT_FLOWS_INIT]	    = { "flows_init", STAT_COUNTER, "flows that started using the CC" },
	[CCS_STAT_FLOWS_RELEASE]    = { "flows_release", STAT_COUNTER, "flows that stopped using the CC" },
	[CCS_STAT_ACKS]		    = { "acks", STAT_COUNTER, "ACK events" },
	[CCS_STAT_CWND_REDUCTIONS]  = { "cwnd_reductions", STAT_COUNTER, "window reductions (ssthresh calls)" },
	[CCS_STAT_ECE_ACKS]	    = { "ece_acks", STAT_COUNTER, "ACKs with ECN-Echo" },
	[CCS_STAT_RTO]		    = { "rto", STAT_COUNTER, "retransmission timeouts" },
	[CCS_STAT_UNDO]		    = { "undo", STAT_COUNTER, "spurious reductions undone" },
	[CCS_STAT_BAD_RET]	    = { "bad_ret_fixed", STAT_COUNTER,
					"corrupted ssthresh()/undo_cwnd() results the kernel took, put right" },
};
const size_t n_common_stats = N(common_stats);
_Static_assert(N(common_stats) == CCS_STAT_COMMON_MAX, "name every common stat");

/* ---- bpf_dctcp ---- */

/* DCTCP's tunables and stats, which bpf_tldct has as well. */
#define DCTCP_TUNABLES \
	{ "shift_g", TUN_UINT, 0, DCTCP_MAX_SHIFT_G, \
	  "alpha gain g = 1/2^shift_g (RFC 8257 suggests 1/16)" }, \
	{ "alpha_on_init", TUN_UINT, 0, DCTCP_MAX_ALPHA, \
	  "initial alpha in 1/1024 units (1024 = start cautious)" }
#define DCTCP_STATS \
	{ "alpha_updates", STAT_COUNTER, "once-per-window alpha updates" }, \
	{ "delivered", STAT_COUNTER, "packets delivered (summed per window)" }, \
	{ "delivered_ce", STAT_COUNTER, "of which CE-marked" }, \
	{ "ce_flips", STAT_COUNTER, "receiver: CE state changes" }, \
	{ "delayed_ack_flush", STAT_COUNTER, "receiver: delayed ACK sent before a flip" }, \
	{ "no_ecn", STAT_COUNTER, "flows without ECN negotiated" }, \
	{ "to_reno", STAT_COUNTER, "of which went to the kernel's reno (not ECN-capable)" }

static const struct tunable dctcp_tunables[] = {
	DCTCP_TUNABLES,
	{ "clamp_alpha_on_loss", TUN_BOOL, 0, 1,
	  "set alpha to 1 after a retransmission timeout" },
};

static const struct stat_desc dctcp_stats[] = { DCTCP_STATS };
_Static_assert(N(dctcp_stats) == DCTCP_STAT_MAX - CCS_STAT_ALGO, "name every dctcp stat");

static const struct algo algo_dctcp = {
	.name = "bpf_dctcp",
	.summary = "DCTCP (RFC 8257): ECN-fraction window reduction",
	.elf_bytes = dctcp_bpf__elf_bytes,
	.elf_bytes_pre_6_10 = dctcp_pre610_bpf__elf_bytes,
	.tunables = dctcp_tunables,
	.n_tunables = N(dctcp_tunables),
	.stats = dctcp_stats,
	.n_stats = N(dctcp_stats),
};

/* ---- bpf_bbr ---- */

#define GAIN(name, help) { name, TUN_UINT, 1, 1023, help }
static const struct tunable bbr_tunables[] = {
	GAIN("high_gain", "STARTUP pacing and cwnd gain in 1/256 (739 = 2/ln2)"),
	GAIN("drain_gain", "DRAIN pacing gain in 1/256 (88 = ln2/2)"),
	GAIN("cwnd_gain", "PROBE_BW cwnd gain in 1/256 (512 = 2)"),
	GAIN("probe_up_gain", "PROBE_BW probing phase pacing gain in 1/256 (320 = 5/4)"),
	GAIN("probe_down_gain", "PROBE_BW draining phase pacing gain in 1/256 (192 = 3/4)"),
	{ "min_rtt_win_ms", TUN_UINT, 100, 600000,
	  "min_rtt window: PROBE_RTT when it was not refreshed this long (ms)" },
	{ "probe_rtt_mode_ms", TUN_UINT, 0, 10000, "time at 4 packets in PROBE_RTT (ms; 0 = never)" },
	{ "pacing_margin_pct", TUN_UINT, 0, 10, "pace this many percent below the bw estimate" },
	GAIN("extra_acked_gain", "ACK-aggregation allowance gain in 1/256 (256 = 1)"),
};

static const struct stat_desc bbr_stats[] = {
	{ "enter_startup", STAT_COUNTER, "flows entering STARTUP" },
	{ "enter_drain", STAT_COUNTER, "STARTUP -> DRAIN transitions" },
	{ "enter_probe_bw", STAT_COUNTER, "transitions into PROBE_BW" },
	{ "enter_probe_rtt", STAT_COUNTER, "PROBE_RTT entries" },
	{ "full_bw_reached", STAT_COUNTER, "STARTUP found the pipe full" },
	{ "lt_bw_on", STAT_COUNTER, "long-term bw (policer) activations" },
	{ "recovery", STAT_COUNTER, "recovery episodes in packet conservation" },
	{ "idle_restart", STAT_COUNTER, "restarts from idle" },
	{ "bw_bps", STAT_GAUGE, "a recent bw estimate (bit/s, largest over CPUs)" },
	{ "min_rtt_us", STAT_GAUGE, "a recent min_rtt (us, largest over CPUs)" },
	{ "full_bw_bps", STAT_GAUGE, "bw when STARTUP last judged the pipe full (bit/s, largest over CPUs)" },
};
_Static_assert(N(bbr_stats) == BBR_STAT_MAX - CCS_STAT_ALGO, "name every bbr stat");

static const struct algo algo_bbr = {
	.name = "bpf_bbr",
	.summary = "BBR v1 as in Linux: bw and min_rtt model, pacing",
	.elf_bytes = bbr_bpf__elf_bytes,
	.elf_bytes_pre_6_10 = bbr_pre610_bpf__elf_bytes,
	.tunables = bbr_tunables,
	.n_tunables = N(bbr_tunables),
	.stats = bbr_stats,
	.n_stats = N(bbr_stats),
};

/* ---- bpf_tldct ---- */

#define FACTOR(name, help) { name, TUN_UINT, 1, 4096, help }
static const struct tunable tldct_tunables[] = {
	DCTCP_TUNABLES,
	{ "task_min_kb", TUN_UINT, 0, 1U << 24, "beta is beta_min for tasks smaller than this (KB)" },
	{ "task_max_kb", TUN_UINT, 0, 1U << 24, "beta is beta_max for tasks from this size on (KB)" },
	FACTOR("beta_min", "task-size factor of small tasks in 1/1024 (512 = 0.5)"),
	FACTOR("beta_max", "task-size factor of large tasks in 1/1024 (1536 = 1.5)"),
	FACTOR("grow_min", "lower clamp of the growth scale 1/(beta (1+gamma)), 1/1024"),
	FACTOR("grow_max", "upper clamp of the growth scale, 1/1024"),
	{ "use_feedback", TUN_BOOL, 0, 1,
	  "use the receiver's S_t and n when it sends them (0: the local task table only)" },
};

static const struct stat_desc tldct_stats[] = {
	DCTCP_STATS,
	{ "syn_opt_tx", STAT_COUNTER, "SYNs sent with a task id" },
	{ "syn_opt_rx", STAT_COUNTER, "receiver: flows that arrived with a task id" },
	{ "ack_opt_tx", STAT_COUNTER, "receiver: ACKs sent with the task's S_t and n" },
	{ "ack_opt_rx", STAT_COUNTER, "sender: ACKs whose S_t and n were taken" },
	{ "opt_bad", STAT_COUNTER, "options of ours with a bad length, ignored" },
	{ "rx_tasks_new", STAT_COUNTER, "receiver: task entries created" },
	{ "rejoined", STAT_COUNTER, "flows that joined their task's entry again (evicted from a full table)" },
	{ "local_tasks_new", STAT_COUNTER, "sender: local task entries created" },
	{ "view_remote", STAT_COUNTER, "windows whose beta, gamma came from the receiver's view" },
	{ "view_local", STAT_COUNTER, "windows whose beta, gamma came from the local task table" },
	{ "view_no_task", STAT_COUNTER, "windows of flows without a task (a task of one)" },
	{ "beta", STAT_GAUGE, "beta at the last window cut (1/1024, largest over CPUs)" },
	{ "gamma", STAT_GAUGE, "gamma at the last window cut (1/1024, largest over CPUs)" },
};
_Static_assert(N(tldct_stats) == TLDCT_STAT_MAX - CCS_STAT_ALGO, "name every tldct stat");

static const struct algo algo_tldct = {
	.name = "bpf_tldct",
	.summary = "task-aware DCTCP: task-size and tail factors, receiver feedback in TCP options",
	.elf_bytes = tldct_bpf__elf_bytes,
	.elf_bytes_pre_6_10 = tldct_pre610_bpf__elf_bytes,
	.tunables = tldct_tunables,
	.n_tunables = N(tldct_tunables),
	.stats = tldct_stats,
	.n_stats = N(tldct_stats),
};

const struct algo *const algos[] = { &algo_dctcp, &algo_bbr, &algo_tldct };
const size_t n_algos = N(algos);

const struct algo *algo_find(const char *name)
{
	size_t i;

	for (i = 0; i < n_algos; i++)
		if (!strcmp(algos[i]->name, name))
			return algos[i];
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
	default:       err = parse_u64(text, &v); break;
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
	default:       snprintf(buf, len, "%" PRIu64, v); break;
	}
	return buf;
}
