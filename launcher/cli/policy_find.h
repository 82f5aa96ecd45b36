/* launcher/cli/policy_find.h - policy discovery and workspace sanity
 * (launcher/cli/policy_find.c). */
#ifndef PALDRON_POLICY_FIND_H
#define PALDRON_POLICY_FIND_H

#include <stddef.h>

#include "launcher/launcher.h"

/* The .paldron.toml that applies to cwd (absolute, resolved): in cwd or the
 * nearest parent up to the root of its git work tree (cwd alone outside a
 * work tree). Returns 1 with its path in out, 0 when there is none, -1
 * with why filled when the file found is unsafe or unreadable. */
int pd_policy_discover(const char *cwd, char *out, size_t outlen, char *why, size_t whylen);

/* Why ws (absolute, resolved) is too wide to be a workspace without
 * --workspace naming it ("/", home, a top-level or system folder), or
 * NULL. */
const char *pd_workspace_too_wide(const char *ws, const char *home);

#endif
