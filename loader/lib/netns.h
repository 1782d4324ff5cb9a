/* SPDX-License-Identifier: GPL-2.0 */
/* Working in a named network namespace (/run/netns/NAME) and back. */
#ifndef CCLOAD_NETNS_H
#define CCLOAD_NETNS_H

#include <stdbool.h>

/* Enter @name (NULL: stay); *@back gets what netns_leave() returns to
 * (-1 when nothing was entered).  < 0 with a message on failure. */
int netns_enter(const char *name, int *back);
void netns_leave(int back);
/* Is there a namespace @name (NULL: ours, yes)? */
bool netns_exists(const char *name);

/* @dev's ifindex in the current namespace; 0 with a message when none. */
int netns_dev_index(const char *dev, const char *netns);

#endif
