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

struct ccs_group {
	__u32 gen;     /* incarnation; never 0 */
	__u32 members; /* flows counted in this incarnation */
};

#endif /* CCSUITE_GROUP_H */
