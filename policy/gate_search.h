/* policy/gate_search.h - the agents' read-only file tools (Read, Grep, Glob,
 * LS, NotebookRead, Codex's grep_files and view_image) judged with the
 * scope of a shell command: what they would read is judged as a read
 * (PD_OP_READ: deny_globs and secrets, wherever it lies), not by the name
 * the call happens to carry. */
#ifndef PALDRON_GATE_SEARCH_H
#define PALDRON_GATE_SEARCH_H

#include <stdbool.h>

#include "policy/policy.h"

/* Is path (relative to base, an absolute directory) a process's
 * credentials that no file pattern names: /proc/<pid>/environ or
 * /proc/<pid>/mem, also through self, thread-self and task/<tid>/? Judged
 * on the path as written and on the path it resolves to. Returns the
 * pattern it falls under (the secret patterns "/proc/<any>/environ" and
 * "/proc/<any>/mem", written with a star) or NULL. */
const char *pd_proc_credential(const char *base, const char *path);

/* An agent tool reads path (a file, or a folder it lists): a credential
 * source is a secret, the rest is pd_gate_path(PD_OP_READ). base: NULL =
 * the context's cwd, else its workspace (as for pd_gate_path). */
void pd_gate_agent_read(const struct pd_ctx *c, const char *base, const char *path,
                        struct pd_verdict *v);

/* The most entries a Grep walk looks at; a search that holds more is
 * refused (give a narrower path). */
#define PD_GREP_MAX_ENTRIES 50000

/* Grep (ripgrep underneath) reads every file it searches: path (NULL or ""
 * = base) with its globs (Claude's `glob`: split at white space, and at
 * commas outside braces; "!" excludes; the last glob that matches decides,
 * as with rg --glob) and its rg file type. A folder is walked (VCS folders
 * skipped, hidden files included, links not followed but judged) and
 * denied when a file it would search is a secret or a deny_globs match;
 * the message names the file and how to leave it out. A single file is
 * that file. */
void pd_gate_grep(const struct pd_ctx *c, const char *base, const char *path, const char *glob,
                  const char *type, struct pd_verdict *v);

/* Glob lists names, it reads no content: the folder it lists (path, NULL
 * or "" = base) and the literal folder the pattern starts with
 * (~/.ssh for "/home/u/.ssh/<star>", ../x for "../x/<star>.c") are judged
 * as reads, so that a secret folder is refused while a pattern for every
 * PEM file of the workspace is not. */
void pd_gate_glob(const struct pd_ctx *c, const char *base, const char *path, const char *pattern,
                  struct pd_verdict *v);

#endif
