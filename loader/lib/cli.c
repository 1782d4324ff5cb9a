// SPDX-License-Identifier: GPL-2.0
/* ccload's command skeleton and help texts (cli.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "log.h"

#define MAX_OPTS 32

#define HELP_COL   29
#define HELP_WIDTH 79

/* @text from column HELP_COL on, broken at spaces before HELP_WIDTH. */
static void print_wrapped(FILE *f, const char *text)
{
	int col = HELP_COL;

	while (*text) {
		const char *sp = strchr(text, ' ');
		int w = sp ? (int)(sp - text) : (int)strlen(text);

		if (col > HELP_COL && col + 1 + w > HELP_WIDTH) {
			fprintf(f, "\n%*s", HELP_COL - 1, "");
			col = HELP_COL;
		}
		fprintf(f, "%s%.*s", col > HELP_COL ? " " : " ", w, text);
		col += w + 1;
		text += w;
		while (*text == ' ')
			text++;
	}
	fprintf(f, "\n");
}

void cli_usage(const struct cli *c, FILE *f)
{
	const struct cli_opt *o;
	char left[64];

	fprintf(f, "Usage: %s\n%s\n", c->synopsis, c->about);
	for (o = c->opts; o && o->name; o++) {
		snprintf(left, sizeof(left), "-%c, --%s%s%s", o->key, o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		char text[512];
		size_t len = (size_t)snprintf(text, sizeof(text), "%s", o->help);

		if (c->subs && o->subs) {
			const char *sep = " (";
			int i;

			for (i = 0; c->subs[i] && len < sizeof(text); i++)
				if (o->subs & SUB(i)) {
					len += (size_t)snprintf(text + len, sizeof(text) - len,
								"%s%s", sep, c->subs[i]);
					sep = ", ";
				}
			if (len < sizeof(text))
				snprintf(text + len, sizeof(text) - len, ")");
		}
		fprintf(f, "  %-26s", left);
		print_wrapped(f, text);
	}
	fprintf(f, "  %-26s %s\n", "-h, --help", "this text");
}

int cli_sub(const struct cli *c, const char *name)
{
	int i;

	for (i = 0; c->subs && c->subs[i]; i++)
		if (!strcmp(c->subs[i], name))
			return i;
	pr_warn("%s: unknown command '%s' (", c->cmd, name);
	for (i = 0; c->subs && c->subs[i]; i++)
		fprintf(stderr, "%s%s", i ? ", " : "", c->subs[i]);
	fprintf(stderr, ")\n");
	return -1;
}

int cli_getopt(const struct cli *c, int sub, int argc, char **argv)
{
	struct option lo[MAX_OPTS + 2] = {};
	char so[MAX_OPTS * 2 + 2], *p = so;
	const struct cli_opt *o;
	int n = 0, key;

	for (o = c->opts; o && o->name && n < MAX_OPTS; o++, n++) {
		lo[n] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL,
					 o->key };
		*p++ = (char)o->key;
		if (o->arg)
			*p++ = ':';
	}
	lo[n] = (struct option){ "help", no_argument, NULL, 'h' };
	*p++ = 'h';
	*p = '\0';
	key = getopt_long(argc, argv, so, lo, NULL);
	if (key == 'h') {
		cli_usage(c, stdout);
		return 'h';
	}
	if (key == -1 || key == '?')
		return key;
	for (o = c->opts; o && o->name; o++) {
		if (o->key != key)
			continue;
		if (sub >= 0 && o->subs && !(o->subs & SUB(sub))) {
			pr_warn("%s %s: --%s is not one of its options (%s %s --help)\n", c->cmd,
				c->subs[sub], o->name, c->cmd, c->subs[sub]);
			return '?';
		}
		break;
	}
	return key;
}

const struct cli_args *cli_args_of(const struct cli *c, int sub)
{
	if (!c->args)
		return NULL;
	return &c->args[sub < 0 ? 0 : sub];
}

/* The operands' number against @sub's: 0, or 2 after a message. */
static int check_args(const struct cli *c, int sub, int argc, char **argv)
{
	static const struct cli_args none;
	const struct cli_args *a = cli_args_of(c, sub);
	const char *sp = sub < 0 ? "" : " ", *sn = sub < 0 ? "" : c->subs[sub];
	int i;

	if (!a)
		a = &none;
	if (argc > a->max) {
		pr_warn("%s%s%s: unexpected argument '%s'\n", c->cmd, sp, sn, argv[a->max]);
		return 2;
	}
	if (argc >= a->min)
		return 0;
	pr_warn("%s%s%s: wants", c->cmd, sp, sn);
	for (i = 0; i < a->min; i++)
		fprintf(stderr, " %s", a->names[i]);
	fprintf(stderr, " (ccload %s --help)\n", c->cmd);
	return 2;
}

int cli_main(const struct cli *c, int argc, char **argv)
{
	int sub = -1, key, err = 0;
	void *st;

	if (c->subs) {
		if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			cli_usage(c, argc < 2 ? stderr : stdout);
			return argc < 2 ? 2 : 0;
		}
		sub = cli_sub(c, argv[1]);
		if (sub < 0)
			return 2;
		argc--; /* parse from the subcommand on */
		argv++;
	}
	st = calloc(1, c->state_size ? c->state_size : 1);
	if (!st) {
		pr_warn("%s: out of memory\n", c->cmd);
		return 1;
	}
	if (c->defaults)
		memcpy(st, c->defaults, c->state_size);
	optind = 0;
	while (!err && (key = cli_getopt(c, sub, argc, argv)) != -1) {
		if (key == 'h') {
			free(st);
			return 0;
		}
		if (key == '?' && !c->subs)
			cli_usage(c, stderr);
		err = key == '?' || !c->opt ? 2 : c->opt(st, key, optarg);
	}
	if (!err)
		err = check_args(c, sub, argc - optind, argv + optind);
	if (!err)
		err = c->run(st, sub, argc - optind, argv + optind);
	free(st);
	return err;
}
