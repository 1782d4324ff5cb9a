/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarative options for ccload's commands (after xdp-tools' params): a
 * command declares its subcommands and options once, with which
 * subcommands take each option; parsing refuses an option its subcommand
 * does not take, and the help text is generated from the same table.
 */
#ifndef CCLOAD_OPTS_H
#define CCLOAD_OPTS_H

#include <stdio.h>

#define SUB(i)	(1U << (i))
#define SUB_ALL 0U

struct cli_opt {
	const char *name;  /* long name; NULL ends the table */
	int key;	   /* short letter, what cli_getopt() returns */
	const char *arg;   /* its argument's name; NULL: a flag */
	unsigned int subs; /* SUB(i) | ...: the subcommands that take it */
	const char *help;
};

struct cli {
	const char *cmd;	 /* "switch" */
	const char *const *subs; /* NULL-terminated; NULL: none */
	const char *synopsis;	 /* usage lines */
	const char *about;
	const struct cli_opt *opts;
};

void cli_usage(const struct cli *c, FILE *f);
/* The index of subcommand @name, or -1 (with a message). */
int cli_sub(const struct cli *c, const char *name);
/* getopt_long() over @c's options for subcommand @sub (-1: the command
 * has none): an option's key, -1 at the end, '?' after a message.  -h and
 * --help print the help and return 'h'. */
int cli_getopt(const struct cli *c, int sub, int argc, char **argv);

#endif
