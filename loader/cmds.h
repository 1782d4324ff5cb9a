/* SPDX-License-Identifier: GPL-2.0 */
/* ccload's commands: the front end over the library in loader/lib/. */
#ifndef CCLOAD_CMDS_H
#define CCLOAD_CMDS_H

int cmd_list(int argc, char **argv); /* cmd_cc.c */
int cmd_attach(int argc, char **argv);
int cmd_detach(int argc, char **argv);
int cmd_stats(int argc, char **argv);	  /* cmd_stats.c */
int cmd_switch(int argc, char **argv);	  /* cmd_switch.c */
int cmd_tc(int argc, char **argv);	  /* cmd_tc.c */
int cmd_task(int argc, char **argv);	  /* cmd_task.c */
int cmd_flashpass(int argc, char **argv); /* cmd_flashpass.c */
int cmd_lia(int argc, char **argv);	  /* cmd_mptcp.c */
int cmd_ppqd(int argc, char **argv);

#endif
