/* launcher/hook/hook.h - the parts of `paldron check --hook` (launcher/cli/cmd_hook.c):
 * reading the client's JSON, finding the project, routing a shell call. */
#ifndef PALDRON_HOOK_H
#define PALDRON_HOOK_H

#include <stdbool.h>
#include <stddef.h>

#include "launcher/launcher.h"

struct cJSON;

/* hook_input.c: all of stdin (at most 16 MiB), NUL-terminated, its length
 * in *len; NULL with errno on failure. */
char *pd_hook_read_stdin(size_t *len);
/* Parse the input: a JSON object with no NUL (raw or \u0000) and no key
 * twice in one object. Returns 0 with *out (cJSON_Delete it), or -1 with
 * a one-line reason in why. */
int pd_hook_parse(const char *text, size_t len, struct cJSON **out, char *why, size_t whylen);

/* hook_project.c: the workspace of a call made in cwd (absolute): the
 * policy file's folder when cwd lies in it, else the git work tree around
 * cwd, else cwd; resolved. Returns 0, or -1 with why. */
int pd_hook_project(const char *policy, const char *cwd, char *out, size_t outlen, char *why,
                    size_t whylen);

/* --policy-from-git-root: <work tree root around cwd>/.paldron.toml, which
 * must exist. Returns 0, or -1 with why (no repository, no policy there). */
int pd_hook_policy_from_git_root(const char *cwd, char *out, size_t outlen, char *why,
                                 size_t whylen);

/* hook_route.c: what the routing hook needs to rewrite a shell call. */
struct pd_hook_route {
    const char *paldron;   /* absolute path of this paldron binary */
    const char *policy;    /* absolute policy path, NULL for the defaults */
    const char *workspace; /* the project (pd_hook_project) */
    long long timeout;     /* seconds the client gives the call */
};
/* The text of the command the client should run instead of text: text run
 * under `paldron exec --routed`, every part single-quoted for the client's
 * shell. malloc'd, NULL on allocation failure. */
char *pd_hook_routed_command(const struct pd_hook_route *r, const char *text);
/* The seconds a client gives a shell call with this tool_input: its
 * "timeout" / "timeout_ms" (milliseconds), else the client's default
 * (120 s); a background call (run_in_background) has no client limit. */
long long pd_hook_client_timeout(const struct cJSON *tool_input);
/* The shell tool's command: tool_input.command, else .cmd (NULL if none). */
const struct cJSON *pd_hook_command_item(const struct cJSON *tool_input);
/* The shell tool's command as one text: the string; the script of a
 * ["bash", "-lc", SCRIPT] argv; any other argv array quoted back for the
 * shell. malloc'd; NULL when there is none. */
char *pd_hook_command_text(const struct cJSON *tool_input);
/* Print the allow decision whose updatedInput is tool_input with its
 * command replaced by routed (every other key kept, as the clients ask).
 * Returns 0, or -1 on allocation failure (nothing printed). */
int pd_hook_print_routed(const struct cJSON *tool_input, const char *routed, const char *reason);

#endif
