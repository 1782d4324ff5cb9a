/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Group tables (group.h) on the BPF side.  A member joins at each update
 * and learns whether it has just been counted (then it adds all it
 * contributes, else what changed); it leaves at its end, and the entry
 * goes with its last member.  Members are a count (ccs_group_join()) or a
 * set of up to 32 slots, one per member (ccs_group_join_slot()).
 *
 * Elements of a hash map are recycled: a pointer from a lookup can point,
 * a moment later, at the entry of another key (deleted by its last member
 * leaving, or evicted, and made again).  So gen and members form one word
 * changed only by compare-and-swap against the incarnation the member
 * knows: a join or leave through a stale pointer fails instead of landing
 * on the new owner's count.  The last member leaving sets gen to 0 before
 * it deletes the entry, so nobody joins an entry on its way out (they make
 * it again at their next update).  An entry made twice is made once
 * (BPF_NOEXIST).  Sums beyond the word (the algorithm's) are changed with
 * ccs_group_still() checks: those are exact unless an element is reused
 * within the few instructions between a change and its check.
 */
#ifndef CCSUITE_GROUP_BPF_H
#define CCSUITE_GROUP_BPF_H

#include "ccsuite.bpf.h"
#include "group.h"

/* Compare-and-swap attempts before a join gives up for this update (other
 * members changing the word meanwhile: each attempt lost is another
 * member's change made); a leave, which cannot come back, tries longer. */
#define CCS_GROUP_TRIES	      8
#define CCS_GROUP_LEAVE_TRIES 64

union ccs_group_word {
	struct ccs_group g;
	__u64 w;
};

static __always_inline struct ccs_group ccs_group_read(const struct ccs_group *g)
{
	union ccs_group_word v;

	v.w = *(const volatile __u64 *)g;
	return v.g;
}

static __always_inline __u32 ccs_group_gen(const struct ccs_group *g)
{
	return *(const volatile __u32 *)&g->gen;
}

/* Is @g still incarnation @gen (after a change made through it)? */
static __always_inline bool ccs_group_still(const struct ccs_group *g, __u32 gen)
{
	return ccs_group_gen(g) == gen;
}

/* @g from @old to @new, if nobody changed it meanwhile */
static __always_inline bool ccs_group_swap(struct ccs_group *g, struct ccs_group old,
					   struct ccs_group new)
{
	union ccs_group_word o = { .g = old }, n = { .g = new };

	return __sync_val_compare_and_swap((__u64 *)g, o.w, n.w) == o.w;
}

/* The entry @key of @table, made from @fresh (a zeroed value of the
 * table's value size) if missing; NULL when the table cannot give one
 * (*@full: taken as full; the error a full table gives is not the same
 * on every kernel). */
static __always_inline struct ccs_group *ccs_group_get(void *table, const void *key, void *fresh,
						       __u32 made_stat, bool *full)
{
	struct ccs_group *g = bpf_map_lookup_elem(table, key);

	if (g)
		return g;
	((struct ccs_group *)fresh)->gen = bpf_get_prandom_u32() | 1;
	if (!bpf_map_update_elem(table, key, fresh, BPF_NOEXIST))
		ccs_stat_inc(made_stat);
	g = bpf_map_lookup_elem(table, key);
	*full = !g;
	return g;
}

/*
 * Take the member of incarnation @gen (slot @slot, or a count with @slot
 * >= 32) out of @g; with @kill, the last one leaving marks the entry as
 * going (gen 0).  Returns whether it did so.
 */
static __always_inline bool ccs_group_drop(struct ccs_group *g, __u32 gen, __u32 slot, bool kill)
{
	__u32 i;

	for (i = 0; i < CCS_GROUP_LEAVE_TRIES; i++) {
		struct ccs_group cur = ccs_group_read(g), next = cur;

		if (cur.gen != gen)
			return false; /* another incarnation's now: not counted there */
		if (slot < 32)
			next.members &= ~(1U << slot);
		else if (next.members)
			next.members--;
		if (kill && !next.members)
			next.gen = 0;
		if (ccs_group_swap(g, cur, next))
			return !next.gen;
	}
	return false;
}

/*
 * Count a member in @g, the entry @key of @table, if it is not counted in
 * its incarnation *@gen: the members as @nslots slots (one is taken,
 * *@slot) or, with @nslots 0, as a count.  An entry left marked as going
 * (its delete failed) is made a new incarnation.  Returns false when the
 * member could not be counted: the entry is going, its slots are full
 * (*@full), other members kept changing it, or @g turned out to be
 * another key's element by the time it was counted (then it is taken out
 * again: it knows that incarnation now).
 */
static __always_inline bool ccs_group_count_in(void *table, const void *key, struct ccs_group *g,
					       __u32 *gen, __u32 nslots, __u32 *slot, bool *joined,
					       bool *full)
{
	__u32 i, s = 32;

	for (i = 0; i < CCS_GROUP_TRIES; i++) {
		struct ccs_group cur = ccs_group_read(g), next = cur;

		if (cur.gen && cur.gen == *gen)
			return true;
		if (!cur.gen) {
			if (cur.members)
				return false;
			next.gen = bpf_get_prandom_u32() | 1;
		}
		if (nslots) {
			for (s = 0; s < nslots && s < 32; s++)
				if (!(next.members & (1U << s)))
					break;
			if (s >= nslots || s >= 32) {
				*full = true;
				return false;
			}
			next.members |= 1U << s;
		} else {
			next.members++;
		}
		if (!ccs_group_swap(g, cur, next))
			continue;
		if (bpf_map_lookup_elem(table, key) != g) {
			ccs_group_drop(g, next.gen, nslots ? s : 32, false);
			return false;
		}
		*gen = next.gen;
		*slot = nslots ? s : 0;
		*joined = true;
		return true;
	}
	return false;
}

/*
 * The entry @key of @table for a member counted in incarnation *@gen (0:
 * none), made if missing; NULL when the member is not counted in it now.
 * *@joined: it was not counted in this incarnation and now is.  Stats
 * @made_stat and @rejoin_stat count entries made and members that joined
 * an entry again.
 */
static __always_inline struct ccs_group *ccs_group_join(void *table, const void *key, void *fresh,
							__u32 *gen, bool *joined, __u32 made_stat,
							__u32 rejoin_stat)
{
	__u32 was = *gen, slot;
	bool full = false;
	struct ccs_group *g = ccs_group_get(table, key, fresh, made_stat, &full);

	*joined = false;
	if (!g || !ccs_group_count_in(table, key, g, gen, 0, &slot, joined, &full))
		return NULL;
	if (*joined && was)
		ccs_stat_inc(rejoin_stat);
	return g;
}

/*
 * ccs_group_join() for a group of @nslots slots: a member that joins takes
 * a free one (*@slot; the member keeps it).  *@full: NULL because every
 * slot is taken or the table is full (else NULL is for this update only:
 * the entry is going, or busy).
 */
static __always_inline struct ccs_group *ccs_group_join_slot(void *table, const void *key,
							     void *fresh, __u32 *gen, __u32 nslots,
							     __u32 *slot, bool *joined, bool *full,
							     __u32 made_stat, __u32 rejoin_stat)
{
	__u32 was = *gen;
	struct ccs_group *g;

	*joined = false;
	*full = false;
	g = ccs_group_get(table, key, fresh, made_stat, full);
	if (!g || !ccs_group_count_in(table, key, g, gen, nslots, slot, joined, full))
		return NULL;
	if (*joined && was)
		ccs_stat_inc(rejoin_stat);
	return g;
}

/* The entry the member is counted in, or NULL (none, or another
 * incarnation: its contribution is not there to take back). */
static __always_inline struct ccs_group *ccs_group_of(void *table, const void *key, __u32 gen)
{
	struct ccs_group *g = gen ? bpf_map_lookup_elem(table, key) : NULL;

	return g && ccs_group_gen(g) == gen ? g : NULL;
}

/*
 * The member of incarnation *@gen (slot @slot of a group of slots, or
 * @slot ~0U for a count) leaves @g (from ccs_group_of()); the last one
 * marks the entry as going and deletes it (should the delete fail, the
 * next member to come makes the marked entry a new incarnation).
 */
static __always_inline void ccs_group_leave_as(void *table, const void *key, struct ccs_group *g,
					       __u32 *gen, __u32 slot)
{
	if (g && ccs_group_drop(g, *gen, slot < 32 ? slot : 32, true))
		bpf_map_delete_elem(table, key);
	*gen = 0;
}

static __always_inline void ccs_group_leave(void *table, const void *key, struct ccs_group *g,
					    __u32 *gen)
{
	ccs_group_leave_as(table, key, g, gen, ~0U);
}

#endif /* CCSUITE_GROUP_BPF_H */
