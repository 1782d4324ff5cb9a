/* SPDX-License-Identifier: GPL-2.0 */
/* ccload task: bpf_tldct's tasks (set a socket's task, show the tables). */
#ifndef CCLOAD_TASK_H
#define CCLOAD_TASK_H

int cmd_task(int argc, char **argv);

#endif
