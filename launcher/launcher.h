/* launcher/launcher.h - the paldron CLI's internal interfaces. Only the
 * launcher maps results to exit codes (0 allow, 2 deny, 1 broken). */
#ifndef PALDRON_LAUNCHER_H
#define PALDRON_LAUNCHER_H

enum pd_exit { PD_EXIT_ALLOW = 0, PD_EXIT_BROKEN = 1, PD_EXIT_DENY = 2 };

const char *pd_version(void);

#endif
