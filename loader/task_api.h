/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccs_task_set(): put a TCP socket into a bpf_tldct task.  Header-only, no
 * libbpf needed: include it and call it between socket() and connect().
 *
 *   int fd = socket(AF_INET, SOCK_STREAM, 0);
 *   ccs_task_set(fd, job_id);      // before connect()
 *   connect(fd, ...);
 *
 * A task id set this way wins over the default (the socket's cgroup v2 id).
 * Task ids are 64-bit and should be the same on every host that sends for
 * the task (the receiver adds up the task's flows from all senders).
 * Returns 0, or -errno: -ENOENT when bpf_tldct is not attached, -EBUSY when
 * the socket already carries data under a task (set it before connect()).
 */
#ifndef CCSUITE_TASK_API_H
#define CCSUITE_TASK_API_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

#include "tldct.h"

#define CCS_TASK_MAP "/sys/fs/bpf/ccsuite/bpf_tldct/tldct_sk"

static inline int ccs_bpf(int cmd, union bpf_attr *attr)
{
	long r = syscall(__NR_bpf, cmd, attr, sizeof(*attr));

	return r < 0 ? -errno : (int)r;
}

/* Same as ccs_task_set() with the map's fd given (ccload keeps it open). */
static inline int ccs_task_set_map(int map_fd, int sock_fd, uint64_t task)
{
	struct tldct_sk v;
	union bpf_attr attr;
	int err;

	memset(&v, 0, sizeof(v));
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map_fd;
	attr.key = (uintptr_t)&sock_fd;
	attr.value = (uintptr_t)&v;
	err = ccs_bpf(BPF_MAP_LOOKUP_ELEM, &attr);
	if (err && err != -ENOENT)
		return err;
	if (!err && (v.flags & TLDCT_SK_RESOLVED) && v.task != task)
		return -EBUSY;	/* its bytes are counted under another task */
	v.task = task;
	v.flags |= TLDCT_SK_EXPLICIT;
	attr.flags = BPF_ANY;
	return ccs_bpf(BPF_MAP_UPDATE_ELEM, &attr);
}

static inline int ccs_task_set(int sock_fd, uint64_t task)
{
	union bpf_attr attr;
	int map, err;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (uintptr_t)CCS_TASK_MAP;
	map = ccs_bpf(BPF_OBJ_GET, &attr);
	if (map < 0)
		return map;
	err = ccs_task_set_map(map, sock_fd, task);
	close(map);
	return err;
}

#endif /* CCSUITE_TASK_API_H */
