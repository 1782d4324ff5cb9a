// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <bpf/btf.h>

#include "kfeat.h"
#include "log.h"

/* Parameters of the function type a member of @sname points to, or -1. */
static int member_fn_arity(const struct btf *btf, const char *sname, const char *member)
{
	const struct btf_member *m;
	const struct btf_type *t;
	int id, i;

	id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), member))
			continue;
		t = btf__type_by_id(btf, m->type);
		if (!t || !btf_is_ptr(t))
			return -1;
		t = btf__type_by_id(btf, t->type);
		return t && btf_is_func_proto(t) ? btf_vlen(t) : -1;
	}
	return -1;
}

bool kfeat_cong_control_2args(void)
{
	static int arity = -2; /* not read yet */
	struct btf *btf;

	if (arity == -2) {
		btf = btf__load_vmlinux_btf();
		arity = btf ? member_fn_arity(btf, "tcp_congestion_ops", "cong_control") : -1;
		btf__free(btf);
		if (arity < 0)
			pr_debug(
				"cannot read tcp_congestion_ops.cong_control from the kernel's BTF\n");
	}
	return arity == 2;
}
