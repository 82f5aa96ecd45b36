/* policy/gate_agent.h - agents' own tools (Bash, Write, Edit, Read, Glob,
 * Grep, WebFetch, apply_patch, ...), judged for `paldron check` and hooks. */
#ifndef PALDRON_GATE_AGENT_H
#define PALDRON_GATE_AGENT_H

#include <stdbool.h>

#include "policy/policy.h"

struct cJSON;

/* Judge tool with its input object. Returns false when tool is not an agent
 * tool this function knows (the caller then applies the original's rules and
 * the generic pass); true with *v filled otherwise. */
bool pd_gate_agent(const struct pd_ctx *c, const char *tool, const struct cJSON *input,
                   struct pd_verdict *v);

/* Is tool one of the agents' shell tools (Bash, shell, exec_command,
 * local_shell, container.exec)? Their allowed calls are what the routing hook
 * runs under `paldron exec`. */
bool pd_agent_is_shell_tool(const char *tool);

/* Is command (a shell tool's command text) an apply_patch invocation that the
 * client applies itself - Codex intercepts `apply_patch <<'EOF' ... EOF`,
 * `apply_patch 'PATCH'` (also applypatch, after `cd DIR &&`)? pd_gate_agent
 * judges such a call as a patch (every file it adds, updates, deletes or
 * moves), and the routing hook does not rewrite it, so that the client still
 * recognises it. */
bool pd_agent_shell_is_patch(const char *command);

#endif
