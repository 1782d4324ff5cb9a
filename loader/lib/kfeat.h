/* SPDX-License-Identifier: GPL-2.0 */
/* What the running kernel offers, read from its BTF: the loader side of the
 * kernel-version differences (the BPF side is in bpf/lib/ccsuite.bpf.h). */
#ifndef CCLOAD_KFEAT_H
#define CCLOAD_KFEAT_H

#include <stdbool.h>

/* tcp_congestion_ops.cong_control takes (sk, rs), as before Linux 6.10. */
bool kfeat_cong_control_2args(void);

#endif
