// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "log.h"

enum log_level log_level = LOG_WARN;

/* libbpf prints the verifier log between these markers on a failed load. */
#define LOG_BEGIN "-- BEGIN PROG LOAD LOG --"
#define LOG_END	  "-- END PROG LOAD LOG --"

static char *vlog; /* last verifier log seen */
static size_t vlog_len, vlog_cap;
static int in_vlog;

static const char *warn_prefix;

void log_warn_prefix(const char *prefix)
{
	warn_prefix = prefix;
}

void pr_log(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_level)
		return;
	if (level == LOG_WARN && warn_prefix)
		fputs(warn_prefix, stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static void vlog_append(const char *s)
{
	size_t n = strlen(s);

	if (vlog_len + n + 1 > vlog_cap) {
		size_t cap = (vlog_cap ? vlog_cap * 2 : 4096) + n;
		char *p = realloc(vlog, cap);

		if (!p)
			return;
		vlog = p;
		vlog_cap = cap;
	}
	memcpy(vlog + vlog_len, s, n + 1);
	vlog_len += n;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *buf = NULL, *line, *save = NULL;

	/* A verifier log arrives as one message of any length. */
	if (vasprintf(&buf, fmt, ap) < 0)
		return 0;
	/* Collect the verifier log instead of flooding the terminal. */
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, LOG_BEGIN)) {
			in_vlog = 1;
			vlog_len = 0;
			if (vlog)
				vlog[0] = '\0';
			continue;
		}
		if (strstr(line, LOG_END)) {
			in_vlog = 0;
			continue;
		}
		if (in_vlog) {
			vlog_append(line);
			vlog_append("\n");
			if (log_level >= LOG_DEBUG)
				fprintf(stderr, "%s\n", line);
			continue;
		}
		/* ccload says what failed in one line of its own; libbpf's
		 * account of it is for -v. */
		(void)level;
		if (log_level >= LOG_DEBUG)
			fprintf(stderr, "%s\n", line);
	}
	free(buf);
	return 0;
}

void log_init_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}

void log_print_verifier_tail(int lines)
{
	const char *p;
	int n = 0;

	if (!vlog_len) {
		if (log_level < LOG_DEBUG)
			fprintf(stderr, "(ccload -v shows libbpf's account of it)\n");
		return;
	}
	if (log_level >= LOG_DEBUG)
		return; /* already printed in full */
	/* Walk back over the last @lines lines. */
	for (p = vlog + vlog_len - 1; p > vlog; p--)
		if (*p == '\n' && ++n > lines) {
			p++;
			break;
		}
	fprintf(stderr, "verifier log (last %d lines; -v for all):\n%s", lines, p);
}
