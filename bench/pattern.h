/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bytes of a verified transfer (tcpxfer, wlgen): byte @off of a
 * stream is pattern_byte(@off).  A lost, repeated, reordered or foreign
 * run of bytes shows as a mismatch unless it is a multiple of
 * PATTERN_PERIOD long and aligned on one: (off * 131) mod 256 repeats
 * every 256 bytes, (off >> 9) mod 256 every 2^17, so their sum every
 * 2^17, and no shorter shift maps the sequence onto itself.
 */
#ifndef CCSUITE_PATTERN_H
#define CCSUITE_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#define PATTERN_PERIOD (1u << 17)

static inline uint8_t pattern_byte(uint64_t off)
{
	return (uint8_t)(off * 131 + (off >> 9));
}

/*
 * @tab[i] = pattern_byte(i) for i < PATTERN_PERIOD + @span, so that the
 * @span bytes from any offset are tab + (off % PATTERN_PERIOD): a
 * transfer is sent and checked with memcpy/memcmp-speed reads of it.
 */
static inline void pattern_fill(uint8_t *tab, size_t span)
{
	for (size_t i = 0; i < PATTERN_PERIOD + span; i++)
		tab[i] = pattern_byte(i);
}

#endif /* CCSUITE_PATTERN_H */
