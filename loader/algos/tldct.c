// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_tldct's registry entry (registry.h) and its own command:
 *
 * ccload task set PID FD TASK   put another process's socket into a task
 * ccload task get PID FD        a socket's task and the receiver's view
 * ccload task list [--json]     the sender's and the receiver's task tables
 *
 * A socket of another process is reached with pidfd_getfd(2) (Linux 5.6,
 * needs ptrace access to it: root), then set with ccs_task_set().  The
 * task is the socket's cgroup's (bpf/tldct.h, "Tenants"), not ccload's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>

#include "cli.h"
#include "task_api.h"
#include "log.h"
#include "parse.h"
#include "pins.h"
#include "registry.h"
#include "util.h"
#include "tldct.h"
#include "tldct.skel.h"
#include "tldct.pre610.skel.h"

#define TLDCT_NAME "bpf_tldct"

enum { TASK_SET, TASK_GET, TASK_LIST };

static int task_opt(void *st, int key, char *arg);
static int task_run(void *st, int sub, int argc, char **argv);

static const struct cli task_cli = {
	.cmd = "task",
	.summary = "bpf_tldct's tasks: set a socket's task, show the task tables",
	.subs = (const char *const[]){ "set", "get", "list", NULL },
	.synopsis =
		"ccload task set PID FD TASK   put socket FD of process PID into task TASK\n"
		"       ccload task get PID FD        its task and what the receiver reported\n"
		"       ccload task list [--json]     the task tables (sender and receiver side)",
	.about = "bpf_tldct must be attached.  TASK is a number (0 = none); a task set this way\n"
		 "wins over the default, the socket's cgroup v2 id.  Set it before connect().\n"
		 "A task is its sockets' cgroup's and network namespace's: sockets of other\n"
		 "cgroups or namespaces naming the same number are in tasks of their own.\n"
		 "list shows each entry's namespace (its cookie) and, on the sender side, the\n"
		 "cgroup; a receiver's task is the id the sender's SYN carried (get: \"sent as\").",
	.opts =
		(const struct cli_opt[]){
			{ "json", 'j', NULL, SUB(TASK_LIST), "the tables as JSON" },
			{ 0 },
		},
	.args =
		(const struct cli_args[]){
			[TASK_SET] = { 3, 3, { "PID", "FD", "TASK" } },
			[TASK_GET] = { 2, 2, { "PID", "FD" } },
			[TASK_LIST] = { 0, 0, { NULL } },
		},
	.state_size = sizeof(int), /* --json */
	.opt = task_opt,
	.run = task_run,
};

static int open_pinned(const char *name)
{
	char path[256];
	int fd;

	pin_path(TLDCT_NAME, name, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0)
		pr_warn("cannot open %s: %s (is bpf_tldct attached?)\n", path, strerror(errno));
	return fd;
}

/* A duplicate of socket @fd of process @pid, or -1 (message printed). */
static int steal_fd(const char *pid_s, const char *fd_s)
{
	uint64_t pid, fd;
	int pidfd, dup;

	if (parse_u64(pid_s, &pid) || parse_u64(fd_s, &fd) || pid == 0 || pid > INT32_MAX ||
	    fd > INT32_MAX) {
		pr_warn("task: PID and FD must be numbers\n");
		return -1;
	}
	pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (pidfd < 0) {
		pr_warn("task: no process %" PRIu64 ": %s\n", pid, strerror(errno));
		return -1;
	}
	dup = (int)syscall(SYS_pidfd_getfd, pidfd, (int)fd, 0);
	if (dup < 0)
		pr_warn("task: cannot get fd %" PRIu64 " of process %" PRIu64 ": %s\n", fd, pid,
			strerror(errno));
	close(pidfd);
	return dup;
}

static bool is_tcp_socket(int fd)
{
	int type = 0, proto = 0;
	socklen_t len = sizeof(type);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len))
		return false;
	len = sizeof(proto);
	return type == SOCK_STREAM && !getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) &&
	       proto == IPPROTO_TCP;
}

static int task_set(char **argv)
{
	uint64_t task;
	int sock, err;

	if (parse_u64(argv[2], &task)) {
		pr_warn("task: TASK must be a number, not '%s'\n", argv[2]);
		return 2;
	}
	if (need_root())
		return 1;
	sock = steal_fd(argv[0], argv[1]);
	if (sock < 0)
		return 1;
	if (!is_tcp_socket(sock)) {
		pr_warn("task: fd %s of process %s is not a TCP socket\n", argv[1], argv[0]);
		close(sock);
		return 1;
	}
	err = ccs_task_set(sock, task);
	if (err == -EPERM)
		pr_warn("task: the socket already counts its bytes under another task: set it before connect()\n");
	else if (err == -ENOPROTOOPT)
		pr_warn("task: bpf_tldct is not attached\n");
	else if (err)
		pr_warn("task: cannot set the task: %s\n", strerror(-err));
	else
		printf("socket %s of process %s: task %" PRIu64 "\n", argv[1], argv[0], task);
	close(sock);
	return err ? 1 : 0;
}

static int task_get(char **argv)
{
	struct tldct_sk v = {};
	int map, sock, err;

	if (need_root())
		return 1;
	map = open_pinned("tldct_sk");
	if (map < 0)
		return 1;
	sock = steal_fd(argv[0], argv[1]);
	if (sock < 0) {
		close(map);
		return 1;
	}
	err = bpf_map_lookup_elem(map, &sock, &v) ? -errno : 0;
	close(sock);
	close(map);
	if (err == -ENOENT) {
		printf("no task state (not a bpf_tldct socket, or no task set yet)\n");
		return 0;
	}
	if (err) {
		pr_warn("task: cannot read the socket's state: %s\n", strerror(-err));
		return 1;
	}
	printf("task %" PRIu64 " (%s)", (uint64_t)v.task,
	       v.flags & TLDCT_SK_PEER	   ? "named by the peer's SYN: it receives for it" :
	       v.flags & TLDCT_SK_EXPLICIT ? "set explicitly" :
	       v.flags & TLDCT_SK_RESOLVED ? "its cgroup" :
					     "not resolved yet");
	if ((v.flags & (TLDCT_SK_RESOLVED | TLDCT_SK_PEER)) == TLDCT_SK_RESOLVED && v.task)
		printf(" in cgroup %" PRIu64 ", sent as %" PRIu64, (uint64_t)v.cgroup,
		       (uint64_t)v.wire);
	if (v.flags & TLDCT_SK_FEEDBACK)
		printf(", receiver reports S_t %" PRIu64 " bytes, n %u",
		       (uint64_t)tldct_feedback_bytes(v.fb), tldct_feedback_n(v.fb));
	printf("\n");
	return 0;
}

/* The sender a receiver entry is scoped by ("" in the sender's own table). */
static void peer_text(const struct tldct_key *k, char *buf, size_t len)
{
	static const uint32_t none[4];
	const uint8_t *b = (const uint8_t *)k->peer;

	buf[0] = '\0';
	if (!memcmp(k->peer, none, sizeof(none)))
		return;
	if (!k->peer[0] && !k->peer[1] && k->peer[2] == htonl(0xffff))
		inet_ntop(AF_INET, b + 12, buf, (socklen_t)len);
	else
		inet_ntop(AF_INET6, b, buf, (socklen_t)len);
}

/* The walk goes bucket by bucket (batch lookup): get_next_key restarts from
 * the first bucket when its key was evicted meanwhile, which under a flood
 * of new tasks listed some of them twice. */
static int list_table(const char *name, const char *side, int json, int *first)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info), n, i, cap;
	struct tldct_key *keys = NULL;
	uint64_t batch = 0;
	struct tldct_task *vals = NULL;
	int fd = open_pinned(name), err = 0, done = 0;
	void *in = NULL;

	if (fd < 0)
		return -1;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		pr_warn("task: cannot read %s: %s\n", name, strerror(errno));
		close(fd);
		return -1;
	}
	cap = info.max_entries;
	keys = calloc(cap, sizeof(*keys));
	vals = calloc(cap, sizeof(*vals));
	if (!keys || !vals) {
		pr_warn("task: out of memory\n");
		err = -1;
		goto out;
	}
	if (!json)
		printf("%s side (%s):\n%20s %20s %14s %6s %s\n", side, name, "task", "netns",
		       "S_t bytes", "flows", strcmp(side, "receiver") ? "cgroup" : "sender");
	while (!done) {
		n = cap;
		if (bpf_map_lookup_batch(fd, in, &batch, keys, vals, &n, NULL)) {
			if (errno != ENOENT) {
				pr_warn("task: cannot list %s: %s\n", name, strerror(errno));
				err = -1;
				goto out;
			}
			done = 1; /* the last batch (n may still be > 0) */
		}
		in = &batch;
		for (i = 0; i < n; i++) {
			char peer[INET6_ADDRSTRLEN];

			peer_text(&keys[i], peer, sizeof(peer));
			if (json)
				printf("%s{\"side\":\"%s\",\"task\":%" PRIu64 ",\"peer\":\"%s\","
				       "\"bytes\":%" PRIu64 ",\"flows\":%u,\"netns\":%" PRIu64
				       ",\"cgroup\":%" PRIu64 "}",
				       *first ? "" : ",", side, (uint64_t)keys[i].task, peer,
				       (uint64_t)vals[i].bytes, vals[i].grp.members,
				       (uint64_t)keys[i].netns, (uint64_t)keys[i].cgroup);
			else if (keys[i].cgroup)
				printf("%20" PRIu64 " %20" PRIu64 " %14" PRIu64 " %6u %" PRIu64
				       "\n",
				       (uint64_t)keys[i].task, (uint64_t)keys[i].netns,
				       (uint64_t)vals[i].bytes, vals[i].grp.members,
				       (uint64_t)keys[i].cgroup);
			else
				printf("%20" PRIu64 " %20" PRIu64 " %14" PRIu64 " %6u %s\n",
				       (uint64_t)keys[i].task, (uint64_t)keys[i].netns,
				       (uint64_t)vals[i].bytes, vals[i].grp.members, peer);
			*first = 0;
		}
	}
out:
	free(keys);
	free(vals);
	close(fd);
	return err;
}

static int task_list(int json)
{
	int first = 1, fd;

	if (need_root())
		return 1;
	fd = open_pinned("tldct_sk"); /* attached at all? */
	if (fd < 0)
		return 1;
	close(fd);
	if (json)
		printf("[");
	if (list_table("tldct_tasks", "sender", json, &first) ||
	    list_table("tldct_rx_tasks", "receiver", json, &first))
		return 1;
	if (json)
		printf("]\n");
	return 0;
}

static int task_opt(void *st, int key, char *arg)
{
	(void)arg;
	*(int *)st = key == 'j'; /* its one option */
	return 0;
}

static int task_run(void *st, int sub, int argc, char **argv)
{
	(void)argc;
	if (sub == TASK_SET)
		return task_set(argv);
	if (sub == TASK_GET)
		return task_get(argv);
	return task_list(*(int *)st);
}

/* ---- the registry entry ---- */

TLDCT_TUNABLES(TUNABLE_CHECK)
static const struct tunable tldct_tunables[] = { CCS_COMMON_TUNABLES(TUNABLE_DESC) DCTCP_TUNABLES(
	TUNABLE_DESC) TLDCT_TUNABLES(TUNABLE_DESC) };
static const struct stat_desc tldct_stats[] = { DCTCP_STATS(STAT_DESC, DCTCP)
							TLDCT_STATS(STAT_DESC, TLDCT) };
_Static_assert(ARRAY_SIZE(tldct_stats) == TLDCT_STAT_MAX - CCS_STAT_ALGO, "name every tldct stat");
_Static_assert(TLDCT_STAT_MAX <= CCS_STAT_MAX, "bpf_tldct has more stats than slots");

const struct algo algo_tldct = {
	.name = TLDCT_NAME,
	.summary = "task-aware DCTCP: task-size and tail factors, receiver feedback in TCP options",
	.elf_bytes = tldct_bpf__elf_bytes,
	.elf_bytes_pre_6_10 = tldct_pre610_bpf__elf_bytes,
	.tunables = tldct_tunables,
	.n_tunables = ARRAY_SIZE(tldct_tunables),
	.stats = tldct_stats,
	.n_stats = ARRAY_SIZE(tldct_stats),
	.cgroup_progs = (const char *const[]){ "tldct_sockops", "tldct_setsockopt", NULL },
	.cmd = &task_cli,
};
