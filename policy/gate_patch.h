/* policy/gate_patch.h - Codex's apply_patch format, read the way Codex reads
 * it (codex-rs/apply-patch: parser.rs in its lenient mode, and the shell
 * forms of invocation.rs that Codex intercepts and applies itself). Nothing
 * here judges: the caller gets every file the patch adds, updates, deletes
 * or moves, and judges it (policy/gate_agent.c). */
#ifndef PALDRON_GATE_PATCH_H
#define PALDRON_GATE_PATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"

enum pd_patch_op {
    PD_PATCH_ADD,       /* "*** Add File: P": P created (or overwritten) */
    PD_PATCH_DELETE,    /* "*** Delete File: P": P removed (Codex reads it first) */
    PD_PATCH_UPDATE,    /* "*** Update File: P", no move: P read and rewritten */
    PD_PATCH_MOVE_FROM, /* "*** Update File: P" + "*** Move to:": P read, then removed */
    PD_PATCH_MOVE_TO,   /* "*** Move to: Q": Q written */
    /* A line Codex takes as content (a context or added line) that reads like
     * a file header once trimmed (" *** Add File: x" inside an update):
     * reported so that a parser version that differs cannot hide a path. */
    PD_PATCH_STRAY,
};

struct pd_patch_entry {
    enum pd_patch_op op;
    enum pd_patch_op header; /* PD_PATCH_STRAY: the header it reads like */
    const char *path;        /* not NUL-terminated: path[0, len) as Codex takes it */
    size_t len;
    size_t line; /* 1-based line of the header in the patch text */
};

/* Return false to stop the walk. */
typedef bool (*pd_patch_fn)(const struct pd_patch_entry *e, void *user);

/* Parse text[0, len) as Codex's parse_patch does (the whole text trimmed,
 * lines split at '\n' with one '\r' dropped, header lines trimmed of
 * Unicode white space, "*** Move to:" and the update lines not, the
 * "<<EOF ... EOF" wrapper of the lenient mode accepted). Calls fn for every
 * file operation in order and for every stray header-like line. Returns 0
 * when Codex accepts the patch, 1 when fn stopped the walk, and -1 when
 * Codex's parser rejects it: msg then says why, naming the line. */
int pd_patch_parse(const char *text, size_t len, pd_patch_fn fn, void *user, char *msg,
                   size_t msglen);

/* Every line of text whose trimmed form starts with "***", without the
 * structure: a known file header calls fn (op by header, never STRAY); an
 * unknown one ("*** Copy File: x") returns -1 with msg naming the line.
 * Used on a patch Codex rejects, to find the most specific reason. Returns
 * 0, 1 when fn stopped, or -1. */
int pd_patch_scan(const char *text, size_t len, pd_patch_fn fn, void *user, char *msg,
                  size_t msglen);

/* Judge the patch text[0, len) as Codex would apply it with base (an
 * absolute directory; NULL = the context's cwd, else its workspace) as its
 * working directory:
 * added files and move targets as created (PD_OP_CREATE), updated files as
 * written, deleted files as deleted (the name) and read (Codex reads them
 * first), a move's source as read and deleted; a stray header-like line by
 * the name rules (deny_globs, secrets, protected paths). A patch Codex
 * rejects is denied (reason guardrail, the line named), unless a header in
 * it gives a more specific reason. A path starting with "~" is a folder
 * named "~" to Codex, and judged as one. */
void pd_gate_patch(const struct pd_ctx *c, const char *base, const char *text, size_t len,
                   struct pd_verdict *v);

/* A shell command that is an apply_patch invocation (one statement only):
 *   [cd DIR &&] apply_patch|applypatch <<[-]DELIM \n BODY \n DELIM
 *   [cd DIR &&] apply_patch|applypatch 'PATCH'   (or "PATCH")
 * Codex intercepts the heredoc forms of `bash -lc` and applies the body
 * itself; the quoted forms run its apply_patch helper, which applies the
 * same text. Forms whose text bash would change before the helper saw it
 * (an unquoted delimiter or double quotes around $, ` or \, a DIR with an
 * expansion or a "~") are not recognised: the shell gate judges them. */
struct pd_patch_shell {
    const char *body; /* the patch text inside the command */
    size_t body_len;
    const char *dir; /* the cd DIR, quotes removed; NULL without cd */
    size_t dir_len;
};

bool pd_patch_shell_form(const char *command, struct pd_patch_shell *out);

#endif
