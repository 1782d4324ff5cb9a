/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sock_ops helpers for an algorithm that carries its own TCP option: an
 * RFC 6994 experimental option (kind 253 or 254, a 2-byte ExID, then the
 * value), read with bpf_load_hdr_opt() and written with
 * bpf_store_hdr_opt(); and the checks every such program makes first
 * (is this socket's CC ours).  Values are network order, up to 8 bytes.
 */
#ifndef CCSUITE_TCPOPT_BPF_H
#define CCSUITE_TCPOPT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "kdefs.bpf.h"

#define CCS_EXPOPT_VAL_MAX 8

struct ccs_expopt {
	__u8 kind;
	__u8 len;
	__u8 exid[2];
	__u8 val[CCS_EXPOPT_VAL_MAX];
};

/* sockops runs for every TCP socket of the cgroup: is this one's CC @name
 * (a string constant of at most 15 characters)?  The listener for a
 * passive open, the connecting socket for an active one. */
static __always_inline bool ccs_sockops_cc_is(struct bpf_sock_ops *skops, const char *name)
{
	char cc[16] = {};
	int i;

	if (bpf_getsockopt(skops, SOL_TCP, TCP_CONGESTION, cc, sizeof(cc)))
		return false;
#pragma unroll
	for (i = 0; i < 16; i++) {
		if (cc[i] != name[i])
			return false;
		if (!name[i])
			return true;
	}
	return false;
}

static __always_inline void ccs_sockops_cb_flags(struct bpf_sock_ops *skops, __u32 add, __u32 clear)
{
	bpf_sock_ops_cb_flags_set(skops, (skops->bpf_sock_ops_cb_flags | add) & ~clear);
}

/*
 * The option @kind/@exid of exactly @len bytes (4 + the value) in the
 * segment, or with BPF_LOAD_HDR_OPT_TCP_SYN in the saved SYN, into @o:
 * 0 found; -1 absent (no such option, or no saved SYN: another listener,
 * SYN cookies); -2 present with another length (hostile or broken: the
 * caller counts it and ignores the option).
 */
static __always_inline int ccs_expopt_load(struct bpf_sock_ops *skops, struct ccs_expopt *o,
					   __u8 kind, __u16 exid, __u32 len, __u64 flags)
{
	int ret;

	__builtin_memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->len = 4; /* search by kind and the ExID */
	o->exid[0] = exid >> 8;
	o->exid[1] = exid & 0xff;
	ret = bpf_load_hdr_opt(skops, o, sizeof(*o), flags);
	/* longer than the buffer (-ENOSPC) is a bad length, not absence */
	if (ret < 0 && ret != -ENOSPC)
		return -1;
	if (ret != (int)len || o->len != len)
		return -2;
	return 0;
}

static __always_inline __u64 ccs_be_load(const __u8 *p, int n)
{
	__u64 v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static __always_inline void ccs_be_store(__u8 *p, __u64 v, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = v & 0xff;
}

/* Room for an option of @len bytes on the segment being sized, at
 * BPF_SOCK_OPS_HDR_OPT_LEN_CB, for ccs_expopt_store() to fill. */
static __always_inline int ccs_expopt_reserve(struct bpf_sock_ops *skops, __u32 len)
{
	return bpf_reserve_hdr_opt(skops, len, 0);
}

/* Write the option with the low @len - 4 bytes of @val (@len <= 12);
 * space for it was reserved at BPF_SOCK_OPS_HDR_OPT_LEN_CB
 * (ccs_expopt_reserve()). */
static __always_inline int ccs_expopt_store(struct bpf_sock_ops *skops, __u8 kind, __u16 exid,
					    __u64 val, __u32 len)
{
	struct ccs_expopt o = {
		.kind = kind,
		.len = len,
		.exid = { exid >> 8, exid & 0xff },
	};

	ccs_be_store(o.val, val, len - 4);
	return bpf_store_hdr_opt(skops, &o, len, 0);
}

/* Is the segment being written or parsed a SYN (not a SYN-ACK)? */
static __always_inline bool ccs_sockops_is_syn(const struct bpf_sock_ops *skops)
{
	return (skops->skb_tcp_flags & (TCPHDR_SYN | TCPHDR_ACK)) == TCPHDR_SYN;
}

#endif /* CCSUITE_TCPOPT_BPF_H */
