// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "kcc.h"
#include "log.h"
#include "util.h"

/* Layout of struct bpf_struct_ops_tcp_congestion_ops in the running kernel. */
struct kcc_layout {
	uint32_t value_type_id;
	uint32_t state_off;
	uint32_t name_off;
};

static int member_offset(const struct btf *btf, uint32_t type_id, const char *name, uint32_t *off,
			 uint32_t *member_type)
{
	const struct btf_type *t = btf__type_by_id(btf, type_id);
	const struct btf_member *m;
	int i;

	if (!t || !btf_is_struct(t))
		return -ENOENT;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), name))
			continue;
		*off = btf_member_bit_offset(t, i) / 8;
		if (member_type)
			*member_type = m->type;
		return 0;
	}
	return -ENOENT;
}

static int kcc_layout(struct kcc_layout *l)
{
	static struct kcc_layout cached;
	uint32_t common_off, common_type, state_off, data_off, data_type, name_off;
	struct btf *btf;
	int id, err;

	if (cached.value_type_id) {
		*l = cached;
		return 0;
	}
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return -errno;
	id = btf__find_by_name_kind(btf, "bpf_struct_ops_tcp_congestion_ops", BTF_KIND_STRUCT);
	err = id < 0 ? id : 0;
	/* state sits in a "common" member on newer kernels (6.18 here) and
	 * directly in the value on older ones (6.1) */
	if (!err && !member_offset(btf, id, "common", &common_off, &common_type)) {
		err = member_offset(btf, common_type, "state", &state_off, NULL);
	} else if (!err) {
		common_off = 0;
		err = member_offset(btf, id, "state", &state_off, NULL);
	}
	if (!err)
		err = member_offset(btf, id, "data", &data_off, &data_type);
	if (!err)
		err = member_offset(btf, data_type, "name", &name_off, NULL);
	btf__free(btf);
	if (err) {
		pr_warn("kernel BTF has no usable tcp_congestion_ops struct_ops layout\n");
		return err;
	}
	cached.value_type_id = id;
	cached.state_off = common_off + state_off;
	cached.name_off = data_off + name_off;
	*l = cached;
	return 0;
}

int kcc_for_each(int (*fn)(const struct kcc *k, void *ctx), void *ctx)
{
	struct kcc_layout l = {};
	uint32_t id = 0;
	int err, ret = 0;

	err = kcc_layout(&l);
	if (err)
		return err;
	while (!ret && !bpf_map_get_next_id(id, &id)) {
		struct bpf_map_info info = {};
		uint32_t len = sizeof(info), zero = 0;
		struct kcc k = { .map_id = id };
		unsigned char *val;
		int fd = bpf_map_get_fd_by_id(id);

		if (fd < 0)
			continue; /* freed meanwhile */
		if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
		    info.type != BPF_MAP_TYPE_STRUCT_OPS ||
		    info.btf_vmlinux_value_type_id != l.value_type_id ||
		    info.value_size < l.name_off + sizeof(k.name)) {
			close(fd);
			continue;
		}
		val = calloc(1, info.value_size);
		if (val && !bpf_map_lookup_elem(fd, &zero, val)) {
			uint32_t state;

			memcpy(&state, val + l.state_off, sizeof(state));
			memcpy(k.name, val + l.name_off, sizeof(k.name) - 1);
			k.in_use = state == 1; /* BPF_STRUCT_OPS_STATE_INUSE */
			ret = fn(&k, ctx);
		}
		free(val);
		close(fd);
	}
	return ret;
}

struct unreg_ctx {
	const char *name;
	int count;
	int err;
};

static int unreg_one(const struct kcc *k, void *ctx)
{
	struct unreg_ctx *u = ctx;
	uint32_t zero = 0;
	int fd;

	if (!k->in_use || strcmp(k->name, u->name))
		return 0;
	fd = bpf_map_get_fd_by_id(k->map_id);
	if (fd < 0)
		return 0;
	if (bpf_map_delete_elem(fd, &zero) && errno != EINPROGRESS) {
		u->err = -errno;
		pr_warn("cannot unregister %s (struct_ops map id %u): %s\n", k->name, k->map_id,
			strerror(errno));
	} else {
		pr_debug("unregistered %s (struct_ops map id %u)\n", k->name, k->map_id);
		u->count++;
	}
	close(fd);
	return 0;
}

int kcc_unregister(const char *name)
{
	struct unreg_ctx u = { .name = name };
	int err = kcc_for_each(unreg_one, &u);

	if (err)
		return err;
	return u.err ? u.err : u.count;
}

bool cc_registered(const char *name)
{
	return word_in_file(SYSCTL_AVAIL, name);
}

struct id_ctx {
	const char *name;
	uint32_t id;
};

static int id_of_name(const struct kcc *k, void *ctx)
{
	struct id_ctx *x = ctx;

	if (!k->in_use || strcmp(k->name, x->name))
		return 0;
	x->id = k->map_id;
	return 1;
}

uint32_t kcc_registered_id(const char *name)
{
	struct id_ctx x = { .name = name };

	kcc_for_each(id_of_name, &x);
	return x.id;
}
