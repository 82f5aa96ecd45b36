/* policy/gate_exec.h - may this process start that program? The one exec
 * decision, shared by the preload (every exec of every descendant) and the
 * launcher (the command itself).
 *
 * The rule (docs/preload.md, "Which programs may start"):
 *  0. deny_globs and the built-in secrets apply to the target (op EXEC).
 *  1. allow_binaries empty: every program may start.
 *  a. By identity: the file that will run (device and inode, links
 *     followed) is the file an allow_binaries entry names
 *     (pd_binary_entry_file: a bare name is the program PATH finds outside
 *     the writable roots; an entry with '/' is that file, relative ones in
 *     the workspace). A link in a writable root named like an allowed
 *     program is judged by what it leads to.
 *  b. A "#!" script is judged by its interpreter, resolved as the kernel
 *     does (a relative one against the working directory of the exec);
 *     "#!/usr/bin/env NAME" names NAME, looked up on the context PATH. An
 *     interpreter that cannot be resolved is denied.
 *  c. Helpers, scoped to their driver: a program under git's exec-path
 *     (/usr/lib/git-core) may start when the caller is an allowed git or
 *     another git helper; one under gcc's or clang's trees (/usr/lib/gcc,
 *     /usr/libexec/gcc, /usr/lib/llvm-*) when the caller is an allowed
 *     compiler driver or another program of those trees.
 *  d. Companions: as, ld, ld.bfd, ld.gold and ld.lld, found on the context
 *     PATH or in /usr/bin, may start when the caller is a program of the
 *     compiler trees (collect2) or an allowed compiler driver (cc, c++,
 *     gcc*, g++*, clang*, cpp, and target-prefixed forms such as
 *     x86_64-linux-gnu-gcc-12).
 *  e. The dynamic loader (ld-linux*, ld.so) is never a helper: running it
 *     as a program is judged as running the program its arguments name
 *     (the first word after its options), or denied when there is none or
 *     it has no '/' (the loader would search its library path).
 *  f. A descriptor (fexecve, execveat AT_EMPTY_PATH) is judged by the file
 *     it has open; one with no file on disk (memfd, deleted) is denied.
 *  g. The go work directory (c->go_tmp, the run's $GOTMPDIR): a program
 *     beneath it (by its real path) may start when the caller is an
 *     allowed go tool or another program beneath it (go test, go run),
 *     though the directory is writable.
 *  h. The launcher's connect helper (c->connect_helper, exec with
 *     allow_hosts): that very file, started as "<it> connect HOST PORT",
 *     may start from any caller (ssh's ProxyCommand): it only opens a
 *     tunnel through the run's proxy, which judges HOST and PORT. Started
 *     any other way it is judged as any program.
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
                  const char *const argv[], const char *caller_exe, struct pd_verdict *v);

/* Judge starting the file open at fd (fexecve, execveat with AT_EMPTY_PATH)
 * by that file: /proc/self/fd/N, checked to be the same device and inode
 * as the open file, then pd_gate_exec. Returns false when the descriptor
 * names no file on disk (a memfd, a deleted or replaced file): then v is a
 * deny when allow_binaries is set, else an allow with v->resolved the
 * link's text. */
bool pd_gate_exec_fd(const struct pd_ctx *c, int fd, const char *base, const char *const argv[],
                     const char *caller_exe, struct pd_verdict *v);

/* The interpreter a "#!" script at script will run, resolved as the kernel
 * resolves it (relative to base, the working directory; NULL = workspace),
 * or for "#!/usr/bin/env NAME" NAME on the context PATH (env's own path in
 * env, else env = ""; env may be NULL). Returns 1 when script is no "#!"
 * script, 0 with out set, -1 when the interpreter cannot be resolved. */
int pd_exec_interpreter(const struct pd_ctx *c, const char *script, const char *base, char *out,
                        size_t outlen, char *env, size_t envlen);

/* Is path the dynamic loader (its name or its real path's: ld-linux*,
 * ld.so, ld-*.so*)? */
bool pd_exec_is_loader(const char *path);

/* Is name a compiler driver (rule d)? */
bool pd_exec_is_driver(const char *name);

/* The helper trees (rule c; a component may be a glob such as llvm-*)
 * that the program called name (git, gcc-12, clang) may start programs
 * from, NULL-terminated; NULL when name drives none. The go driver's tree
 * is the run's work directory (rule g, c->go_tmp), not listed here. */
const char *const *pd_exec_helper_trees(const char *name);

/* Is exe (an absolute path) one of the programs allow_binaries names, by
 * identity (pd_binary_entry_of)? True when allow_binaries is empty. */
bool pd_exec_program_allowed(const struct pd_ctx *c, const char *exe);

/* Does abs lie under one of the private library directories (/usr/lib,
 * /usr/libexec, /usr/local/lib, /usr/local/libexec, /lib)? */
bool pd_exec_is_helper(const char *abs);

/* The kernel floor of allow_binaries (policy/exec_floor.c): calls add
 * with every path on which execution may be granted: each allowed file
 * (an entry with '/' that does not exist yet by its normalized path, so
 * that the caller knows which writable root may hold it), the
 * interpreters of allowed scripts (and env), the helper trees and
 * companions of allowed drivers, the dynamic loaders. Nothing when
 * allow_binaries is empty (every program may run). Returns 0, or -1 when
 * add fails (its errno is kept). Allocates: launcher only. */
int pd_exec_floor(const struct pd_ctx *c, int (*add)(void *arg, const char *path), void *arg);

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
