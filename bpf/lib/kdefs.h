/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel constants that are #defines and that no user-space header defines
 * either: the part of kdefs.bpf.h that the headers compiling as host C too
 * (each algorithm's arithmetic, the switch's queue model) can include.
 * kdefs.bpf.h includes it; the rest of its constants (errno, AF_*, ETH_P_*)
 * would clash with the C library's on the host.
 */
#ifndef CCSUITE_KDEFS_H
#define CCSUITE_KDEFS_H

/* include/vdso/time64.h; unsigned long long here, for the u64 sums they
 * go into */
#define NSEC_PER_SEC  1000000000ULL
#define USEC_PER_SEC  1000000ULL
#define NSEC_PER_USEC 1000ULL

/* include/net/tcp.h.  TCP_INFINITE_SSTHRESH: ssthresh's "none", above
 * any real window (tcp_cc_window_impossible()).  MAX_TCP_HEADER is L1_CACHE_ALIGN(128 + MAX_HEADER),
 * which depends on the kernel's configuration: 320 with x86-64
 * distribution kernels'. */
#define TCP_INIT_CWND	      10
#define TCP_INFINITE_SSTHRESH 0x7fffffff
#define MAX_TCP_HEADER	      320

/* include/linux/netdevice.h (GSO_MAX_SIZE before BIG TCP) */
#define GSO_LEGACY_MAX_SIZE 65536

#endif /* CCSUITE_KDEFS_H */
