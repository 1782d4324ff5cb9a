/* SPDX-License-Identifier: GPL-2.0 */
/* ccload list / attach / detach: struct_ops congestion controls. */
#ifndef CCLOAD_CC_H
#define CCLOAD_CC_H

int cmd_list(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_detach(int argc, char **argv);

#endif
