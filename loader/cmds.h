/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccload's generic commands, the front end over the library in
 * loader/lib/ (cli.h); an algorithm's own command is in its registry
 * entry (loader/algos/<algo>.c).
 */
#ifndef CCLOAD_CMDS_H
#define CCLOAD_CMDS_H

#include "cli.h"

extern const struct cli list_cli; /* cmd_cc.c */
extern const struct cli attach_cli;
extern const struct cli detach_cli;
extern const struct cli stats_cli;  /* cmd_stats.c */
extern const struct cli switch_cli; /* cmd_switch.c */
extern const struct cli tc_cli;	    /* cmd_tc.c */

/* ccload --man and --completion (doc.c): from @cmds (the generic ones)
 * and the registry's algorithms and their commands. */
int doc_man(FILE *f, const struct cli *const *cmds, size_t n);
int doc_completion(FILE *f, const struct cli *const *cmds, size_t n);

#endif
