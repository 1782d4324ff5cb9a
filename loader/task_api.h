/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccs_task_set(): put a TCP socket into a bpf_tldct task (and
 * ccs_task_size_set(): state the task's size).  Header-only, no library:
 * include it and call it between socket() and connect().
 *
 *   int fd = socket(AF_INET, SOCK_STREAM, 0);
 *   ccs_task_set(fd, job_id);      // before connect()
 *   connect(fd, ...);
 *
 * It is a setsockopt() that bpf_tldct's cgroup/setsockopt program takes, so
 * it works in any network namespace or container, with no bpffs path.  A
 * task id set this way wins over the default (the socket's cgroup v2 id).
 * Task ids are 64-bit and name a task of the socket's own cgroup and
 * network namespace: sockets of other cgroups naming the same id are in
 * other tasks (bpf/tldct.h, "Tenants").  A receiver counts each sender's
 * flows of a task apart (its entries are keyed by the sender's address and
 * the id the SYN carries).
 * Returns 0, or -errno: -ENOPROTOOPT when bpf_tldct is not attached, -EPERM
 * when the socket already counts its bytes under another task (set it
 * before connect()).
 */
#ifndef CCSUITE_TASK_API_H
#define CCSUITE_TASK_API_H

#include <errno.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "tldct.h"

static inline int ccs_task_set(int sock_fd, uint64_t task)
{
	return setsockopt(sock_fd, IPPROTO_TCP, TLDCT_TCP_TASK, &task, sizeof(task)) ? -errno : 0;
}

/*
 * ccs_task_size_set(): state how many bytes the socket's task sends from
 * this host in all (0 takes it back), at any time.  With bpf_tldct's
 * tunable beta_left, the flow's task-size factor comes from the bytes the
 * task still has to send rather than those it has sent.  Returns 0, or
 * -errno as ccs_task_set().
 */
static inline int ccs_task_size_set(int sock_fd, uint64_t bytes)
{
	return setsockopt(sock_fd, IPPROTO_TCP, TLDCT_TCP_TASK_SIZE, &bytes, sizeof(bytes)) ?
		       -errno :
		       0;
}

#endif /* CCSUITE_TASK_API_H */
