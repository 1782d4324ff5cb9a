/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tunables, listed once per algorithm in bpf/<algo>.h as an X-macro:
 *
 *	#define FOO_TUNABLES(X) \
 *		X(name, KIND, min, max, default, "help") ...
 *
 * The BPF object declares each as a `const volatile` in .rodata with its
 * default (CCS_TUNABLE_RODATA), ccload writes it between open and load,
 * and the registry entries (loader/algos/<algo>.c) that ccload parses and
 * lists are made from the same list, so a tunable cannot be missing from
 * .rodata.  KIND: UINT, BOOL (0/1), SIZE (bytes), RATE (bit/s), TIME (ns);
 * RATE and TIME are 64-bit, the others 32-bit.
 */
#ifndef CCSUITE_TUNABLES_H
#define CCSUITE_TUNABLES_H

#define CCS_TUN_TYPE_UINT __u32
#define CCS_TUN_TYPE_BOOL __u32
#define CCS_TUN_TYPE_SIZE __u32
#define CCS_TUN_TYPE_RATE __u64
#define CCS_TUN_TYPE_TIME __u64

#define CCS_TUNABLE_RODATA(name, kind, min, max, def, help) \
	const volatile CCS_TUN_TYPE_##kind name = (def);

/* The same tunables in another .bpf.c linked into the algorithm's object
 * (bpftool gen object): the linker resolves them to the one definition. */
#define CCS_TUNABLE_EXTERN(name, kind, min, max, def, help) \
	extern const volatile CCS_TUN_TYPE_##kind name;

/* Tunables every algorithm has; bpf/lib/ccsuite.bpf.h defines them. */
#define CCS_COMMON_TUNABLES(X)                                             \
	X(stats, BOOL, 0, 1, 1,                                            \
	  "keep the stats counters (0: no stats map update on any ACK or " \
	  "packet path, counters stay 0 but flows_init and flows_release)")

#endif /* CCSUITE_TUNABLES_H */
