/* SPDX-License-Identifier: GPL-2.0 */
/* Environment checks, bpffs, pin directories and sysctls; small
 * definitions every C program of the suite shares. */
#ifndef CCLOAD_UTIL_H
#define CCLOAD_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include "kdefs.h" /* NSEC_PER_SEC, the kernel's constants host C may use */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* C libraries older than glibc 2.32 do not name it (after <netinet/in.h>,
 * whose enum would otherwise meet the macro) */
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

#define BPFFS	       "/sys/fs/bpf"
#define PIN_ROOT       BPFFS "/ccsuite"
#define RUN_DIR	       "/run/ccsuite"
#define SYSCTL_CC      "/proc/sys/net/ipv4/tcp_congestion_control"
#define SYSCTL_AVAIL   "/proc/sys/net/ipv4/tcp_available_congestion_control"
#define SYSCTL_ALLOWED "/proc/sys/net/ipv4/tcp_allowed_congestion_control"
#define VMLINUX_BTF    "/sys/kernel/btf/vmlinux"

/* Each prints one line and returns < 0 when the check fails. */
int need_root(void);
int need_btf(void);
int need_bpffs(void); /* mounts bpffs when it is missing */

int mkdir_p(const char *path);
int lock_host_state(void);    /* one ccload changing host state at a time */
void unlock_host_state(void); /* for a process that goes on running */
/* Test hook: with CCLOAD_FAULT=@step in the environment the process is
 * SIGKILLed here (test/net/t_attach_kill.sh: what each partial attach
 * leaves, and that attach or detach recovers from it). */
void fault_point(const char *step);
int cgroup2_root(char *buf, size_t len);
void rm_pin_dir(const char *dir);

/* CLOCK_MONOTONIC in ns: bpf_ktime_get_ns()'s clock. */
uint64_t mono_ns(void);
int read_line(const char *path, char *buf, size_t len);
int write_str(const char *path, const char *s);
/* An address kept as IPv6 (IPv4 v4-mapped), network order, as text. */
void addr6_str(const uint32_t a[4], char *buf, size_t len);
/* Is @name a word of the space-separated list in file @path? */
bool word_in_file(const char *path, const char *name);

#endif
