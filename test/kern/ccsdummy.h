/* SPDX-License-Identifier: GPL-2.0 */
/* bpf_ccsdummy, a test-only algorithm (test/kern/test_algo.c): its lists. */
#ifndef CCSUITE_CCSDUMMY_H
#define CCSUITE_CCSDUMMY_H

#include "stats.h"
#include "tunables.h"

#define DUMMY_STATS(X, P) X(P, PKTS, pkts, COUNTER, "TC role: step per TCP packet out")

enum dummy_stat {
	DUMMY_STAT__BASE = CCS_STAT_ALGO - 1,
	DUMMY_STATS(CCS_STAT_ENUM, DUMMY) DUMMY_STAT_MAX,
};

#define DUMMY_TUNABLES(X) X(step, UINT, 1, 100, 1, "what the TC role adds to pkts per packet")

#endif
