/* policy/shell/shell_programs.h - what the per-program table of the shell gate
 * (policy/shell/shell_programs.c, with the interpreter families of
 * policy/shell/shell_interp.c) knows that other parts of Paldron use.
 *
 * The table itself says, for the programs an agent runs most, which of
 * their arguments are paths read or written, which are data (patterns,
 * scripts, messages, branch names), which run other programs and which make
 * a command impossible to judge statically. pd_gate_shell() uses it; it is
 * not part of the library's interface. */
#ifndef PALDRON_POLICY_SHELL_PROGRAMS_H
#define PALDRON_POLICY_SHELL_PROGRAMS_H

#include <stdbool.h>

/* Does the program (a base name: "python3", "bash", "/usr/bin/perl" is
 * read as "perl") run code it is given - a shell, a script interpreter
 * (python*, node, perl*, ruby, php, lua*, Rscript, deno, bun, awk and its
 * kin), or make, which runs its recipes? The static gate cannot read such
 * code: with one of these allowed, the static-only hook is advisory. */
bool pd_shell_program_runs_code(const char *name);

#endif
