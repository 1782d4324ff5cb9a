/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccload's generic commands, the front end over the library in
 * loader/lib/ (cli.h); an algorithm's own command is in its registry
 * entry (loader/algos/<algo>.c).
 */
#ifndef CCLOAD_CMDS_H
#define CCLOAD_CMDS_H

#include "attach.h"
#include "cli.h"

extern const struct cli list_cli; /* cmd_cc.c */
extern const struct cli attach_cli;
extern const struct cli detach_cli;
extern const struct cli stats_cli;   /* cmd_stats.c */
extern const struct cli switch_cli;  /* cmd_switch.c */
extern const struct cli tc_cli;	     /* cmd_tc.c */
extern const struct cli service_cli; /* cmd_service.c */

#define ATTACH_MAX_SETS 32
#define ATTACH_MAX_TC	16

/* One attach's options, parsed and checked: what algo_attach() takes, and
 * the storage its pointers name. */
struct attach_line {
	struct tunable_set sets[ATTACH_MAX_SETS];
	struct tc_place tc[ATTACH_MAX_TC];
	struct attach_opts o;
};

/* `ccload attach`'s words without the "attach" (@argv[0] is skipped as a
 * program name: pass it), parsed and checked as attach checks them into
 * @l, whose pointers then name @argv's strings: 0, or 2 after a message.
 * Nothing is loaded. */
int attach_parse(int argc, char **argv, struct attach_line *l);

/* ccload --man and --completion (doc.c): from @cmds (the generic ones)
 * and the registry's algorithms and their commands. */
int doc_man(FILE *f, const struct cli *const *cmds, size_t n);
int doc_completion(FILE *f, const struct cli *const *cmds, size_t n);

#endif
