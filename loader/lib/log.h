/* SPDX-License-Identifier: GPL-2.0 */
/* Logging levels mapped onto libbpf's, as xdp-tools does. */
#ifndef CCLOAD_LOG_H
#define CCLOAD_LOG_H

#include <stdarg.h>

enum log_level { LOG_WARN, LOG_INFO, LOG_DEBUG };

extern enum log_level log_level;

void pr_log(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Begin each warning with @prefix ("FILE:LINE: "); NULL: none. */
void log_warn_prefix(const char *prefix);

#define pr_warn(...)  pr_log(LOG_WARN, __VA_ARGS__)
#define pr_info(...)  pr_log(LOG_INFO, __VA_ARGS__)
#define pr_debug(...) pr_log(LOG_DEBUG, __VA_ARGS__)

/* Route libbpf's messages through pr_log; keep the last verifier log so a
 * failed load can show its tail (the whole log with -v). */
void log_init_libbpf(void);
void log_print_verifier_tail(int lines);

#endif
