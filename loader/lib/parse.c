// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"
#include "util.h"

struct unit {
	const char *name;
	uint64_t mul; /* value = number * mul / div */
	uint64_t div;
};

/* Strict unsigned decimal, or hex with 0x: no sign, no spaces, no junk
 * (a leading 0 is not octal). */
int parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	int base = 10;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		if (!isxdigit((unsigned char)s[2]))
			return -EINVAL;
	}
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

/* The end of the digits from @p on, counting them into *@n. */
static const char *skip_digits(const char *p, size_t *n)
{
	for (; *p >= '0' && *p <= '9'; p++)
		++*n;
	return p;
}

int parse_double(const char *s, double *out)
{
	size_t digits = 0, exp_digits = 0;
	const char *p;
	char *end;
	double v;

	if (!s)
		return -EINVAL;
	p = skip_digits(s, &digits);
	if (*p == '.')
		p = skip_digits(p + 1, &digits);
	if (!digits)
		return -EINVAL;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		p = skip_digits(p, &exp_digits);
		if (!exp_digits)
			return -EINVAL;
	}
	if (*p)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE)
		return -ERANGE;
	if (end != p)
		return -EINVAL; /* a locale whose decimal point is not '.' */
	*out = v;
	return 0;
}

int parse_bool(const char *s, uint64_t *out)
{
	static const char *const yes[] = { "1", "true", "on", "yes" };
	static const char *const no[] = { "0", "false", "off", "no" };
	size_t i;

	for (i = 0; s && i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * number[.fraction]unit: the fraction is kept exact to 1e-6 so "1.5mbit"
 * is 1500000 and not 1000000.
 */
static int parse_with_units(const char *s, const struct unit *units, size_t n, const char *bare,
			    uint64_t *out)
{
	uint64_t ip = 0, frac = 0, scale = 1, v;
	const char *p = s;
	size_t i;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (ip > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		ip = ip * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++)
			if (scale < 1000000) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
	}
	if (!*p)
		p = bare;
	if (!p)
		return -EINVAL; /* unit required */
	for (i = 0; i < n; i++) {
		const struct unit *u = &units[i];

		if (strcasecmp(p, u->name))
			continue;
		uint64_t part;

		if (ip && u->mul > UINT64_MAX / ip)
			return -ERANGE;
		v = ip * u->mul / u->div;
		/* frac / scale * mul / div, without overflow for our units */
		part = frac * (u->mul / u->div) / scale;
		if (v > UINT64_MAX - part)
			return -ERANGE;
		*out = v + part;
		return 0;
	}
	return -EINVAL;
}

int parse_size(const char *s, uint64_t *bytes)
{
	static const struct unit u[] = {
		{ "b", 1, 1 },
		{ "k", 1ULL << 10, 1 },
		{ "kb", 1ULL << 10, 1 },
		{ "kib", 1ULL << 10, 1 },
		{ "m", 1ULL << 20, 1 },
		{ "mb", 1ULL << 20, 1 },
		{ "mib", 1ULL << 20, 1 },
		{ "g", 1ULL << 30, 1 },
		{ "gb", 1ULL << 30, 1 },
		{ "gib", 1ULL << 30, 1 },
	};

	return parse_with_units(s, u, ARRAY_SIZE(u), "b", bytes);
}

int parse_rate(const char *s, uint64_t *bps)
{
	static const struct unit u[] = {
		{ "bit", 1, 1 },
		{ "kbit", 1000ULL, 1 },
		{ "mbit", 1000000ULL, 1 },
		{ "gbit", 1000000000ULL, 1 },
		{ "tbit", 1000000000000ULL, 1 },
		{ "kibit", 1ULL << 10, 1 },
		{ "mibit", 1ULL << 20, 1 },
		{ "gibit", 1ULL << 30, 1 },
		{ "bps", 8, 1 },
		{ "kbps", 8000ULL, 1 },
		{ "mbps", 8000000ULL, 1 },
		{ "gbps", 8000000000ULL, 1 },
	};

	/* A bare number is ambiguous (bits or bytes?): require a unit. */
	return parse_with_units(s, u, ARRAY_SIZE(u), NULL, bps);
}

int parse_time(const char *s, uint64_t *ns)
{
	static const struct unit u[] = {
		{ "ns", 1, 1 },
		{ "us", 1000ULL, 1 },
		{ "usec", 1000ULL, 1 },
		{ "ms", 1000000ULL, 1 },
		{ "msec", 1000000ULL, 1 },
		{ "s", 1000000000ULL, 1 },
		{ "sec", 1000000000ULL, 1 },
	};

	return parse_with_units(s, u, ARRAY_SIZE(u), "us", ns);
}

int parse_kv(char *s, char **key, char **value)
{
	char *eq = s ? strchr(s, '=') : NULL;

	if (!eq || eq == s || !eq[1])
		return -EINVAL;
	*eq = '\0';
	*key = s;
	*value = eq + 1;
	return 0;
}

bool parse_cc_name_ok(const char *s)
{
	size_t n;

	if (!s || !s[0] || s[0] == '.')
		return false;
	for (n = 0; s[n]; n++) {
		unsigned char c = (unsigned char)s[n];

		if (n >= 15 || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				 (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
			return false;
	}
	return true;
}

bool parse_word_ok(const char *s, size_t max)
{
	size_t n;

	if (!s || !s[0] || s[0] == '.')
		return false;
	for (n = 0; s[n]; n++) {
		unsigned char c = (unsigned char)s[n];

		if (n >= max || c <= ' ' || c >= 127 || c == '/' || c == '@')
			return false;
	}
	return true;
}
