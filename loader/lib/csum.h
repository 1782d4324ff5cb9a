/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Internet checksum (RFC 1071) in host C: the pacer fills in its
 * IPv6 emulation packets' UDP checksums with it (mandatory on IPv6, RFC
 * 8200 8.1), and the tests check with it what the TC programs rewrite.
 * Byte by byte, so any alignment and either byte order works.
 */
#ifndef CCLOAD_CSUM_H
#define CCLOAD_CSUM_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

/* @sum plus the 16-bit big-endian words of @len bytes at @p (an odd last
 * byte padded with zero). */
static inline uint32_t csum_add(uint32_t sum, const void *p, size_t len)
{
	const uint8_t *b = p;

	for (; len > 1; len -= 2, b += 2)
		sum += (uint32_t)(b[0] << 8 | b[1]);
	if (len)
		sum += (uint32_t)(b[0] << 8);
	return sum;
}

/* The checksum of @sum, network order: 0 over data that holds its own
 * correct checksum. */
static inline uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

/* The checksum of transport @proto over the pseudo-header of @saddr,
 * @daddr (@alen bytes each: 4 or 16) and its @len bytes at @l4; 0 for a
 * correct one. */
static inline uint16_t l4_csum(const void *saddr, const void *daddr, size_t alen, uint8_t proto,
			       const void *l4, size_t len)
{
	uint32_t sum = 0;

	sum = csum_add(sum, saddr, alen);
	sum = csum_add(sum, daddr, alen);
	sum += proto + (uint32_t)len;
	sum = csum_add(sum, l4, len);
	return csum_fold(sum);
}

/* The UDP checksum of the datagram @udp of @len bytes (l4_csum()). */
static inline uint16_t udp_csum(const void *saddr, const void *daddr, size_t alen, const void *udp,
				size_t len)
{
	return l4_csum(saddr, daddr, alen, IPPROTO_UDP, udp, len);
}

/* What goes into the check field of the datagram @udp (its check 0 now):
 * a checksum that comes out 0 is sent as 0xffff, since 0 means "none"
 * (RFC 768), which IPv6 does not allow. */
static inline uint16_t udp_check(const void *saddr, const void *daddr, size_t alen, const void *udp,
				 size_t len)
{
	uint16_t c = udp_csum(saddr, daddr, alen, udp, len);

	return c ? c : 0xffff;
}

#endif
