/* policy/gate_mcp.h - MCP tools as the clients name them ("mcp__server__tool"):
 * their arguments, at any depth, judged as the paths and URLs they are. */
#ifndef PALDRON_GATE_MCP_H
#define PALDRON_GATE_MCP_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"

struct cJSON;

/* Is tool an MCP tool: "mcp__<server>__<tool>", or the clients' own MCP
 * resource readers (ReadMcpResourceTool, read_mcp_resource)? */
bool pd_mcp_tool(const char *tool);

/* Does the tool part of an MCP tool name say that it changes files (see
 * the word list in gate_mcp.c)? Whole words of the name (split at '_',
 * '-', '.', and lower-to-upper case changes) are compared, so that
 * "get_settings" is no "set"; a few unambiguous stems (write, delete,
 * mkdir, ...) are found inside words too ("writefile"). */
bool pd_mcp_write_like(const char *tool);

/* The path a file: URI names: the scheme and an empty or "localhost"
 * host removed, the query and fragment cut, %XX decoded. Returns 0 with
 * out filled; 1 when uri is no file: URI; -1 when it is one that cannot be
 * judged (another host, a relative form, an encoded NUL or '/', a path
 * too long): msg says why. */
int pd_file_uri_path(const char *uri, char *out, size_t outlen, char *msg, size_t msglen);

/* Judge an MCP call: every string argument at any depth (content-like keys
 * such as content, text, old_string... excepted) that is a file: URI or
 * looks like a path is judged - as a write for a write-like tool (the
 * source of a move or rename as a delete, of a copy as a read; a path
 * under a key that does not name a path only by the name rules:
 * deny_globs, secrets, protected), as a read otherwise. A network URL
 * under a URL-like key (url, uri, href, endpoint, link, ...) is refused
 * when allow_network is false. Relative paths are taken against base (an
 * absolute directory; NULL = the context's cwd, else its workspace). */
void pd_gate_mcp(const struct pd_ctx *c, const char *tool, const struct cJSON *input,
                 const char *base, struct pd_verdict *v);

#endif
