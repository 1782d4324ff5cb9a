/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel constants that are #defines, so absent from vmlinux.h: the one
 * place BPF programs of the suite (bpf/, tc/, test/kern/) take them from,
 * as the selftests' progs/bpf_tracing_net.h does, with kdefs.h, which
 * holds those that host C may include too.  Each group names the header
 * it comes from.
 */
#ifndef CCSUITE_KDEFS_BPF_H
#define CCSUITE_KDEFS_BPF_H

#include "kdefs.h"

/* include/uapi/asm-generic/errno-base.h, errno.h */
#define ENOENT 2
#define ENOMEM 12
#define EINVAL 22
#define ENOSPC 28
#define ENOMSG 42

/* include/linux/socket.h, include/uapi/linux/in.h, tcp.h */
#define AF_INET	       2
#define AF_INET6       10
#define SOL_TCP	       6
#define TCP_CONGESTION 13
#define TCP_SAVE_SYN   27

/* include/asm-generic/page.h: the kernel's limit on what a sockopt
 * program sees of an option's value */
#define PAGE_SIZE 4096

/* include/uapi/linux/if_ether.h, if_vlan.h */
#define ETH_HLEN     14
#define ETH_P_IP     0x0800
#define ETH_P_IPV6   0x86DD
#define ETH_P_8021Q  0x8100
#define ETH_P_8021AD 0x88A8
#define VLAN_HLEN    4

/* include/uapi/linux/if_packet.h: skb->pkt_type of a frame to this host */
#define PACKET_HOST 0

/* include/net/ip.h, inet_ecn.h */
#define IP_DF		 0x4000
#define IP_MF		 0x2000
#define IP_OFFSET	 0x1FFF
#define INET_ECN_NOT_ECT 0
#define INET_ECN_ECT_1	 1
#define INET_ECN_ECT_0	 2
#define INET_ECN_CE	 3
#define INET_ECN_MASK	 3

/* include/net/tcp.h: header flags and options */
#define TCPHDR_FIN	     0x01
#define TCPHDR_SYN	     0x02
#define TCPHDR_RST	     0x04
#define TCPHDR_PSH	     0x08
#define TCPHDR_ACK	     0x10
#define TCPOPT_EOL	     0
#define TCPOPT_NOP	     1
#define TCPOPT_TIMESTAMP     8
#define TCPOLEN_TIMESTAMP    10
#define TCPOPT_EXP	     254 /* RFC 6994 experiments (254 and 253) */
#define MAX_TCP_OPTION_SPACE 40

/* include/uapi/linux/pkt_cls.h */
#define TC_ACT_UNSPEC	(-1)
#define TC_ACT_OK	0
#define TC_ACT_SHOT	2
#define TC_ACT_REDIRECT 7

/* include/uapi/linux/pkt_sched.h: skb->priority bands of pfifo_fast */
#define TC_PRIO_INTERACTIVE 6

/* include/linux/tcp.h: tp->ecn_flags bits (RFC 3168 mode is bit 0 on every
 * kernel; 6.18 renamed TCP_ECN_OK to TCP_ECN_MODE_RFC3168 and added AccECN) */
#define TCP_ECN_OK	    1
#define TCP_ECN_QUEUE_CWR   2
#define TCP_ECN_DEMAND_CWR  4
#define TCP_ECN_MODE_ACCECN 16

/* include/net/tcp.h: tcp_congestion_ops.flags */
#define TCP_CONG_NON_RESTRICTED 0x1
#define TCP_CONG_NEEDS_ECN	0x2

/* net/ipv4/tcp_input.c: the ACK flags cong_control() looks at */
#define FLAG_DATA_ACKED	      0x04
#define FLAG_SYN_ACKED	      0x10
#define FLAG_DATA_SACKED      0x20
#define FLAG_SND_UNA_ADVANCED 0x400
#define FLAG_ACKED	      (FLAG_DATA_ACKED | FLAG_SYN_ACKED)
#define FLAG_FORWARD_PROGRESS (FLAG_ACKED | FLAG_DATA_SACKED)

#endif /* CCSUITE_KDEFS_BPF_H */
