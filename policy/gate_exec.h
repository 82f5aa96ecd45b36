/* policy/gate_exec.h - may this process start that program? The one exec
 * decision, shared by the preload (every exec of every descendant) and the
 * launcher (the command itself).
 *
 * The rule (docs/preload.md, "Which programs may start"):
 *  0. deny_globs and the built-in secrets apply to the target (op EXEC).
 *  1. allow_binaries empty: every program may start.
 *  a. A bare allow_binaries entry allows a program of that name that lies
 *     outside the writable roots; an entry with '/' allows exactly that file
 *     (pd_gate_binary).
 *  b. A "#!" script is judged by its interpreter: the first line names it;
 *     "#!/usr/bin/env NAME" names NAME, looked up on the context PATH. A
 *     workspace script may run when its interpreter may.
 *  c. Helpers: a program under a private helper directory (/usr/lib,
 *     /usr/libexec, /usr/local/lib, /usr/local/libexec, /lib) may start when
 *     the caller's own executable is allowed (a) or is itself such a helper:
 *     gcc starts cc1 and collect2, git starts /usr/lib/git-core/git.
 *  d. Companions: as, ld, ld.bfd, ld.gold and ld.lld, found on the context
 *     PATH or in /usr/bin, may start when the caller is a helper (collect2)
 *     or an allowed compiler driver (cc, c++, gcc*, g++*, clang*, and
 *     target-prefixed forms such as x86_64-linux-gnu-gcc-12).
 * A deny carries reason PD_REASON_BINARY, key "allow_binaries" and the
 * program as passed as subject. */
#ifndef PALDRON_POLICY_GATE_EXEC_H
#define PALDRON_POLICY_GATE_EXEC_H

#include <stdbool.h>

#include "policy/policy.h"

/* Judge starting path (as passed to exec: a name without '/' is looked up on
 * c->path_env as execvp does; a relative path is joined to base, NULL base
 * = workspace). caller_exe: the absolute path of the calling program's own
 * executable (/proc/self/exe), or NULL when there is none (the launcher).
 * A program that cannot be found is allowed here (v->resolved is ""): the
 * exec itself then fails. */
void pd_gate_exec(const struct pd_ctx *c, const char *path, const char *base,
                  const char *caller_exe, struct pd_verdict *v);

/* Is exe (an absolute path) one of the programs allow_binaries names, by
 * identity (its real path equals the real path of an entry resolved on the
 * context PATH) or by pd_gate_binary? True when allow_binaries is empty. */
bool pd_exec_program_allowed(const struct pd_ctx *c, const char *exe);

/* Does abs lie under one of the private helper directories (rule c)? */
bool pd_exec_is_helper(const char *abs);

/* Will a program started from path load the preload? NULL when it will;
 * else why not (policy/report.h): PD_REPORT_STATIC (no PT_INTERP: no dynamic
 * loader reads LD_PRELOAD), PD_REPORT_FOREIGN (another ELF class or machine:
 * the loader ignores the library), PD_REPORT_SETUID / PD_REPORT_FCAPS
 * (set-uid, set-gid, file capabilities: the loader's secure mode drops
 * LD_PRELOAD - unless no_new_privs is set for the exec, which then grants
 * nothing). A "#!" script is judged by its interpreter. Reads the ELF header
 * and program headers only. The launcher asks this about the command it
 * starts; the preload about every exec after that. */
const char *pd_exec_unmonitored(const char *path, bool no_new_privs);

#endif
