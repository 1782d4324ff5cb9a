// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "opts.h"
#include "log.h"

#define MAX_OPTS 32

void cli_usage(const struct cli *c, FILE *f)
{
	const struct cli_opt *o;
	char left[64];

	fprintf(f, "Usage: %s\n%s\n", c->synopsis, c->about);
	for (o = c->opts; o && o->name; o++) {
		snprintf(left, sizeof(left), "-%c, --%s%s%s", o->key, o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		fprintf(f, "  %-26s %s", left, o->help);
		if (c->subs && o->subs) {
			const char *sep = " (";
			int i;

			for (i = 0; c->subs[i]; i++)
				if (o->subs & SUB(i)) {
					fprintf(f, "%s%s", sep, c->subs[i]);
					sep = ", ";
				}
			fprintf(f, ")");
		}
		fprintf(f, "\n");
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
