/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet parsing for every TC program of the suite: a cursor over the
 * frame that reads each header with bpf_skb_load_bytes(), so a header
 * outside the linear part is read too and one past the frame's end is not
 * (frames are untrusted).  ccs_parse() fills a struct ccs_pkt with what
 * the programs decide on: the IP header's place and TOS byte, and for an
 * unfragmented TCP segment the TCP header's place and the header itself.
 * A program that looks into UDP takes the UDP step, ccs_pkt_udp(), after.
 */
#ifndef CCSUITE_PARSE_BPF_H
#define CCSUITE_PARSE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "kdefs.bpf.h"

struct ccs_cursor {
	struct __sk_buff *skb;
	__u32 off; /* next header */
};

/* Read @len bytes at the cursor and step over them; < 0 past the end. */
static __always_inline int ccs_cur_pull(struct ccs_cursor *c, void *to, __u32 len)
{
	if (bpf_skb_load_bytes(c->skb, c->off, to, len))
		return -1;
	c->off += len;
	return 0;
}

/* Ethernet, and up to two VLAN tags (802.1Q, 802.1ad): the EtherType of
 * what follows, network order; < 0 on a runt frame. */
static __always_inline int ccs_cur_eth(struct ccs_cursor *c, __be16 *proto)
{
	struct ethhdr eth;
	struct vlan_hdr vh;
	int i;

	if (ccs_cur_pull(c, &eth, sizeof(eth)))
		return -1;
	*proto = eth.h_proto;
#pragma unroll
	for (i = 0; i < 2; i++) {
		if (*proto != bpf_htons(ETH_P_8021Q) && *proto != bpf_htons(ETH_P_8021AD))
			break;
		if (ccs_cur_pull(c, &vh, sizeof(vh)))
			return -1;
		*proto = vh.h_vlan_encapsulated_proto;
	}
	return 0;
}

enum ccs_pkt_kind { CCS_PKT_OTHER, CCS_PKT_IP, CCS_PKT_MALFORMED };

struct ccs_pkt {
	__u32 l3_off;	/* the IP header (CCS_PKT_IP) */
	__u32 l4_off;	/* the L4 header of an unfragmented packet, else 0 */
	__u32 l3_len;	/* IP header and payload, bytes */
	__u32 saddr[4]; /* IPv6, or IPv4 v4-mapped; network order */
	__u32 daddr[4];
	__u8 tos; /* DSCP << 2 | ECN */
	__u8 v6;
	__u8 l4_proto; /* IPPROTO_*: IPv4's protocol, IPv6's next header */
	__u8 tcp;      /* th holds an unfragmented segment's TCP header */
	struct tcphdr th;
};

/* The frame's kind; for IP, where its header is, its addresses and TOS
 * byte, and for a packet that is not a fragment (IPv6: the L4 header
 * right after the fixed header) where its L4 header is; for such a TCP
 * segment, its TCP header.  An IP header with the wrong version, a length
 * below its minimum or beyond the frame is CCS_PKT_MALFORMED; a TCP header
 * cut short or with a data offset below 5 or beyond the IP length leaves
 * the packet IP, without tcp. */
static __always_inline enum ccs_pkt_kind ccs_parse(struct __sk_buff *skb, struct ccs_pkt *p)
{
	struct ccs_cursor c = { .skb = skb };
	__u32 len = skb->len, l3_len;
	__be16 proto;

	__builtin_memset(p, 0, sizeof(*p));
	if (ccs_cur_eth(&c, &proto))
		return CCS_PKT_OTHER;
	p->l3_off = c.off;
	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr ip;

		if (ccs_cur_pull(&c, &ip, sizeof(ip)) || ip.version != 4 || ip.ihl < 5 ||
		    bpf_ntohs(ip.tot_len) < ip.ihl * 4 || p->l3_off + bpf_ntohs(ip.tot_len) > len)
			return CCS_PKT_MALFORMED;
		p->tos = ip.tos;
		p->l4_proto = ip.protocol;
		c.off = p->l3_off + ip.ihl * 4;
		l3_len = bpf_ntohs(ip.tot_len);
		p->saddr[2] = p->daddr[2] = bpf_htonl(0xffff);
		p->saddr[3] = ip.saddr;
		p->daddr[3] = ip.daddr;
		if (ip.frag_off & bpf_htons(IP_MF | IP_OFFSET))
			return CCS_PKT_IP;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr ip6;

		if (ccs_cur_pull(&c, &ip6, sizeof(ip6)) || ip6.version != 6 ||
		    p->l3_off + sizeof(ip6) + bpf_ntohs(ip6.payload_len) > len)
			return CCS_PKT_MALFORMED;
		p->tos = (ip6.priority << 4) | (ip6.flow_lbl[0] >> 4);
		p->v6 = 1;
		p->l4_proto = ip6.nexthdr;
		l3_len = sizeof(ip6) + bpf_ntohs(ip6.payload_len);
		__builtin_memcpy(p->saddr, &ip6.saddr, 16);
		__builtin_memcpy(p->daddr, &ip6.daddr, 16);
	} else {
		return CCS_PKT_OTHER;
	}
	p->l3_len = l3_len;
	p->l4_off = c.off;
	if (p->l4_proto != IPPROTO_TCP)
		return CCS_PKT_IP;
	p->tcp = !ccs_cur_pull(&c, &p->th, sizeof(p->th)) && p->th.doff >= 5 &&
		 p->l4_off - p->l3_off + p->th.doff * 4 <= l3_len;
	return CCS_PKT_IP;
}

enum ccs_udp_err {
	CCS_UDP_NONE = -1,    /* not UDP, or the frame ends inside its header */
	CCS_UDP_BAD_LEN = -2, /* its length is below its header's, or beyond the IP packet */
};

/* The UDP step: the header at the cursor into @uh, the cursor on to the
 * payload.  The payload's length per the header when the datagram lies
 * within the @room bytes of the IP packet from the cursor on; else
 * CCS_UDP_BAD_LEN, with @uh read, or CCS_UDP_NONE. */
static __always_inline int ccs_cur_udp(struct ccs_cursor *c, __u32 room, struct udphdr *uh)
{
	__u32 ulen;

	if (ccs_cur_pull(c, uh, sizeof(*uh)))
		return CCS_UDP_NONE;
	ulen = bpf_ntohs(uh->len);
	if (ulen < sizeof(*uh) || ulen > room)
		return CCS_UDP_BAD_LEN;
	return ulen - sizeof(*uh);
}

/* The UDP step for @p (ccs_parse()): for an unfragmented UDP packet, the
 * cursor @c set at its header and ccs_cur_udp(); else CCS_UDP_NONE. */
static __always_inline int ccs_pkt_udp(struct __sk_buff *skb, const struct ccs_pkt *p,
				       struct ccs_cursor *c, struct udphdr *uh)
{
	if (p->l4_proto != IPPROTO_UDP || !p->l4_off)
		return CCS_UDP_NONE;
	c->skb = skb;
	c->off = p->l4_off;
	/* no wrap: the IP header fits in l3_len (ccs_parse()) */
	return ccs_cur_udp(c, p->l3_len - (p->l4_off - p->l3_off), uh);
}

/* Set CE in the IP header at @p: IPv4 fixes its checksum, IPv6 has none. */
static __always_inline void ccs_set_ce(struct __sk_buff *skb, const struct ccs_pkt *p)
{
	if (!p->v6) {
		__u32 off = p->l3_off;
		__u16 old, new;

		if (bpf_skb_load_bytes(skb, off, &old, 2))
			return;
		new = old | bpf_htons(INET_ECN_CE); /* tos is the 2nd byte */
		bpf_l3_csum_replace(skb, off + offsetof(struct iphdr, check), old, new, 2);
		bpf_skb_store_bytes(skb, off, &new, 2, 0);
	} else {
		__u8 b;

		/* the ECN bits are the low two of the traffic class: bits 4-5
		 * of the second byte */
		if (bpf_skb_load_bytes(skb, p->l3_off + 1, &b, 1))
			return;
		b |= INET_ECN_CE << 4;
		bpf_skb_store_bytes(skb, p->l3_off + 1, &b, 1, 0);
	}
}

#endif /* CCSUITE_PARSE_BPF_H */
