// SPDX-License-Identifier: GPL-2.0
/*
 * ccload service: the algorithms a config file names, attached as one set;
 * ccsuite.service runs it at boot.  The config holds `ccload attach`'s
 * arguments, one attach a line, '#' to the end of a line a comment:
 *
 *   attach bpf_dctcp --set shift_g=4 --default
 *   attach bpf_bbr
 *
 * start and reload are one operation: check every line first (an error
 * is one "FILE:LINE: ..." line and changes nothing), then detach the
 * algorithms whose line is gone, attach those whose line is new or
 * differs (in any word: a changed tunable is a new registration, which
 * only new connections get) or whose registration is no longer the one
 * the service made, and leave the others untouched, connections, pins
 * and counters.  A failure while attaching (what check cannot see: the
 * verifier, a device that went away) stops there: what came before it
 * stays applied.  RUN_DIR/service records what is applied, after each
 * step and before each attach (a line being attached is recorded first,
 * so that stop finds it whatever happens next), with the default
 * congestion control from before the first start; stop undoes it.
 */
#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach.h"
#include "cmds.h"
#include "kcc.h"
#include "log.h"
#include "netns.h"
#include "parse.h"
#include "util.h"

#define SVC_CONF      "/etc/ccsuite/ccsuite.conf"
#define SVC_STATE     RUN_DIR "/service"
#define SVC_MAX_LINES 32 /* one per algorithm: the registry has fewer */
#define SVC_LINE_MAX  1024
/* attach ALGO, each --set and --tc with its value, and the flags */
#define SVC_MAX_WORDS (2 + 2 * (ATTACH_MAX_SETS + ATTACH_MAX_TC) + 4)

enum { SVC_CHECK, SVC_START, SVC_RELOAD, SVC_STOP };

static int service_run(void *st, int sub, int argc, char **argv);

const struct cli service_cli = {
	.cmd = "service",
	.summary = "attach what a config file names, as ccsuite.service does",
	.subs = (const char *const[]){ "check", "start", "reload", "stop", NULL },
	.synopsis = "ccload service check|start|reload [FILE]\n"
		    "       ccload service stop",
	.about = "FILE (default " SVC_CONF ") holds ccload attach's arguments, one\n"
		 "'attach ALGO [--set k=v]... [--tc ROLE=DEV[@NETNS]]... [--default]\n"
		 "[--non-restricted]' a line, '#' a comment.  check: parse it and check every\n"
		 "line (algorithms, tunables, TC roles, devices) without root; an error is one\n"
		 "FILE:LINE line.  start and reload: check (an error changes nothing), then\n"
		 "detach what a line no longer names, attach what is new or changed or no longer\n"
		 "the registration the service made, and leave the rest untouched; a failure\n"
		 "while attaching stops at its line.  stop: detach what start and reload\n"
		 "attached; a default they made goes back to the one from before the first\n"
		 "start.  What is applied is recorded in " SVC_STATE ".",
	.args =
		(const struct cli_args[]){
			[SVC_CHECK] = { 0, 1, { ARG_FILE } },
			[SVC_START] = { 0, 1, { ARG_FILE } },
			[SVC_RELOAD] = { 0, 1, { ARG_FILE } },
			[SVC_STOP] = { 0, 0, { NULL } },
		},
	.run = service_run,
};

struct svc_line {
	int lineno;
	char canon[SVC_LINE_MAX]; /* its words, one blank apart: what reload compares */
	char words[SVC_LINE_MAX]; /* the same, each ended by a NUL; argv points here */
	char *argv[SVC_MAX_WORDS + 1];
	int argc;
	char name[32]; /* the algorithm */
	bool as_default;
	uint32_t map_id; /* state: the registration's struct_ops map (0: none yet) */
	struct attach_line a;
};

struct svc_set {
	struct svc_line l[SVC_MAX_LINES + 1]; /* + the line being read */
	int n;
	char before[64]; /* the state's: the default before the first start */
};

/* @text's words into @l (canon, words, argv); -E2BIG when too many. */
static int split_words(const char *text, struct svc_line *l)
{
	const char *p = text;
	size_t cn = 0, wn = 0, len;

	l->argc = 0;
	l->canon[0] = '\0';
	while (*p) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		len = strcspn(p, " \t\r\n\v\f");
		if (l->argc == SVC_MAX_WORDS || wn + len + 1 > sizeof(l->words))
			return -E2BIG;
		memcpy(l->words + wn, p, len);
		l->words[wn + len] = '\0';
		l->argv[l->argc++] = l->words + wn;
		cn += (size_t)snprintf(l->canon + cn, sizeof(l->canon) - cn, "%s%.*s",
				       cn ? " " : "", (int)len, p);
		wn += len + 1;
		p += len;
	}
	l->argv[l->argc] = NULL;
	return 0;
}

/* The devices of @l's TC roles exist.  One in a named namespace is
 * looked for there by root; without root, only the namespace. */
static int check_devices(const struct svc_line *l)
{
	size_t i;
	int back, idx;

	for (i = 0; i < l->a.o.n_tc; i++) {
		const struct tc_place *t = &l->a.tc[i];

		if (t->netns && !netns_exists(t->netns)) {
			pr_warn("no network namespace '%s' (/run/netns/%s)\n", t->netns, t->netns);
			return -ENOENT;
		}
		if (t->netns && geteuid())
			continue;
		if (netns_enter(t->netns, &back))
			return -ENOENT;
		idx = netns_dev_index(t->dev, t->netns);
		netns_leave(back);
		if (!idx)
			return -ENODEV;
	}
	return 0;
}

/* One config line (@text, its comment cut) into @s: 0 (a blank line
 * too), or -EINVAL after a message. */
static int conf_line(struct svc_set *s, char *text, int lineno)
{
	struct svc_line *l = &s->l[s->n];
	int i;

	if (split_words(text, l)) {
		pr_warn("too many words\n");
		return -EINVAL;
	}
	if (!l->argc)
		return 0;
	if (strcmp(l->argv[0], "attach")) {
		pr_warn("'%s' is not a directive: a line is 'attach ALGO [OPTIONS]'\n", l->argv[0]);
		return -EINVAL;
	}
	if (s->n == SVC_MAX_LINES) {
		pr_warn("more than %d lines\n", SVC_MAX_LINES);
		return -EINVAL;
	}
	/* attach_parse() reorders argv (getopt): canon keeps the order */
	if (attach_parse(l->argc, l->argv, &l->a))
		return -EINVAL;
	if (l->a.o.objfile) {
		pr_warn("--obj is not for the config: attach an object of your own with ccload "
			"attach\n");
		return -EINVAL;
	}
	snprintf(l->name, sizeof(l->name), "%s", l->a.o.algo->name);
	l->as_default = l->a.o.as_default;
	l->lineno = lineno;
	for (i = 0; i < s->n; i++) {
		if (!strcmp(s->l[i].name, l->name)) {
			pr_warn("%s is attached by line %d already\n", l->name, s->l[i].lineno);
			return -EINVAL;
		}
		if (l->as_default && s->l[i].as_default) {
			pr_warn("two defaults: line %d says --default too\n", s->l[i].lineno);
			return -EINVAL;
		}
	}
	if (check_devices(l))
		return -EINVAL;
	s->n++;
	return 0;
}

/* The config @path into @s, every line checked: 0, or < 0 after one
 * "PATH:LINE: ..." line. */
static int conf_read(const char *path, struct svc_set *s)
{
	char buf[SVC_LINE_MAX + 2], prefix[512];
	int lineno = 0, err = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		err = -errno;
		pr_warn("%s: %s\n", path, strerror(errno));
		return err;
	}
	while (!err && fgets(buf, sizeof(buf), f)) {
		lineno++;
		snprintf(prefix, sizeof(prefix), "%s:%d: ", path, lineno);
		log_warn_prefix(prefix);
		if (!strchr(buf, '\n') && !feof(f)) {
			pr_warn("longer than %d characters\n", SVC_LINE_MAX);
			err = -EINVAL;
			break;
		}
		buf[strcspn(buf, "#")] = '\0';
		err = conf_line(s, buf, lineno);
	}
	log_warn_prefix(NULL);
	if (!err && ferror(f)) {
		err = -EIO;
		pr_warn("%s: cannot read\n", path);
	}
	fclose(f);
	return err;
}

static int find_line(const struct svc_set *s, const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->l[i].name, name))
			return i;
	return -1;
}

/* RUN_DIR/service into @s (each line's canon, name, map id and whether it
 * made the default; argv is not kept valid): 0, -ENOENT when there is
 * none, or < 0 after a message. */
static int state_read(struct svc_set *s)
{
	char buf[SVC_LINE_MAX + 2], def[32] = "", name[32];
	unsigned int id;
	FILE *f;
	int err = 0, i;

	s->n = 0;
	s->before[0] = '\0';
	f = fopen(SVC_STATE, "r");
	if (!f)
		return errno == ENOENT ? -ENOENT : -errno;
	while (!err && fgets(buf, sizeof(buf), f)) {
		struct svc_line *l = &s->l[s->n];

		buf[strcspn(buf, "\n")] = '\0';
		if (buf[0] == '#' || !buf[0])
			continue;
		if (!strncmp(buf, "before ", 7) && parse_cc_name_ok(buf + 7)) {
			snprintf(s->before, sizeof(s->before), "%.63s", buf + 7);
		} else if (!strncmp(buf, "default ", 8) && parse_cc_name_ok(buf + 8)) {
			snprintf(def, sizeof(def), "%.31s", buf + 8);
		} else if (sscanf(buf, "id %31s %u", name, &id) == 2 &&
			   (i = find_line(s, name)) >= 0) {
			s->l[i].map_id = id;
		} else if (s->n < SVC_MAX_LINES && !split_words(buf, l) && l->argc >= 2 &&
			   !strcmp(l->argv[0], "attach") && algo_find(l->argv[1]) &&
			   find_line(s, l->argv[1]) < 0) {
			snprintf(l->name, sizeof(l->name), "%s", l->argv[1]);
			l->map_id = 0;
			s->n++;
		} else {
			pr_warn("%s: not a state ccload service wrote: '%s' (remove it to start afresh; "
				"what it names stays attached: ccload detach)\n",
				SVC_STATE, buf);
			err = -EINVAL;
		}
	}
	fclose(f);
	for (i = 0; i < s->n; i++)
		s->l[i].as_default = !strcmp(s->l[i].name, def);
	return err;
}

/* @s as RUN_DIR/service, by a rename: the file is the old or the new. */
static int state_write(const struct svc_set *s)
{
	char tmp[] = SVC_STATE ".XXXXXX";
	FILE *f;
	int fd, i;

	if (mkdir_p(RUN_DIR))
		return -errno;
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		pr_warn("cannot write %s: %s\n", SVC_STATE, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return -EIO;
	}
	fprintf(f, "# ccload service: the lines it attached, their registrations' map ids,\n"
		   "# which one made the default, the default before its first start\n");
	fprintf(f, "before %s\n", s->before);
	for (i = 0; i < s->n; i++) {
		fprintf(f, "%s\nid %s %u\n", s->l[i].canon, s->l[i].name, s->l[i].map_id);
		if (s->l[i].as_default)
			fprintf(f, "default %s\n", s->l[i].name);
	}
	if (fclose(f) || rename(tmp, SVC_STATE)) {
		pr_warn("cannot write %s: %s\n", SVC_STATE, strerror(errno));
		unlink(tmp);
		return -EIO;
	}
	return 0;
}

/* Drop @s's line @i, keeping the order. */
static void drop_line(struct svc_set *s, int i)
{
	memmove(&s->l[i], &s->l[i + 1], (size_t)(s->n - i - 1) * sizeof(s->l[0]));
	s->n--;
}

/* Is the default congestion control the one a line of @have made?  (One
 * someone set since is theirs.) */
static bool default_is_ours(const struct svc_set *have)
{
	char cur[64];
	int i;

	if (read_line(SYSCTL_CC, cur, sizeof(cur)))
		return false;
	for (i = 0; i < have->n; i++)
		if (have->l[i].as_default && !strcmp(have->l[i].name, cur))
			return true;
	return false;
}

/* The default congestion control back to @before, or cubic when that is
 * not registered. */
static void default_back(const char *before)
{
	const char *cc = before[0] && cc_registered(before) ? before : "cubic";

	if (write_str(SYSCTL_CC, cc) == 0)
		pr_info("default congestion control is %s again\n", cc);
}

/* start and reload: @want applied over the recorded state. */
static int apply(const struct svc_set *want)
{
	static struct svc_set have;
	static struct svc_line old;
	bool ours; /* the default is the one the service made */
	int i, j, err;

	err = state_read(&have);
	if (err == -ENOENT) {
		if (read_line(SYSCTL_CC, have.before, sizeof(have.before)) < 0)
			snprintf(have.before, sizeof(have.before), "cubic");
		if (state_write(&have))
			return 1;
	} else if (err) {
		return 1;
	}
	ours = default_is_ours(&have);
	/* gone: detached first, so that a registration going away does not
	 * put back a default after a line made another one */
	for (i = have.n - 1; i >= 0; i--) {
		if (find_line(want, have.l[i].name) >= 0)
			continue;
		err = algo_detach(have.l[i].name);
		if (err && err != -ENOENT)
			return 1;
		pr_info("%s: detached (no longer in the config)\n", have.l[i].name);
		drop_line(&have, i);
		if (state_write(&have))
			return 1;
	}
	for (i = 0; i < want->n; i++) {
		const struct svc_line *w = &want->l[i];
		struct svc_line *h;

		j = find_line(&have, w->name);
		if (j >= 0 && !strcmp(have.l[j].canon, w->canon) && have.l[j].map_id &&
		    kcc_registered_id(w->name) == have.l[j].map_id) {
			pr_info("%s: unchanged\n", w->name);
			continue;
		}
		if (j >= 0)
			old = have.l[j];
		else
			j = have.n++;
		h = &have.l[j];
		/* recorded before it is attached: stop detaches it whatever happens */
		snprintf(h->canon, sizeof(h->canon), "%s", w->canon);
		snprintf(h->name, sizeof(h->name), "%s", w->name);
		h->as_default = w->as_default;
		h->map_id = 0;
		if (state_write(&have))
			return 1;
		if (algo_attach(&w->a.o)) {
			pr_warn("%s (line %d) is not attached; the lines after it are not applied\n",
				w->name, w->lineno);
			/* A failure before registering leaves the old registration
			 * (algo_attach): its line again.  One after it leaves none. */
			if (kcc_registered_id(w->name) && !strcmp(old.name, w->name))
				*h = old;
			else
				drop_line(&have, j);
			state_write(&have);
			return 1;
		}
		h->map_id = kcc_registered_id(w->name);
		if (state_write(&have))
			return 1;
		old.name[0] = '\0';
	}
	for (i = 0; i < want->n && !want->l[i].as_default; i++)
		;
	if (ours && i == want->n)
		default_back(have.before);
	return 0;
}

static int stop(void)
{
	static struct svc_set have;
	bool ours;
	int i, err, failed = 0;

	err = state_read(&have);
	if (err == -ENOENT) {
		pr_info("ccload service: nothing to stop (no %s)\n", SVC_STATE);
		return 0;
	}
	if (err)
		return 1;
	ours = default_is_ours(&have);
	for (i = have.n - 1; i >= 0; i--) {
		err = algo_detach(have.l[i].name);
		if (err && err != -ENOENT)
			failed = 1;
		else
			pr_info("%s: detached\n", have.l[i].name);
	}
	if (ours)
		default_back(have.before);
	if (!failed && unlink(SVC_STATE) && errno != ENOENT)
		failed = 1;
	return failed;
}

static int service_run(void *st, int sub, int argc, char **argv)
{
	const char *path = argc ? argv[0] : SVC_CONF;
	static struct svc_set want;

	(void)st;
	if (sub == SVC_STOP)
		return attach_env_check() ? 1 : stop();
	if (conf_read(path, &want))
		return 1;
	if (sub == SVC_CHECK) {
		printf("%s: %d algorithm(s), no error\n", path, want.n);
		return 0;
	}
	return attach_env_check() ? 1 : apply(&want);
}
