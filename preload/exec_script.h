/* preload/exec_script.h - a "#!" script inside a writable root, started as
 * the kernel would start it: its interpreter, with the script as argument.
 *
 * Why: with allow_binaries set, the kernel floor (launcher/exec/exec_sandbox.c)
 * grants no execution in a writable root that holds no allowed program, so
 * execve of src/run.sh fails with EACCES even when the live gate allowed it
 * (a script is judged by its interpreter). The interpreter is an allowed
 * program and may read the script, so the live gate starts that instead,
 * with binfmt_script's argument vector: interpreter, the optional argument
 * of the "#!" line, the script's path as given, argv[1...]. A static
 * program (no live gate) cannot run such a script: that is the floor. */
#ifndef PALDRON_PRELOAD_EXEC_SCRIPT_H
#define PALDRON_PRELOAD_EXEC_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#include "preload/state.h"

struct pd_script_run {
    char interp[PD_PATH_MAX]; /* absolute path of the interpreter */
    char arg[PD_PATH_MAX];    /* the "#!" line's optional argument */
    char **argv;              /* mapped; NULL-terminated */
    size_t maplen;
};

/* Fill r when allow_binaries is set, abs (what path, as passed, resolved
 * to) lies inside a writable root and is a "#!" script whose interpreter
 * exists. Returns true then (release r with pd_script_release), else false.
 * Call inside the recursion guard. */
bool pd_script_prepare(const struct pd_state *s, const char *path, const char *abs,
                       char *const argv[], struct pd_script_run *r);

void pd_script_release(struct pd_script_run *r);

#endif
