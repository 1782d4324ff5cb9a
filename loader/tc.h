/* SPDX-License-Identifier: GPL-2.0 */
/* ccload tc: the test network's switch program on a device's egress. */
#ifndef CCLOAD_TC_H
#define CCLOAD_TC_H

int cmd_tc(int argc, char **argv);

#endif
