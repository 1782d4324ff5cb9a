/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccload's commands, declared (after xdp-tools' params): a command is one
 * struct cli, its subcommands, options (with which subcommands take each)
 * and operands, and two functions, one for an option and one that runs.
 * cli_main() is every command's opening: --help, the subcommand, the
 * options (refusing one its subcommand does not take), the number of
 * operands; the help text, the man page and the bash completion
 * (ccload --man, --completion) are generated from the same table.
 *
 * The generic commands are loader/cmd_*.c; an algorithm's own command
 * (ccload task, flashpass, lia, ppqd) is in its registry entry, struct
 * algo's cmd (loader/algos/<algo>.c), and ccload dispatches to it there.
 */
#ifndef CCLOAD_CLI_H
#define CCLOAD_CLI_H

#include <stddef.h>
#include <stdio.h>

#define SUB(i)	(1U << (i))
#define SUB_ALL 0U

/*
 * Names of values the completion offers (ccload --completion): an
 * option's argument or an operand named with one of these is such a
 * value.  Any other name is completed with nothing.
 */
#define ARG_ALGO  "<algo>"	     /* an algorithm of the registry */
#define ARG_DEV	  "<dev>"	     /* a network device */
#define ARG_ROLE  "<role>"	     /* a TC role of the registry */
#define ARG_SET	  "k=v"		     /* a tunable of the line's algorithm */
#define ARG_TC	  "ROLE=DEV[@NETNS]" /* a TC role of the line's algorithm */
#define ARG_NETNS "NAME"	     /* a named network namespace */
#define ARG_FILE  "FILE"

struct cli_opt {
	const char *name;  /* long name; NULL ends the table */
	int key;	   /* short letter, what cli_getopt() returns */
	const char *arg;   /* its argument's name; NULL: a flag */
	unsigned int subs; /* SUB(i) | ...: the subcommands that take it */
	const char *help;
};

#define CLI_MAX_ARGS 3

/* The operands of a subcommand (or of a command that has none). */
struct cli_args {
	unsigned char min, max;		 /* how many */
	const char *names[CLI_MAX_ARGS]; /* each one's name (ARG_*, or "PID") */
};

struct cli {
	const char *cmd;	 /* "switch" */
	const char *summary;	 /* one line, for ccload --help */
	const char *const *subs; /* NULL-terminated; NULL: none */
	const char *synopsis;	 /* usage lines */
	const char *about;
	const struct cli_opt *opts;
	/* one per subcommand, in subs' order (one when there are none);
	 * NULL: no operands */
	const struct cli_args *args;
	/* the command's state while it parses and runs: state_size bytes,
	 * a copy of *defaults (zeros when NULL) */
	size_t state_size;
	const void *defaults;
	/* option @key (its argument @arg) into @st: 0, or an exit status
	 * after a message */
	int (*opt)(void *st, int key, char *arg);
	/* the command: subcommand @sub (-1: none), its @argc operands */
	int (*run)(void *st, int sub, int argc, char **argv);
};

/*
 * ccload <cmd> ...: @argv[0] is the command's name.  Prints the help for
 * -h/--help, checks the subcommand, options and operands, then runs it.
 * Returns the exit status: 0, 1 (it failed), 2 (bad usage).
 */
int cli_main(const struct cli *c, int argc, char **argv);

void cli_usage(const struct cli *c, FILE *f);
/* The index of subcommand @name, or -1 (with a message). */
int cli_sub(const struct cli *c, const char *name);
/* getopt_long() over @c's options for subcommand @sub (-1: the command
 * has none): an option's key, -1 at the end, '?' after a message.  -h and
 * --help print the help and return 'h'. */
int cli_getopt(const struct cli *c, int sub, int argc, char **argv);
/* The operands of subcommand @sub (-1: none); NULL when it takes none. */
const struct cli_args *cli_args_of(const struct cli *c, int sub);

#endif
