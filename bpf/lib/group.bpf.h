/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Group tables (group.h) on the BPF side.  A member joins with
 * ccs_group_join() at each update and learns whether it has just been
 * counted (then it adds all it contributes, else what changed); it goes
 * with ccs_group_leave(), and the entry goes with its last member.  Two
 * members racing are fine: an entry made twice is made once (BPF_NOEXIST);
 * a member joining an entry its last other member is deleting finds it
 * gone at its next update and makes it again; a change through a pointer
 * to an element reused for another key meanwhile is taken back.
 */
#ifndef CCSUITE_GROUP_BPF_H
#define CCSUITE_GROUP_BPF_H

#include "ccsuite.bpf.h"
#include "group.h"

/*
 * Elements of a hash map are recycled: a pointer from a lookup can point,
 * a moment later, at the entry of another key (deleted by its last member
 * leaving, or evicted, and made again).  So every change through such a
 * pointer is checked against the incarnation afterwards and taken back if
 * it changed; the entry's new owner starts from its own fresh value.
 */
static __always_inline __u32 ccs_group_gen(const struct ccs_group *g)
{
	return *(const volatile __u32 *)&g->gen;
}

/* Is @g still incarnation @gen (after a change made through it)? */
static __always_inline bool ccs_group_still(const struct ccs_group *g, __u32 gen)
{
	return ccs_group_gen(g) == gen;
}

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
	__u32 cur;

	*joined = false;
	if (!g) {
		((struct ccs_group *)fresh)->gen = bpf_get_prandom_u32() | 1;
		if (!bpf_map_update_elem(table, key, fresh, BPF_NOEXIST))
			ccs_stat_inc(made_stat);
		g = bpf_map_lookup_elem(table, key);
		if (!g)
			return NULL;
	}
	cur = ccs_group_gen(g);
	if (*gen != cur) {
		__sync_fetch_and_add(&g->members, 1);
		if (ccs_group_gen(g) != cur) {
			/* deleted and reused meanwhile: not ours to count in */
			__sync_fetch_and_add(&g->members, -1);
			return NULL;
		}
		if (*gen)
			ccs_stat_inc(rejoin_stat);
		*gen = cur;
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
		__u32 cur = *gen;

		__sync_fetch_and_add(&g->members, -1);
		if (!ccs_group_still(g, cur))
			__sync_fetch_and_add(&g->members, 1); /* another key's now */
		else if (!*(volatile __u32 *)&g->members)
			bpf_map_delete_elem(table, key);
	}
	*gen = 0;
}

#endif /* CCSUITE_GROUP_BPF_H */
