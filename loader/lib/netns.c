// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "netns.h"
#include "log.h"

int netns_enter(const char *name, int *back)
{
	char path[256];
	int fd, err = 0;

	*back = -1;
	if (!name)
		return 0;
	if (!name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		pr_warn("'%s' is not a network namespace name\n", name);
		return -EINVAL;
	}
	*back = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*back < 0 || fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
		err = -errno;
		pr_warn("cannot enter network namespace '%s': %s\n", name, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	if (err && *back >= 0) {
		close(*back);
		*back = -1;
	}
	return err;
}

void netns_leave(int back)
{
	if (back < 0)
		return;
	if (setns(back, CLONE_NEWNET))
		pr_warn("cannot return to ccload's network namespace: %s\n", strerror(errno));
	close(back);
}

int netns_dev_index(const char *dev, const char *netns)
{
	int ifindex = strlen(dev) < IF_NAMESIZE ? (int)if_nametoindex(dev) : 0;

	if (!ifindex)
		pr_warn("no device '%s'%s%s\n", dev, netns ? " in network namespace " : "",
			netns ? netns : "");
	return ifindex;
}

bool netns_exists(const char *name)
{
	char path[256];

	if (!name)
		return true;
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	return !strchr(name, '/') && access(path, F_OK) == 0;
}
