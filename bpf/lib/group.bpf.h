/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Group tables (group.h) on the BPF side.  A member joins with
 * ccs_group_join() at each update and learns whether it has just been
 * counted (then it adds all it contributes, else what changed); it goes
 * with ccs_group_leave(), and the entry goes with its last member.  Two
 * members racing are fine: an entry made twice is made once (BPF_NOEXIST);
 * a member joining an entry its last other member is deleting finds it
 * gone at its next update and makes it again.
 */
#ifndef CCSUITE_GROUP_BPF_H
#define CCSUITE_GROUP_BPF_H

#include "ccsuite.bpf.h"
#include "group.h"

/*
 * The entry @key of @table for a member counted in incarnation *@gen (0:
 * none), made from @fresh (a zeroed value of the table's value size) if
 * missing; NULL when the table cannot give one.  *@joined: the member was
 * not counted in this incarnation and now is.  Stats @made_stat and
 * @rejoin_stat count entries made and members that joined an entry again.
 */
static __always_inline struct ccs_group *ccs_group_join(void *table, const void *key, void *fresh,
							__u32 *gen, bool *joined, __u32 made_stat,
							__u32 rejoin_stat)
{
	struct ccs_group *g = bpf_map_lookup_elem(table, key);

	*joined = false;
	if (!g) {
		((struct ccs_group *)fresh)->gen = bpf_get_prandom_u32() | 1;
		if (!bpf_map_update_elem(table, key, fresh, BPF_NOEXIST))
			ccs_stat_inc(made_stat);
		g = bpf_map_lookup_elem(table, key);
		if (!g)
			return NULL;
	}
	if (*gen != g->gen) {
		if (*gen)
			ccs_stat_inc(rejoin_stat);
		__sync_fetch_and_add(&g->members, 1);
		*gen = g->gen;
		*joined = true;
	}
	return g;
}

/* The entry the member is counted in, or NULL (none, or another
 * incarnation: its contribution is not there to take back). */
static __always_inline struct ccs_group *ccs_group_of(void *table, const void *key, __u32 gen)
{
	struct ccs_group *g = gen ? bpf_map_lookup_elem(table, key) : NULL;

	return g && g->gen == gen ? g : NULL;
}

/* The member leaves @g (from ccs_group_of()); the entry goes with the last. */
static __always_inline void ccs_group_leave(void *table, const void *key, struct ccs_group *g,
					    __u32 *gen)
{
	if (g) {
		__sync_fetch_and_add(&g->members, -1);
		if (!*(volatile __u32 *)&g->members)
			bpf_map_delete_elem(table, key);
	}
	*gen = 0;
}

#endif /* CCSUITE_GROUP_BPF_H */
