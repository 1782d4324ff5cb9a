// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <linux/magic.h>

#include "util.h"
#include "log.h"

int need_root(void)
{
	if (geteuid() == 0)
		return 0;
	pr_warn("ccload must run as root (it needs CAP_BPF, CAP_NET_ADMIN and CAP_SYS_ADMIN)\n");
	return -EPERM;
}

int need_btf(void)
{
	if (access(VMLINUX_BTF, R_OK) == 0)
		return 0;
	pr_warn("no kernel BTF at %s: struct_ops needs a kernel built with CONFIG_DEBUG_INFO_BTF=y\n",
		VMLINUX_BTF);
	return -ENOENT;
}

int need_bpffs(void)
{
	struct statfs st;

	if (statfs(BPFFS, &st) == 0 && st.f_type == BPF_FS_MAGIC)
		return 0;
	if (mkdir_p(BPFFS) < 0 || mount("bpf", BPFFS, "bpf", 0, "mode=0700") < 0) {
		pr_warn("bpffs is not mounted at %s and mounting it failed: %s\n", BPFFS,
			strerror(errno));
		return -errno;
	}
	pr_info("mounted bpffs at %s\n", BPFFS);
	return 0;
}

/* Where cgroup v2 is mounted (a hybrid host has it at .../unified). */
int cgroup2_root(char *buf, size_t len)
{
	char dev[64], dir[256], type[64];
	FILE *f = fopen("/proc/self/mounts", "r");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fscanf(f, "%63s %255s %63s %*[^\n]", dev, dir, type) == 3) {
		if (!strcmp(type, "cgroup2")) {
			snprintf(buf, len, "%s", dir);
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

int mkdir_p(const char *path)
{
	char buf[256];
	char *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

void rm_pin_dir(const char *dir)
{
	struct dirent *de;
	char path[512];
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) < 0)
			pr_debug("unlink %s: %s\n", path, strerror(errno));
	}
	closedir(d);
	rmdir(dir);
}

int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		buf[0] = '\0';
		return 0;
	}
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CREAT, 0644);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(s))
		err = -EIO;
	close(fd);
	return err;
}

bool word_in_file(const char *path, const char *name)
{
	char buf[1024], *tok, *save = NULL;

	if (read_line(path, buf, sizeof(buf)) < 0)
		return false;
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
		if (!strcmp(tok, name))
			return true;
	return false;
}

/*
 * Registrations, pins, sysctls and cgroup-root programs are host-wide:
 * one ccload changes them at a time.  The lock is held until exit (the
 * kernel drops it with the process, a killed one too).
 */
static int lock_fd = -1;

int lock_host_state(void)
{
	int fd, err;

	if (lock_fd >= 0)
		return 0; /* this process holds it already */
	err = mkdir_p(RUN_DIR);
	if (err) {
		pr_warn("cannot make %s: %s\n", RUN_DIR, strerror(-err));
		return err;
	}
	fd = open(RUN_DIR "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) == 0)
		goto out;
	pr_info("waiting for another ccload (%s)\n", RUN_DIR "/lock");
	if (flock(fd, LOCK_EX) < 0) {
		close(fd);
		fd = -1;
	}
out:
	if (fd < 0) {
		err = -errno;
		pr_warn("cannot lock %s: %s\n", RUN_DIR "/lock", strerror(errno));
		return err;
	}
	lock_fd = fd; /* stays open: the lock lasts until exit or unlock */
	return 0;
}

void unlock_host_state(void)
{
	if (lock_fd >= 0)
		close(lock_fd);
	lock_fd = -1;
}

void fault_point(const char *step)
{
	const char *f = getenv("CCLOAD_FAULT");

	if (f && !strcmp(f, step))
		raise(SIGKILL);
}

void addr6_str(const uint32_t a[4], char *buf, size_t len)
{
	if (!a[0] && !a[1] && a[2] == htonl(0xffff))
		inet_ntop(AF_INET, &a[3], buf, (socklen_t)len);
	else
		inet_ntop(AF_INET6, a, buf, (socklen_t)len);
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}
