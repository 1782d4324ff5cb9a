/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Windowed running max (or min) of a measurement, Kathleen Nichols'
 * algorithm as in Linux lib/win_minmax.c: three samples (best, 2nd best,
 * 3rd best) each from a later sub-window, so the best expires on time
 * without keeping every sample.  BPF cannot call the kernel's copy, so the
 * suite has its own; it also compiles as host C for the unit tests.
 */
#ifndef CCSUITE_MINMAX_H
#define CCSUITE_MINMAX_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
struct minmax_sample {
	__u32 t; /* time (any unit: rounds for bw, ms for RTT) */
	__u32 v; /* value */
};
struct minmax {
	struct minmax_sample s[3];
};
#endif

static inline __u32 ccs_minmax_get(const struct minmax *m)
{
	return m->s[0].v;
}

static inline __u32 ccs_minmax_reset(struct minmax *m, __u32 t, __u32 meas)
{
	struct minmax_sample val = { .t = t, .v = meas };

	m->s[2] = m->s[1] = m->s[0] = val;
	return m->s[0].v;
}

/* Age the samples: the best one leaves the window when it is older than
 * @win, and the others are promoted; keep sub-window samples fresh. */
static inline __u32 ccs_minmax_subwin_update(struct minmax *m, __u32 win,
					     const struct minmax_sample *val)
{
	__u32 dt = val->t - m->s[0].t;

	if (dt > win) {
		m->s[0] = m->s[1];
		m->s[1] = m->s[2];
		m->s[2] = *val;
		if (val->t - m->s[0].t > win) {
			m->s[0] = m->s[1];
			m->s[1] = m->s[2];
			m->s[2] = *val;
		}
	} else if (m->s[1].t == m->s[0].t && dt > win / 4) {
		/* a quarter of the window passed without a 2nd choice */
		m->s[2] = m->s[1] = *val;
	} else if (m->s[2].t == m->s[1].t && dt > win / 2) {
		/* half the window passed without a 3rd choice */
		m->s[2] = *val;
	}
	return m->s[0].v;
}

/* The max over the last @win time units, @meas measured at @t. */
static inline __u32 ccs_minmax_running_max(struct minmax *m, __u32 win, __u32 t, __u32 meas)
{
	struct minmax_sample val = { .t = t, .v = meas };

	if (val.v >= m->s[0].v || val.t - m->s[2].t > win)
		return ccs_minmax_reset(m, t, meas); /* new max, or window empty */
	if (val.v >= m->s[1].v)
		m->s[2] = m->s[1] = val;
	else if (val.v >= m->s[2].v)
		m->s[2] = val;
	return ccs_minmax_subwin_update(m, win, &val);
}

#endif /* CCSUITE_MINMAX_H */
