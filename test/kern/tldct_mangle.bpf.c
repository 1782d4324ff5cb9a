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
 * It walks the options in place: those of locally sent segments are in the
 * linear part.  The test runs it on crafted frames too (BPF_PROG_TEST_RUN).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "parse.bpf.h"
#include "tldct.h"

char _license[] SEC("license") = "GPL";

enum mode { ACK_BADLEN, ACK_MAX, ACK_N0, SYN_BADLEN, SYN_RANDOM };

/* The offset of our option of @len bytes in the option space @opts of
 * @optlen bytes, or -1.  A malformed option list ends the walk, as it
 * ends the stack's own parsing (tcp_parse_options()). */
static __always_inline int find_opt(__u8 *opts, void *data_end, __u32 optlen, __u32 len)
{
	__u32 off = 0;
	int i;

	/* Unrolled: the verifier prunes a path only against one that reached
	 * the same instruction.  off <= optlen <= 40, so the mask changes
	 * nothing at run time; to the verifier it makes all the paths into an
	 * iteration alike, and it explores one (loading takes 0.1 s, not 2). */
#pragma unroll
	for (i = 0; i < MAX_TCP_OPTION_SPACE; i++) {
		__u8 *p;

		off &= 63;
		p = opts + off;
		if (off >= optlen || (void *)(p + 1) > data_end)
			return -1;
		if (p[0] == TCPOPT_EOL)
			return -1;
		if (p[0] == TCPOPT_NOP) {
			off++;
			continue;
		}
		/* (with less than 4 bytes left there is no room for ours) */
		if ((void *)(p + 4) > data_end || p[1] < 2 || off + p[1] > optlen)
			return -1;
		if (p[0] == TLDCT_OPT_KIND && p[1] == len && p[2] == (TLDCT_OPT_EXID >> 8) &&
		    p[3] == (TLDCT_OPT_EXID & 0xff))
			return off;
		off += p[1];
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

static __always_inline int mangle(struct __sk_buff *skb, enum mode mode)
{
	void *data = (void *)(long)skb->data, *data_end = (void *)(long)skb->data_end;
	bool on_syn = mode == SYN_BADLEN || mode == SYN_RANDOM;
	__u32 len = on_syn ? TLDCT_OPT_SYN_LEN : TLDCT_OPT_ACK_LEN;
	__u8 old[TLDCT_OPT_SYN_LEN] = {}, new[TLDCT_OPT_SYN_LEN]; /* ACK: 8 used */
	struct ccs_pkt p;
	__u32 l4, toff;
	__u8 *opts;
	__u64 task;
	int off, i;

	if (ccs_parse(skb, &p) != CCS_PKT_IP || p.v6 || !p.tcp)
		return TC_ACT_OK;
	/* the task rides on the sender's SYN, the view on the receiver's
	 * segments after its SYN-ACK */
	if (on_syn ? !p.th.syn || p.th.ack : p.th.syn)
		return TC_ACT_OK;
	l4 = p.l4_off & 0xff; /* <= 14 + 8 + 60: a bound the verifier can use */
	opts = data + l4 + sizeof(struct tcphdr);
	off = find_opt(opts, data_end, p.th.doff * 4 - sizeof(struct tcphdr), len);
	if (off < 0)
		return TC_ACT_OK;
	toff = sizeof(struct tcphdr) + off;
	if (bpf_skb_load_bytes(skb, l4 + toff, old, len))
		return TC_ACT_OK;
	__builtin_memcpy(new, old, sizeof(new));

	switch (mode) {
	case ACK_BADLEN:
	case SYN_BADLEN:
		new[1] = len - 2;
		new[len - 2] = new[len - 1] = TCPOPT_NOP;
		break;
	case ACK_MAX: new[4] = new[5] = new[6] = new[7] = 0xff; break;
	case ACK_N0: new[7] = 0; break;
	case SYN_RANDOM:
		task = (__u64)bpf_get_prandom_u32() << 32 | bpf_get_prandom_u32();
		for (i = 0; i < 8; i++)
			new[4 + i] = task >> (56 - 8 * i);
		break;
	}

	for (i = 0; i < len; i++)
		if (new[i] != old[i])
			set_byte(skb, l4, toff + i, old[i], new[i]);
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
