// SPDX-License-Identifier: GPL-2.0
/*
 * A hostile network for bpf_tldct's TCP options (test/net/t_tldct_opts.sh).
 * clsact programs, one section per mode, for a port's egress:
 *
 *   tc filter add dev DEV egress bpf direct-action obj tldct_mangle.bpf.o sec tc/MODE
 *
 * In IPv4 TCP segments it finds bpf_tldct's option (kind 253, ExID 0xCC7D,
 * tldct.h) and rewrites it:
 *
 *   tc/ack_badlen  ACK option: len 8 -> 6, its last 2 bytes NOPs
 *   tc/ack_max     ACK option: value 0xFFFFFFFF (the largest S_t, n = 255)
 *   tc/ack_n0      ACK option: n = 0
 *   tc/syn_badlen  SYN option: len 12 -> 10, its last 2 bytes NOPs
 *   tc/syn_random  SYN option: a random task id in every SYN
 *
 * The option space keeps its size, so the rest of the header parses as
 * before, and the TCP checksum is fixed.  Anything else passes untouched.
 * Segments are read with the suite's packet cursor (lib/parse.bpf.h) and
 * options in the layout of lib/tcpopt.bpf.h; that header's helpers for
 * finding an option are sock_ops ones, so the walk is here.  The test runs
 * it on crafted frames too (BPF_PROG_TEST_RUN).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "parse.bpf.h"
#include "tcpopt.bpf.h"
#include "tldct.h"

char _license[] SEC("license") = "GPL";

enum mode { ACK_BADLEN, ACK_MAX, ACK_N0, SYN_BADLEN, SYN_RANDOM };

/* The offset in the TCP header at @l4 of our option of @len bytes, among
 * the @optlen bytes of options after its fixed part, or -1.  A malformed
 * option list ends the walk, as it ends the stack's own parsing
 * (tcp_parse_options()). */
static __always_inline int find_opt(struct __sk_buff *skb, __u32 l4, __u32 optlen, __u32 len)
{
	struct ccs_cursor c = { .skb = skb };
	struct ccs_expopt o;
	__u32 off = 0, at;
	int i;

	/* Unrolled: the verifier prunes a path only against one that reached
	 * the same instruction.  off <= optlen <= 40, so the mask changes
	 * nothing at run time; to the verifier it makes all the paths into an
	 * iteration alike, and it explores one. */
#pragma unroll
	for (i = 0; i < MAX_TCP_OPTION_SPACE; i++) {
		off &= 63;
		at = l4 + sizeof(struct tcphdr) + off;
		c.off = at;
		if (off >= optlen || ccs_cur_pull(&c, &o, 1))
			return -1;
		if (o.kind == TCPOPT_EOL)
			return -1;
		if (o.kind == TCPOPT_NOP) {
			off++;
			continue;
		}
		/* kind, length and ExID (with less than 4 bytes left there is
		 * no room for ours) */
		c.off = at;
		if (ccs_cur_pull(&c, &o, 4) || o.len < 2 || off + o.len > optlen)
			return -1;
		if (o.kind == TLDCT_OPT_KIND && o.len == len &&
		    o.exid[0] == (TLDCT_OPT_EXID >> 8) && o.exid[1] == (TLDCT_OPT_EXID & 0xff))
			return sizeof(struct tcphdr) + off;
		off += o.len;
	}
	return -1;
}

/* Byte @off of the TCP header at @l4 becomes @to, and the checksum follows.
 * The checksum adds 16-bit words from the header's start: a byte at an even
 * offset is its word's high half, at an odd one the low half; the other
 * half does not change, so it is left out of the difference. */
static __always_inline void set_byte(struct __sk_buff *skb, __u32 l4, __u32 off, __u8 from, __u8 to)
{
	__u32 shift = off & 1 ? 0 : 8;

	if (bpf_skb_store_bytes(skb, l4 + off, &to, 1, 0))
		return;
	bpf_l4_csum_replace(skb, l4 + offsetof(struct tcphdr, check),
			    bpf_htons((__u16)from << shift), bpf_htons((__u16)to << shift), 2);
}

/* @new: @old as @mode rewrites it (@len bytes). */
static __always_inline void rewrite(struct ccs_expopt *new, const struct ccs_expopt *old, __u32 len,
				    enum mode mode)
{
	__u8 *b = (__u8 *)new;
	__u32 fb;

	*new = *old;
	switch (mode) {
	case ACK_BADLEN:
	case SYN_BADLEN:
		new->len = len - 2;
		b[len - 2] = b[len - 1] = TCPOPT_NOP;
		break;
	case ACK_MAX: ccs_be_store(new->val, tldct_feedback_pack(~0ULL, ~0ULL), 4); break;
	case ACK_N0:
		fb = ccs_be_load(old->val, 4);
		ccs_be_store(new->val, tldct_feedback_pack(tldct_feedback_bytes(fb), 0), 4);
		break;
	case SYN_RANDOM:
		ccs_be_store(new->val, (__u64)bpf_get_prandom_u32() << 32 | bpf_get_prandom_u32(),
			     8);
		break;
	}
}

static __always_inline int mangle(struct __sk_buff *skb, enum mode mode)
{
	bool on_syn = mode == SYN_BADLEN || mode == SYN_RANDOM;
	__u32 len = on_syn ? TLDCT_OPT_SYN_LEN : TLDCT_OPT_ACK_LEN;
	struct ccs_expopt old = {}, new; /* ACK: 8 bytes used */
	struct ccs_cursor c = { .skb = skb };
	const __u8 *ob = (void *)&old, *nb = (void *)&new;
	struct ccs_pkt p;
	int toff, i;

	if (ccs_parse(skb, &p) != CCS_PKT_IP || p.v6 || !p.tcp)
		return TC_ACT_OK;
	/* the task rides on the sender's SYN, the view on the receiver's
	 * segments after its SYN-ACK */
	if (on_syn ? !p.th.syn || p.th.ack : p.th.syn)
		return TC_ACT_OK;
	toff = find_opt(skb, p.l4_off, p.th.doff * 4 - sizeof(struct tcphdr), len);
	if (toff < 0)
		return TC_ACT_OK;
	c.off = p.l4_off + toff;
	if (ccs_cur_pull(&c, &old, len))
		return TC_ACT_OK;
	rewrite(&new, &old, len, mode);
	for (i = 0; i < len; i++)
		if (nb[i] != ob[i])
			set_byte(skb, p.l4_off, toff + i, ob[i], nb[i]);
	return TC_ACT_OK;
}

/* One section per mode: tc filter add ... bpf da obj FILE sec tc/<mode> */
#define MODE_PROG(name, mode)             \
	SEC("tc/" #name)                  \
	int name(struct __sk_buff *skb)   \
	{                                 \
		return mangle(skb, mode); \
	}

MODE_PROG(ack_badlen, ACK_BADLEN)
MODE_PROG(ack_max, ACK_MAX)
MODE_PROG(ack_n0, ACK_N0)
MODE_PROG(syn_badlen, SYN_BADLEN)
MODE_PROG(syn_random, SYN_RANDOM)
