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

#endif
