/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bpf/flashpass.bpf.c (the CC) and tc/flashpass.bpf.c (the TC roles)
 * share inside the one bpf_flashpass object (bpftool gen object links
 * them): the ledger and emulation maps, the tunables and the flow key.  The
 * CC's file defines them; the TC file, built with CCS_LINKED_PART, names
 * them extern and the linker resolves them to the one definition.
 */
#ifndef CCSUITE_FLASHPASS_BPF_H
#define CCSUITE_FLASHPASS_BPF_H

#include "ccsuite.bpf.h"
#include "flashpass.h"

typedef struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FP_MAX_FLOWS);
	__type(key, struct fp_key);
	__type(value, struct fp_ledger);
} fp_ledgers_t;

/* The emulation pacer's view of each flow: written from user space only;
 * in the object so that it is pinned and removed with the algorithm.
 * Twice the ledgers: ccload gives an LRU up to as many again (obj.c). */
typedef struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2 * FP_MAX_FLOWS);
	__type(key, struct fp_key);
	__type(value, struct fp_emu);
} fp_emu_t;

/* The pacer's options the kernel's credit loop needs (tunable loop):
 * written by ccload flashpass run at its start. */
typedef struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_loop_cfg);
} fp_loop_cfg_t;

#ifdef CCS_LINKED_PART
extern fp_ledgers_t fp_ledgers SEC(".maps");
extern fp_emu_t fp_emu SEC(".maps");
extern fp_loop_cfg_t fp_loop_cfg SEC(".maps");
FP_TUNABLES(CCS_TUNABLE_EXTERN)
#else
fp_ledgers_t fp_ledgers SEC(".maps");
fp_emu_t fp_emu SEC(".maps");
fp_loop_cfg_t fp_loop_cfg SEC(".maps");
FP_TUNABLES(CCS_TUNABLE_RODATA)
#endif

/* The ledger key of a TCP flow of network namespace @netns (its cookie)
 * from the sending host's side: its local address and port first,
 * addresses v4-mapped for IPv4. */
static __always_inline void fp_key_set(struct fp_key *k, __u64 netns, const __u32 *local,
				       const __u32 *remote, __u16 lport, __u16 rport)
{
	__builtin_memcpy(k->saddr, local, 16);
	__builtin_memcpy(k->daddr, remote, 16);
	k->sport = lport;
	k->dport = rport;
	k->scope = 0;
	k->netns = netns;
}

#endif /* CCSUITE_FLASHPASS_BPF_H */
