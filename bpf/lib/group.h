/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A group table: flows that belong together (bpf_tldct's tasks, an MPTCP
 * connection's subflows) share one entry of a bounded hash map, keyed as
 * the algorithm likes, whose value starts with a struct ccs_group and goes
 * on with the algorithm's sums.  gen (random, nonzero) names the entry's
 * incarnation and each member keeps the gen it is counted in: a member of
 * an entry that was evicted from a full LRU table, or deleted and made
 * again, finds another gen (or none) at its next update and joins afresh
 * with everything it contributes, so the table heals by itself.  The
 * functions are in group.bpf.h.
 */
#ifndef CCSUITE_GROUP_H
#define CCSUITE_GROUP_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* One 64-bit word, changed only by compare-and-swap (group.bpf.h). */
struct ccs_group {
	__u32 gen;     /* incarnation; 0: none (the entry is going) */
	__u32 members; /* the flows counted in it: a count, or a set of slots */
} __attribute__((aligned(8)));

/* How many members a group of slots (ccs_group_join_slot()) has. */
static inline unsigned int ccs_group_slots_used(__u32 members)
{
	unsigned int n = 0;

	for (; members; members &= members - 1)
		n++;
	return n;
}

#endif /* CCSUITE_GROUP_H */
