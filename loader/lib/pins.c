// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "pins.h"
#include "log.h"
#include "obj.h"
#include "util.h"

void pin_dir(const char *cc, char *buf, size_t len)
{
	snprintf(buf, len, PIN_ROOT "/%s", cc);
}

void pin_path(const char *cc, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, PIN_ROOT "/%s/%s", cc, name);
}

int pin_open(const char *cc, const char *name)
{
	char path[512];

	pin_path(cc, name, path, sizeof(path));
	return bpf_obj_get(path);
}

int pin_open_map(const char *cc, const char *name, size_t key_size, size_t value_size)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	int fd = pin_open(cc, name);

	if (fd < 0)
		return fd;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.key_size != key_size ||
	    info.value_size != value_size) {
		close(fd);
		errno = EBADMSG;
		return -1;
	}
	return fd;
}

const char *pin_name(struct bpf_object *obj, struct bpf_map *m)
{
	if (m == obj_struct_ops(obj))
		return PIN_OPS;
	if (m == obj_rodata(obj))
		return PIN_RODATA;
	if (bpf_map__is_internal(m))
		return NULL;
	if (!strcmp(bpf_map__name(m), "ccs_stats"))
		return PIN_STATS;
	return bpf_map__name(m);
}

int pin_all(struct bpf_object *obj, const char *dir)
{
	struct bpf_map *m;
	char path[256];
	int err;

	err = mkdir_p(dir);
	if (err) {
		pr_warn("cannot create %s: %s\n", dir, strerror(-err));
		return err;
	}
	bpf_object__for_each_map(m, obj) {
		const char *name = pin_name(obj, m);

		if (!name)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		err = bpf_map__pin(m, path);
		if (err) {
			pr_warn("cannot pin %s: %s\n", path, strerror(-err));
			return err;
		}
	}
	return 0;
}

int pin_reuse(struct bpf_object *obj, const char *dir)
{
	struct bpf_map *ops = obj_struct_ops(obj), *m;
	char path[256];
	int fd, err;

	bpf_object__for_each_map(m, obj) {
		const char *name = pin_name(obj, m);

		if (!name || m == ops)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		fd = bpf_obj_get(path);
		if (fd < 0) {
			pr_warn("%s: no pin %s: %s\n", bpf_map__name(m), path, strerror(errno));
			return -errno;
		}
		err = bpf_map__reuse_fd(m, fd);
		close(fd);
		if (err) {
			pr_warn("cannot use %s: %s\n", path, strerror(-err));
			return err;
		}
	}
	return 0;
}
