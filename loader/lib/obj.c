// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "obj.h"
#include "kfeat.h"
#include "log.h"
#include "pins.h"

#define VERIFIER_TAIL_LINES 20

struct bpf_object *obj_open_algo(const struct algo *a)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = a->name);
	struct bpf_object *obj;
	const void *elf;
	size_t sz;

	if (a->elf_bytes_pre_6_10 && kfeat_cong_control_2args()) {
		pr_debug(
			"%s: kernel's cong_control takes (sk, rs): the object for kernels before 6.10\n",
			a->name);
		elf = a->elf_bytes_pre_6_10(&sz);
	} else {
		pr_debug("%s: the object for kernels from 6.10\n", a->name);
		elf = a->elf_bytes(&sz);
	}
	obj = bpf_object__open_mem(elf, sz, &opts);
	if (!obj)
		pr_warn("%s: cannot open BPF object: %s\n", a->name, strerror(errno));
	return obj;
}

struct bpf_object *obj_open_file(const char *path)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);

	if (!obj)
		pr_warn("%s: cannot open BPF object: %s\n", path, strerror(errno));
	return obj;
}

struct bpf_map *obj_rodata(struct bpf_object *obj)
{
	struct bpf_map *m;
	const char *n;

	bpf_object__for_each_map(m, obj) {
		n = bpf_map__name(m);
		if (bpf_map__is_internal(m) && strlen(n) >= 7 &&
		    !strcmp(n + strlen(n) - 7, ".rodata"))
			return m;
	}
	return NULL;
}

struct bpf_map *obj_struct_ops(struct bpf_object *obj)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj)
		if (bpf_map__type(m) == BPF_MAP_TYPE_STRUCT_OPS)
			return m;
	return NULL;
}

/* Offset and size of @var in the .rodata DATASEC of @btf. */
static int rodata_var_btf(const struct btf *btf, const char *var, uint32_t *off, uint32_t *size)
{
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	int id, i;

	if (!btf)
		return -ENOENT;
	id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	if (id < 0)
		return -ENOENT;
	sec = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *v = btf__type_by_id(btf, vs->type);

		if (strcmp(btf__name_by_offset(btf, v->name_off), var))
			continue;
		*off = vs->offset;
		*size = vs->size;
		return 0;
	}
	return -ENOENT;
}

static int rodata_var(struct bpf_object *obj, const char *var, uint32_t *off, uint32_t *size)
{
	return rodata_var_btf(bpf_object__btf(obj), var, off, size);
}

/* @var from .rodata contents @data laid out as @btf says. */
static int rodata_get_btf(const struct btf *btf, const void *data, const char *var, uint64_t *v)
{
	uint32_t off, size;
	int err = rodata_var_btf(btf, var, &off, &size);

	if (err)
		return err;
	if (size == 4) {
		uint32_t x;

		memcpy(&x, (const char *)data + off, 4);
		*v = x;
	} else if (size == 8) {
		memcpy(v, (const char *)data + off, 8);
	} else {
		return -EINVAL;
	}
	return 0;
}

int rodata_get(struct bpf_object *obj, const void *data, const char *var, uint64_t *v)
{
	return rodata_get_btf(bpf_object__btf(obj), data, var, v);
}

int rodata_set(struct bpf_object *obj, void *data, const char *var, uint64_t v)
{
	uint32_t off, size;
	int err = rodata_var(obj, var, &off, &size);

	if (err)
		return err;
	if (size == 4) {
		uint32_t x = (uint32_t)v;

		if (v > UINT32_MAX)
			return -ERANGE;
		memcpy((char *)data + off, &x, 4);
	} else if (size == 8) {
		memcpy((char *)data + off, &v, 8);
	} else {
		return -EINVAL;
	}
	return 0;
}

int rodata_set_random(struct bpf_object *obj, void *data, const char *var)
{
	uint32_t off, size, got = 0;
	int err = rodata_var(obj, var, &off, &size);
	ssize_t n;

	if (err)
		return err == -ENOENT ? 0 : err;
	/* getrandom(2) without flags: blocks only before the pool is ready */
	while (got < size) {
		n = getrandom((char *)data + off + got, size - got, 0);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0)
			got += (uint32_t)n;
	}
	return 0;
}

/*
 * A kernel LRU hash with the common LRU list (no BPF_F_NO_COMMON_LRU) hands
 * free entries to a CPU's local list LRU_LOCAL_FREE at a time, and evicts to
 * make that many when the global free list has fewer
 * (kernel/bpf/bpf_lru_list.c, LOCAL_FREE_TARGET; later kernels take fewer
 * when the map is small).  Free entries left in the other CPUs' lists
 * cannot be used, so a table of N may evict with about N - 128 x CPUs live:
 * t_flashpass_pacer's 4096 ledgers kept 3968 on two CPUs.  With that much
 * more room, the N the docs state hold before the least recently used goes.
 * The room is at most N again: a table never holds more than 2N, which
 * what is sized beside it (the pacer's tables, fp_emu) allows for; on a
 * host of more than N / 128 possible CPUs an eviction may come earlier.
 */
#define LRU_LOCAL_FREE 128

int obj_lru_headroom(struct bpf_object *obj, const char *what)
{
	int ncpu = libbpf_num_possible_cpus();
	struct bpf_map *m;
	uint64_t want;
	int err;

	if (ncpu < 1) {
		pr_warn("%s: cannot count the possible CPUs: %s\n", what, strerror(-ncpu));
		return ncpu < 0 ? ncpu : -EINVAL;
	}
	bpf_object__for_each_map(m, obj) {
		enum bpf_map_type t = bpf_map__type(m);

		if ((t != BPF_MAP_TYPE_LRU_HASH && t != BPF_MAP_TYPE_LRU_PERCPU_HASH) ||
		    (bpf_map__map_flags(m) & BPF_F_NO_COMMON_LRU))
			continue;
		want = (uint64_t)LRU_LOCAL_FREE * ncpu;
		if (want > bpf_map__max_entries(m))
			want = bpf_map__max_entries(m);
		want += bpf_map__max_entries(m);
		err = want > UINT32_MAX ? -E2BIG : bpf_map__set_max_entries(m, (uint32_t)want);
		if (err) {
			pr_warn("%s: cannot size map %s: %s\n", what, bpf_map__name(m),
				strerror(-err));
			return err;
		}
	}
	return 0;
}

int obj_load(struct bpf_object *obj, const char *what)
{
	int err = bpf_object__load(obj);

	if (!err)
		return 0;
	pr_warn("%s: the kernel refused to load it: %s\n", what, strerror(-err));
	log_print_verifier_tail(VERIFIER_TAIL_LINES);
	return err;
}

/*
 * The registration's .rodata (its pinned map), read with the BTF it was
 * loaded with: a registration from another build of ccload may lay its
 * tunables out differently.  NULL when it cannot be read.
 */
static void *pinned_rodata(const struct algo *a, struct btf **btf)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info), zero = 0;
	void *c = NULL;
	int fd;

	*btf = NULL;
	fd = pin_open(a->name, PIN_RODATA);
	if (fd < 0)
		return NULL;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.btf_id && info.value_size)
		c = calloc(1, info.value_size);
	if (c && !bpf_map_lookup_elem(fd, &zero, c))
		*btf = btf__load_from_kernel_by_id(info.btf_id);
	close(fd);
	if (!*btf) {
		free(c);
		return NULL;
	}
	return c;
}

int algo_tunables_read(const struct algo *a, uint64_t *cur, uint64_t *def)
{
	struct bpf_object *obj = obj_open_algo(a);
	struct bpf_map *ro = obj ? obj_rodata(obj) : NULL;
	size_t sz = 0, i;
	const void *d = ro ? bpf_map__initial_value(ro, &sz) : NULL;
	struct btf *btf;
	void *c;

	if (!d) {
		bpf_object__close(obj);
		return -ENOENT;
	}
	c = pinned_rodata(a, &btf);
	for (i = 0; i < a->n_tunables; i++) {
		def[i] = cur[i] = 0;
		rodata_get(obj, d, a->tunables[i].name, &def[i]);
		cur[i] = def[i];
		if (c)
			rodata_get_btf(btf, c, a->tunables[i].name, &cur[i]);
	}
	free(c);
	btf__free(btf);
	bpf_object__close(obj);
	return 0;
}
