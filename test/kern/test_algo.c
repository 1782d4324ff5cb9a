// SPDX-License-Identifier: GPL-2.0
/*
 * An algorithm with a struct_ops map and a TC role is its .bpf.c and one
 * registry file: bpf_ccsdummy (ccsdummy.bpf.c, ccsdummy.c) added to the
 * registry by this program, which links the loader library as any other
 * program would, attached with its TC role, carrying TCP over loopback in
 * a network namespace of its own, then detached; and its own command,
 * found and run through the registry as ccload runs an algorithm's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "cli.h"
#include "kcc.h"
#include "log.h"
#include "obj.h"
#include "pins.h"
#include "registry.h"
#include "stats_map.h"
#include "tcrole.h"
#include "util.h"
#include "ccsdummy.h"
#include "ccsdummy.skel.h"

#define CC "bpf_ccsdummy"

/* its registry file, all an algorithm takes besides its .bpf.c and .h */
extern const struct algo algo_ccsdummy; /* ccsdummy.c */

static void lo_up(void)
{
	struct ifreq ifr = {};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	cr_assert(fd >= 0);
	strcpy(ifr.ifr_name, "lo");
	cr_assert(!ioctl(fd, SIOCGIFFLAGS, &ifr));
	ifr.ifr_flags |= IFF_UP;
	cr_assert(!ioctl(fd, SIOCSIFFLAGS, &ifr));
	close(fd);
}

static void set_cc(int fd)
{
	cr_assert(!setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, CC, strlen(CC)), "%s",
		  strerror(errno));
}

/* @bytes over loopback, both ends on the CC; returns the sender's CC name. */
static void transfer(size_t bytes, char name[16])
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	static char buf[65536];
	int ls = socket(AF_INET, SOCK_STREAM, 0), c, st;
	pid_t pid;

	cr_assert(ls >= 0);
	set_cc(ls);
	cr_assert(!bind(ls, (void *)&sa, sizeof(sa)) && !listen(ls, 1));
	cr_assert(!getsockname(ls, (void *)&sa, &len));
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		int a = accept(ls, NULL, NULL);

		while (a >= 0 && read(a, buf, sizeof(buf)) > 0)
			;
		_exit(a < 0);
	}
	c = socket(AF_INET, SOCK_STREAM, 0);
	set_cc(c);
	cr_assert(!connect(c, (void *)&sa, sizeof(sa)), "%s", strerror(errno));
	len = 16;
	cr_assert(!getsockopt(c, IPPROTO_TCP, TCP_CONGESTION, name, &len));
	while (bytes) {
		ssize_t n = write(c, buf, bytes < sizeof(buf) ? bytes : sizeof(buf));

		cr_assert(n > 0);
		bytes -= (size_t)n;
	}
	close(c);
	cr_assert(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st));
	close(ls);
}

static size_t tunable_index(const char *name)
{
	const struct tunable *t = algo_tunable(&algo_ccsdummy, name);

	cr_assert(t, "no tunable %s in the entry", name);
	return (size_t)(t - algo_ccsdummy.tunables);
}

static int count_rec(const struct tc_rec *r, void *ctx)
{
	if (r->live && !strcmp(r->role, "ccsdummy-count") && !strcmp(r->dev, "lo"))
		++*(int *)ctx;
	return 0;
}

static int live_recs(void)
{
	int n = 0;

	tc_role_for_each(&algo_ccsdummy, count_rec, &n);
	return n;
}

Test(algo, struct_ops_and_tc_role_from_one_entry)
{
	struct tunable_set set = { .t = algo_tunable(&algo_ccsdummy, "step"), .v = 100 };
	struct tc_place place = { .role = "ccsdummy-count", .dev = "lo" };
	struct tc_place bad = { .role = "nosuch", .dev = "lo" };
	struct attach_opts o = {
		.algo = &algo_ccsdummy, .sets = &set, .n_sets = 1, .tc = &place, .n_tc = 1
	};
	struct ccs_stats s1, s2;
	char name[16] = "", dir[256];
	uint64_t cur[ALGO_TUNABLES_MAX], def[ALGO_TUNABLES_MAX];

	cr_assert(set.t);
	log_level = LOG_WARN;
	log_init_libbpf();
	cr_assert(!unshare(CLONE_NEWNET), "unshare: %s", strerror(errno));
	lo_up();
	cr_assert(!algo_add(&algo_ccsdummy));
	cr_assert_eq(algo_add(&algo_ccsdummy), -EEXIST);
	cr_assert_eq(algo_of_tc_role("ccsdummy-count"), &algo_ccsdummy);
	cr_assert_eq(tc_place_check(&algo_ccsdummy, &bad), -EINVAL);
	cr_assert(!attach_env_check());
	algo_detach(CC); /* what an earlier run may have left */

	cr_assert(!algo_attach(&o));
	cr_assert(cc_registered(CC));
	/* every tunable of the entry is in .rodata: the common ones too */
	cr_assert(!algo_tunables_read(&algo_ccsdummy, cur, def));
	cr_assert_eq(cur[tunable_index("stats")], 1);
	cr_assert_eq(cur[tunable_index("step")], 100);
	cr_assert_eq(live_recs(), 1);
	transfer(1 << 20, name);
	cr_assert_str_eq(name, CC);
	cr_assert(!stats_read_pinned(CC, &s1));
	cr_assert_geq(s1.v[CCS_STAT_FLOWS_INIT], 2, "flows_init %llu",
		      (unsigned long long)s1.v[CCS_STAT_FLOWS_INIT]);
	/* the role's packets, at the step the attach set: 1 MB is > 10 segments */
	cr_assert_geq(s1.v[DUMMY_STAT_PKTS], 100 * 10, "pkts %llu",
		      (unsigned long long)s1.v[DUMMY_STAT_PKTS]);
	cr_assert_eq(s1.v[DUMMY_STAT_PKTS] % 100, 0);

	/* the role again, loaded on the pins: same stats map, same .rodata */
	cr_assert(!tc_role_detach(&algo_ccsdummy, &place));
	cr_assert_eq(live_recs(), 0);
	cr_assert_eq(tc_role_detach(&algo_ccsdummy, &place), -ENOENT);
	cr_assert(!tc_role_attach(&algo_ccsdummy, NULL, &place));
	cr_assert_eq(live_recs(), 1);
	transfer(1 << 20, name);
	cr_assert(!stats_read_pinned(CC, &s2));
	cr_assert_gt(s2.v[DUMMY_STAT_PKTS], s1.v[DUMMY_STAT_PKTS] + 100 * 10);
	cr_assert_eq(s2.v[DUMMY_STAT_PKTS] % 100, 0);

	/* detach takes all of it */
	cr_assert(!algo_detach(CC));
	cr_assert(!cc_registered(CC));
	cr_assert_eq(live_recs(), 0);
	pin_dir(CC, dir, sizeof(dir));
	cr_assert(access(dir, F_OK), "%s is left", dir);
	{
		/* and no filter is left on lo (this namespace is the test's own) */
		FILE *f = popen("tc filter show dev lo egress 2>&1", "r");
		char line[256] = "";

		cr_assert(f);
		cr_assert(!fgets(line, sizeof(line), f), "left on lo: %s", line);
		pclose(f);
	}
}

/* ccload's dispatch of an algorithm's command: no kernel in it */
Test(algo, own_command_through_the_registry, .init = cr_redirect_stdout)
{
	char *hello[] = { "ccsdummy", "hello", "--step", "7", NULL };
	char *bad[] = { "ccsdummy", "hello", "--step", "101", NULL };
	char *extra[] = { "ccsdummy", "hello", "there", NULL };
	const struct algo *a;

	log_level = LOG_WARN;
	cr_assert_null(algo_of_cmd("ccsdummy"));
	cr_assert(!algo_add(&algo_ccsdummy));
	a = algo_of_cmd("ccsdummy");
	cr_assert_eq(a, &algo_ccsdummy);
	cr_assert_eq(cli_main(a->cmd, 4, hello), 0);
	cr_assert_eq(cli_main(a->cmd, 4, bad), 2, "101 is out of the step tunable's range");
	cr_assert_eq(cli_main(a->cmd, 3, extra), 2, "hello takes no operand");
	fflush(stdout);
	cr_assert_stdout_eq_str("hello from " CC ": its TC role would add 7 to pkts per packet\n");
}
