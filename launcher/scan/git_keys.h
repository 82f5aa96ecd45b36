/* launcher/scan/git_keys.h - which git configuration entries make git run a
 * program (the list and the reasons: docs/policy.md, "Git's own programs"). */
#ifndef PALDRON_LAUNCHER_GIT_KEYS_H
#define PALDRON_LAUNCHER_GIT_KEYS_H

#include <stdbool.h>

/* Does git run a program (or read more configuration) because of this
 * entry? Names as pd_git_config_parse reports them (section and key
 * lowercased; subsection NULL when there is none; value NULL for a bare
 * key). */
bool pd_git_key_runs(const char *section, const char *subsection, const char *key,
                     const char *value);

#endif
