/* preload/loader_started.h - the dynamic loader started as the program
 * (`ld.so PROGRAM` by a caller the exec wrappers did not see).
 *
 * ld.so maps PROGRAM itself: the kernel executes only the loader, which
 * every dynamic program needs and the exec floor (Landlock) therefore
 * allows, never PROGRAM. Through the exec wrappers the gate judges PROGRAM
 * from ld.so's arguments (policy/gate_exec.c). A static binary or a raw
 * execve skips them; the loader keeps LD_PRELOAD, so this library is in the
 * process, and its constructor sees the case: the kernel mapped no
 * interpreter (AT_BASE is 0), the program is the interpreter. It then
 * judges the file the loader mapped as the program - by its identity, the
 * object of the link map's first entry found in /proc/self/maps by address
 * - as an exec of that file. Denied: the denial is recorded and the process
 * exits 126 before the program's own code runs.
 *
 * Not covered (docs/security.md): a caller that also drops LD_PRELOAD from
 * the loader's environment, and libraries the program needs whose
 * constructors run before this one. */
#ifndef PALDRON_PRELOAD_LOADER_STARTED_H
#define PALDRON_PRELOAD_LOADER_STARTED_H

#include <stdbool.h>

/* From the constructor: nothing (one getauxval) unless the loader is the
 * program; then judge what it mapped, and _exit(126) on a denial. */
void pd_loader_started_check(char **argv);

/* wrap_exec.c: may the program the loader mapped (path; fd >= 0: that file,
 * open) run with argv? The exec gate's judgement, recorded as a denial
 * when not. */
bool pd_exec_mapped_allowed(const char *path, int fd, char *const argv[]);

#endif
