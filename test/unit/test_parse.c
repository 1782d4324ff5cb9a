// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for loader/lib/parse.c: numbers with tc(8) units.
 *   sizes: powers of 1024; rates: bits/s, kbit = 1000, bps = bytes/s;
 *   times: ns, a bare number is microseconds; plain reals.
 * Every failure must return -EINVAL / -ERANGE and leave *out alone, so each
 * call starts with a sentinel in *out.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "parse.h"

#define SENTINEL 0xdeadbeefcafef00dULL

typedef int (*parse_fn)(const char *, uint64_t *);

static void ok(parse_fn fn, const char *name, const char *in, uint64_t want)
{
	uint64_t out = SENTINEL;
	int rc = fn(in, &out);

	cr_assert_eq(rc, 0, "%s(\"%s\") = %d, want 0", name, in, rc);
	cr_assert_eq(out, want, "%s(\"%s\") gave %llu, want %llu", name, in,
		     (unsigned long long)out, (unsigned long long)want);
}

static void bad(parse_fn fn, const char *name, const char *in, int want_rc)
{
	uint64_t out = SENTINEL;
	int rc = fn(in, &out);

	cr_assert_eq(rc, want_rc, "%s(\"%s\") = %d, want %d", name, in ? in : "(null)", rc,
		     want_rc);
	cr_assert_eq(out, SENTINEL, "%s(\"%s\") wrote %llu on failure", name, in ? in : "(null)",
		     (unsigned long long)out);
}

#define OK(fn, in, want) ok(fn, #fn, in, want)
#define BAD(fn, in, rc)	 bad(fn, #fn, in, rc)

/* ---- parse_u64 ---- */

Test(parse_u64, decimal_and_hex)
{
	OK(parse_u64, "0", 0);
	OK(parse_u64, "42", 42);
	OK(parse_u64, "0x10", 16);
	OK(parse_u64, "0XfF", 255);
	OK(parse_u64, "18446744073709551615", UINT64_MAX);
}

Test(parse_u64, rejects)
{
	BAD(parse_u64, NULL, -EINVAL);
	BAD(parse_u64, "", -EINVAL);
	BAD(parse_u64, "-1", -EINVAL);
	BAD(parse_u64, "+1", -EINVAL);
	BAD(parse_u64, " 1", -EINVAL);
	BAD(parse_u64, "1 ", -EINVAL);
	BAD(parse_u64, "12abc", -EINVAL);
	BAD(parse_u64, "0x", -EINVAL);
	BAD(parse_u64, "1k", -EINVAL);
	BAD(parse_u64, "18446744073709551616", -ERANGE); /* 2^64 */
	BAD(parse_u64, "99999999999999999999", -ERANGE);
}

/*
 * "no sign, no spaces": strtoull() skips any leading isspace(), not just
 * ' ', and then accepts a sign, so "\t-1" became 2^64 - 1.
 */
Test(parse_u64, rejects_other_leading_whitespace)
{
	BAD(parse_u64, "\t-1", -EINVAL);
	BAD(parse_u64, "\t1", -EINVAL);
	BAD(parse_u64, "\n1", -EINVAL);
}

/* ---- parse_bool ---- */

Test(parse_bool, words)
{
	OK(parse_bool, "1", 1);
	OK(parse_bool, "true", 1);
	OK(parse_bool, "on", 1);
	OK(parse_bool, "yes", 1);
	OK(parse_bool, "TRUE", 1);
	OK(parse_bool, "Yes", 1);
	OK(parse_bool, "0", 0);
	OK(parse_bool, "false", 0);
	OK(parse_bool, "off", 0);
	OK(parse_bool, "no", 0);
	OK(parse_bool, "OFF", 0);
}

Test(parse_bool, rejects)
{
	BAD(parse_bool, NULL, -EINVAL);
	BAD(parse_bool, "", -EINVAL);
	BAD(parse_bool, "2", -EINVAL);
	BAD(parse_bool, "y", -EINVAL);
	BAD(parse_bool, "yes ", -EINVAL);
	BAD(parse_bool, "truee", -EINVAL);
}

/* ---- parse_size: bytes, powers of 1024 ---- */

Test(parse_size, units)
{
	OK(parse_size, "100", 100); /* bare = bytes */
	OK(parse_size, "100b", 100);
	OK(parse_size, "1k", 1024);
	OK(parse_size, "1kb", 1024);
	OK(parse_size, "1kib", 1024);
	OK(parse_size, "64kb", 65536);
	OK(parse_size, "1m", 1048576);
	OK(parse_size, "2mb", 2097152);
	OK(parse_size, "1mib", 1048576);
	OK(parse_size, "1g", 1073741824);
	OK(parse_size, "3gb", 3221225472ULL);
	OK(parse_size, "1gib", 1073741824);
	OK(parse_size, "0kb", 0);
}

Test(parse_size, fractions)
{
	OK(parse_size, "0.5kb", 512);
	OK(parse_size, "1.5k", 1536);
	OK(parse_size, "1.25mb", 1310720); /* 1048576 * 5 / 4 */
	OK(parse_size, "0.5g", 536870912);
	OK(parse_size, "2.0b", 2);
}

Test(parse_size, case_insensitive)
{
	OK(parse_size, "1KB", 1024);
	OK(parse_size, "1Kb", 1024);
	OK(parse_size, "1M", 1048576);
	OK(parse_size, "1GiB", 1073741824);
	OK(parse_size, "7B", 7);
}

Test(parse_size, rejects)
{
	BAD(parse_size, NULL, -EINVAL);
	BAD(parse_size, "", -EINVAL);
	BAD(parse_size, "-1", -EINVAL);
	BAD(parse_size, "+1kb", -EINVAL);
	BAD(parse_size, " 1kb", -EINVAL);
	BAD(parse_size, "10 kb", -EINVAL);
	BAD(parse_size, "10kb ", -EINVAL);
	BAD(parse_size, "kb", -EINVAL);
	BAD(parse_size, "10xx", -EINVAL);
	BAD(parse_size, "10kbit", -EINVAL); /* a rate unit */
	BAD(parse_size, "1.", -EINVAL);
	BAD(parse_size, "1.kb", -EINVAL);
	BAD(parse_size, ".5kb", -EINVAL);
	BAD(parse_size, "1.2.3kb", -EINVAL);
}

Test(parse_size, overflow)
{
	BAD(parse_size, "99999999999999999999", -ERANGE);
	BAD(parse_size, "99999999999999999999kb", -ERANGE);
	/* 2^34 gb = 2^64 bytes; 16 Gi * 1 Gi does not fit. */
	BAD(parse_size, "17179869184g", -ERANGE);
	BAD(parse_size, "20000000000gb", -ERANGE);
	/* 2^34 - 1 gb fits: 2^64 - 2^30. */
	OK(parse_size, "17179869183g", 18446744072635809792ULL);
}

/* ---- parse_rate: bits/s ---- */

Test(parse_rate, bit_units_decimal)
{
	OK(parse_rate, "100bit", 100);
	OK(parse_rate, "1kbit", 1000);
	OK(parse_rate, "100mbit", 100000000);
	OK(parse_rate, "10gbit", 10000000000ULL);
	OK(parse_rate, "1tbit", 1000000000000ULL);
}

Test(parse_rate, bit_units_binary)
{
	OK(parse_rate, "1kibit", 1024);
	OK(parse_rate, "1mibit", 1048576);
	OK(parse_rate, "1gibit", 1073741824);
}

Test(parse_rate, byte_units)
{
	/* bytes/s, decimal prefixes, times 8 */
	OK(parse_rate, "1bps", 8);
	OK(parse_rate, "1kbps", 8000);
	OK(parse_rate, "125kbps", 1000000);
	OK(parse_rate, "1mbps", 8000000);
	OK(parse_rate, "1gbps", 8000000000ULL);
}

Test(parse_rate, fractions)
{
	OK(parse_rate, "1.5mbit", 1500000);
	OK(parse_rate, "2.5gbit", 2500000000ULL);
	OK(parse_rate, "0.5kbps", 4000);
	OK(parse_rate, "0.001kbit", 1);
	OK(parse_rate, "1.000001mbit", 1000001); /* 6 digits are exact */
	OK(parse_rate, "0.5kibit", 512);
}

Test(parse_rate, case_insensitive)
{
	OK(parse_rate, "1MBIT", 1000000);
	OK(parse_rate, "1Mbit", 1000000);
	OK(parse_rate, "1KBps", 8000);
	OK(parse_rate, "1GiBit", 1073741824);
}

Test(parse_rate, rejects)
{
	BAD(parse_rate, "100", -EINVAL); /* bits or bytes? unit required */
	BAD(parse_rate, "0", -EINVAL);
	BAD(parse_rate, "1.5", -EINVAL);
	BAD(parse_rate, NULL, -EINVAL);
	BAD(parse_rate, "", -EINVAL);
	BAD(parse_rate, "-1mbit", -EINVAL);
	BAD(parse_rate, "10 mbit", -EINVAL);
	BAD(parse_rate, "mbit", -EINVAL);
	BAD(parse_rate, "10xx", -EINVAL);
	BAD(parse_rate, "10mb", -EINVAL); /* a size unit */
	BAD(parse_rate, "1.mbit", -EINVAL);
}

Test(parse_rate, overflow)
{
	BAD(parse_rate, "99999999999999999999", -ERANGE);
	BAD(parse_rate, "99999999999999999999bit", -ERANGE);
	/* 18446744074 * 1e9 > 2^64 - 1 = 18446744073709551615 */
	BAD(parse_rate, "18446744074gbit", -ERANGE);
	BAD(parse_rate, "20000000tbit", -ERANGE);
	/* 2305843009213693952 * 8 = 2^64 */
	BAD(parse_rate, "2305843009213693952bps", -ERANGE);
	OK(parse_rate, "18446744073gbit", 18446744073000000000ULL);
}

/*
 * The integer part fits but adding the fraction passes 2^64:
 * 18446744073.9 gbit = 18446744073900000000 > 18446744073709551615.
 * It must be -ERANGE, not a wrapped small rate (190448384 bit/s).
 */
Test(parse_rate, overflow_in_fraction)
{
	BAD(parse_rate, "18446744073.9gbit", -ERANGE);
	BAD(parse_rate, "18446744073709551.9kbit", -ERANGE);
}

/* ---- parse_time: ns, bare = us ---- */

Test(parse_time, units)
{
	OK(parse_time, "100", 100000); /* bare = microseconds */
	OK(parse_time, "0", 0);
	OK(parse_time, "7ns", 7);
	OK(parse_time, "5us", 5000);
	OK(parse_time, "5usec", 5000);
	OK(parse_time, "20ms", 20000000);
	OK(parse_time, "20msec", 20000000);
	OK(parse_time, "2s", 2000000000);
	OK(parse_time, "2sec", 2000000000);
}

Test(parse_time, fractions_and_case)
{
	OK(parse_time, "1.5ms", 1500000);
	OK(parse_time, "0.25s", 250000000);
	OK(parse_time, "2.5", 2500); /* bare fractional us */
	OK(parse_time, "1MS", 1000000);
	OK(parse_time, "3US", 3000);
	OK(parse_time, "1Sec", 1000000000);
}

Test(parse_time, rejects)
{
	BAD(parse_time, NULL, -EINVAL);
	BAD(parse_time, "", -EINVAL);
	BAD(parse_time, "-1", -EINVAL);
	BAD(parse_time, "10 ms", -EINVAL);
	BAD(parse_time, "ms", -EINVAL);
	BAD(parse_time, "10xx", -EINVAL);
	BAD(parse_time, "10m", -EINVAL); /* minutes are not a unit */
	BAD(parse_time, "1.", -EINVAL);
}

Test(parse_time, overflow)
{
	BAD(parse_time, "99999999999999999999", -ERANGE);
	/* bare: 18446744073709552 us * 1000 > 2^64 - 1 */
	BAD(parse_time, "18446744073709552", -ERANGE);
	BAD(parse_time, "18446744074s", -ERANGE);
	OK(parse_time, "18446744073s", 18446744073000000000ULL);
}

/* As for rates: 18446744073.8 s = 18446744073800000000 ns > 2^64 - 1. */
Test(parse_time, overflow_in_fraction)
{
	BAD(parse_time, "18446744073.8s", -ERANGE);
}

/* ---- parse_double: what wlgen and tcpxfer took from strtod() ---- */

static void ok_double(const char *in, double want)
{
	double out = -1;
	int rc = parse_double(in, &out);

	cr_assert_eq(rc, 0, "parse_double(\"%s\") = %d, want 0", in, rc);
	/* strtod()'s value exactly: what the tools read before */
	cr_assert(out == want, "parse_double(\"%s\") gave %.17g, want %.17g", in, out, want);
}

static void bad_double(const char *in, int want_rc)
{
	double out = -1;
	int rc = parse_double(in, &out);

	cr_assert_eq(rc, want_rc, "parse_double(\"%s\") = %d, want %d", in ? in : "(null)", rc,
		     want_rc);
	cr_assert(out == -1, "parse_double(\"%s\") wrote %g on failure", in ? in : "(null)", out);
}

Test(parse_double, decimals)
{
	ok_double("0", 0);
	ok_double("2", 2);
	ok_double("0.5", 0.5);
	ok_double("0.125", 0.125);
	ok_double(".25", 0.25);
	ok_double("5.", 5);
	ok_double("0.0333333", 0.0333333); /* awk's %.6g of 0.6 / 18 */
	ok_double("0.0025", 0.0025);
	ok_double("007", 7); /* not octal */
}

Test(parse_double, exponents)
{
	ok_double("5e-05", 5e-05); /* awk's %.6g below 1e-4 */
	ok_double("1E3", 1000);
	ok_double("2.5e+2", 250);
}

Test(parse_double, rejects)
{
	bad_double(NULL, -EINVAL);
	bad_double("", -EINVAL);
	bad_double(".", -EINVAL);
	bad_double("-1", -EINVAL);
	bad_double("+1", -EINVAL);
	bad_double(" 1", -EINVAL);
	bad_double("1 ", -EINVAL);
	bad_double("1.5x", -EINVAL);
	bad_double("1e", -EINVAL);
	bad_double("1e+", -EINVAL);
	bad_double("e5", -EINVAL);
	bad_double("0x10", -EINVAL);
	bad_double("inf", -EINVAL);
	bad_double("nan", -EINVAL);
	bad_double("1,5", -EINVAL);
	bad_double("1.2.3", -EINVAL);
}

Test(parse_double, overflow)
{
	bad_double("1e999", -ERANGE);
}

/* ---- parse_kv ---- */

Test(parse_kv, splits)
{
	char s[] = "rate=100mbit";
	char *k = NULL, *v = NULL;

	cr_assert_eq(parse_kv(s, &k, &v), 0);
	cr_assert_str_eq(k, "rate");
	cr_assert_str_eq(v, "100mbit");
	cr_assert_eq(k, s, "key is split in place");
	cr_assert_eq(v, s + 5, "value points into the string");

	char t[] = "a=b";

	cr_assert_eq(parse_kv(t, &k, &v), 0);
	cr_assert_str_eq(k, "a");
	cr_assert_str_eq(v, "b");
}

Test(parse_kv, first_equals_splits)
{
	char s[] = "opt=x=y";
	char *k = NULL, *v = NULL;

	cr_assert_eq(parse_kv(s, &k, &v), 0);
	cr_assert_str_eq(k, "opt");
	cr_assert_str_eq(v, "x=y");
}

static void kv_bad(const char *in)
{
	char buf[32];
	char *k = (char *)"untouched", *v = (char *)"untouched";
	int rc;

	strcpy(buf, in);
	rc = parse_kv(buf, &k, &v);
	cr_assert_eq(rc, -EINVAL, "parse_kv(\"%s\") = %d, want -EINVAL", in, rc);
	cr_assert_str_eq(buf, in, "parse_kv(\"%s\") changed its input on failure", in);
	cr_assert_str_eq(k, "untouched", "key written on failure");
	cr_assert_str_eq(v, "untouched", "value written on failure");
}

Test(parse_kv, rejects)
{
	char *k = NULL, *v = NULL;

	kv_bad("a");
	kv_bad("=b");
	kv_bad("a=");
	kv_bad("=");
	kv_bad("");
	cr_assert_eq(parse_kv(NULL, &k, &v), -EINVAL);
}

Test(parse_cc_name_ok, names)
{
	cr_assert(parse_cc_name_ok("bpf_dctcp"));
	cr_assert(parse_cc_name_ok("cubic"));
	cr_assert(parse_cc_name_ok("a.b-c_9"));
	cr_assert(parse_cc_name_ok("bpf_123456789ab")); /* 15 characters */
}

/* Names that would leave the pin or run directory, or that the kernel
 * cannot hold, are refused before any file operation. */
Test(parse_cc_name_ok, rejects)
{
	cr_assert_not(parse_cc_name_ok(NULL));
	cr_assert_not(parse_cc_name_ok(""));
	cr_assert_not(parse_cc_name_ok("."));
	cr_assert_not(parse_cc_name_ok(".."));
	cr_assert_not(parse_cc_name_ok("../../tmp/x"));
	cr_assert_not(parse_cc_name_ok("a/b"));
	cr_assert_not(parse_cc_name_ok(".hidden"));
	cr_assert_not(parse_cc_name_ok("bpf_1234567890ab")); /* 16 */
	cr_assert_not(parse_cc_name_ok("bpf dctcp"));
	cr_assert_not(parse_cc_name_ok("bpf\ndctcp"));
}
