/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_flashpass's emulation pacer: for every flow with a ledger and data
 * to send, emulation packets at the flow's emulation rate, from a raw
 * socket in the sender's network namespace (one per namespace and
 * family: IPv4, or IPv6 for a flow whose addresses are not v4-mapped);
 * once per RTT, the rate control of flashpass/rc.h from the credits that
 * came back.  One thread; it only reads the ledgers and writes its own
 * view (map fp_emu).
 */
#ifndef CCLOAD_PACER_H
#define CCLOAD_PACER_H

#include <signal.h>
#include <stdint.h>

#include "flashpass.h"

#define PACER_MAX_NETNS 64

struct pacer_opts {
	uint64_t link_bps; /* the sender's link: r_max = fp_emu_pps_max() */
	/* The senders' namespaces: a flow's emulation packets leave from the
	 * one that holds its socket and has its source address; a flow of
	 * none of them gets none.  None named: ours. */
	const char *netns[PACER_MAX_NETNS];
	size_t n_netns;
	uint16_t port;		  /* bpf_flashpass's port tunable */
	unsigned int scan_us;	  /* how often the ledgers are read */
	unsigned int rt_priority; /* SCHED_FIFO priority of the pacer, 0: none */
	int release;		  /* bpf_flashpass's release tunable: wake flows at T + T_wait */
	int batched;		  /* its credit_batch is above 1: a credit stands for several */
	int loop;		  /* its loop tunable: credits become emulation packets in
				   * the kernel; the pacer only starts each flow's loop */
	uint64_t rel_expire_ns;	  /* a release later than this expires */
	unsigned int jitter_pct;  /* emulation gaps drawn within this percent of the rate's */
	struct fp_rc_params rc;
};

#define PACER_LAG_MAX	 2000000ULL /* ns: a flow further behind restarts now */
#define PACER_REL	 2048	    /* releases a flow has pending: T_wait of 266 ms at r_max */
/*
 * rel_expire_ns's default.  After a stall of the machine (the pacer and
 * the senders held up for milliseconds, the data queue drained), what
 * fell due meanwhile leaves at PACER_REL_RATE, above the link: the data
 * queue takes about 1.4 times the expiry of the link's time (a 1.5-fold
 * catch-up of releases due at 0.95 of it) on top of what the stall held
 * in the senders' links.  At 2 ms that overran the 30 KB buffer (2.4 ms);
 * 1 ms leaves room, and few releases are that late (docs/flashpass.md,
 * "Late releases expire"; the pacer's report counts them).
 */
#define PACER_REL_EXPIRE 1000000ULL

struct pacer_report {
	uint64_t flows;	   /* flows that had data to send at some time */
	uint64_t sent;	   /* emulation packets */
	uint64_t over;	   /* of which over-provisioned */
	uint64_t not_over; /* not sent: over-provisioned, and no over-provisioning */
	uint64_t send_errors;
	uint64_t sent_v6;   /* of which IPv6 ones */
	uint64_t no_sender; /* of those, whose source address none of the namespaces has */
	double cpu_s;	    /* the pacer's user + system time */
	double wall_s;
	uint64_t peak_pps; /* the highest rate over one second */
	uint64_t capped;   /* emulation packets the rate cap held back (pacer.c, emu_ok()) */
	/* how late packets left after their due time: up to 100 us, 1 ms,
	 * beyond; the latest; and time skipped by flows PACER_LAG_MAX behind */
	uint64_t late[3];
	uint64_t late_max_ns;
	uint64_t skipped_ns;
	/* release: releases sent, not sent (a send error), not sent as their
	 * credit was seen lost, not sent as their credit was not known with
	 * the releases' bucket low, not sent as over rel_expire_ns late, and
	 * not kept for want of room */
	uint64_t released;
	uint64_t release_errors;
	uint64_t release_lost;
	uint64_t release_unjudged;
	uint64_t release_expired;
	uint64_t release_full;
};

/* The signals whose handler sets pacer_run()'s *stop (the caller's):
 * it blocks them while it waits for its worker. */
#define PACER_STOP_SIGNALS                       \
	{                                        \
		SIGINT, SIGTERM, SIGHUP, SIGQUIT \
	}

/* Run until *@stop; the ledgers are those pinned by bpf_flashpass's
 * attach.  The pacer proper runs in a child process without privileges
 * (pacer.c, pacer_drop()); this one waits for it.  0, or < 0 with a
 * message printed. */
int pacer_run(const struct pacer_opts *o, volatile sig_atomic_t *stop, struct pacer_report *r);

#endif
