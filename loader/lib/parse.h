/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsing of numbers with units, with tc(8)'s conventions so that a value
 * given to ccload means what it means to tc in the same test network:
 *   sizes: b, k/kb, m/mb, g/gb (powers of 1024); kib, mib, gib too
 *   rates: bit, kbit, mbit, gbit, tbit (powers of 1000, bits/s),
 *          bps, kbps, mbps, gbps (bytes/s), kibit, mibit, gibit (1024)
 *   times: s, ms, us, ns (a bare number is microseconds, as in tc)
 * and plain numbers: unsigned integers, and reals for what is not a
 * count (a load, a scale, seconds of a tool's own).
 * All return 0 on success and -EINVAL / -ERANGE otherwise; nothing is
 * written to *out on failure.
 */
#ifndef CCLOAD_PARSE_H
#define CCLOAD_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int parse_u64(const char *s, uint64_t *out);
int parse_bool(const char *s, uint64_t *out);
int parse_size(const char *s, uint64_t *bytes);
int parse_rate(const char *s, uint64_t *bits_per_sec);
int parse_time(const char *s, uint64_t *ns);
/* Digits with an optional fraction and exponent ("2", "0.25", ".5",
 * "1e-3"): no sign, no spaces, no hex, inf or nan.  The value is
 * strtod()'s in the C locale. */
int parse_double(const char *s, double *out);

/* A congestion control name ccload may use as a file name under its pin
 * and run directories: 1 to 15 characters (TCP_CA_NAME_MAX - 1) of
 * A-Z a-z 0-9 _ - ., not starting with '.' (so never "." or ".."). */
bool parse_cc_name_ok(const char *s);

/* A device or network namespace name that may become part of a file name:
 * 1 to @max printable characters, no '/', '@' or space, not starting with
 * '.'. */
bool parse_word_ok(const char *s, size_t max);

/* Split "key=value" in place; -EINVAL without '=' or with an empty side. */
int parse_kv(char *s, char **key, char **value);

#endif
