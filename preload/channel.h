/* preload/channel.h - how the preload tells: one record per reported
 * decision, sent as a datagram to the launcher's socket
 * $PALDRON_RUN/report.sock (format: policy/report.h); a line on stderr when
 * no launcher listens; and the PALDRON_DEBUG trace. */
#ifndef PALDRON_PRELOAD_CHANNEL_H
#define PALDRON_PRELOAD_CHANNEL_H

#include <stdbool.h>

struct pd_state;

struct pd_event {
    const char *kind;     /* PD_REPORT_DENY, _AUDIT, _COVERAGE, _ERROR */
    const char *op;       /* read, write, create, delete, exec, connect ... */
    const char *path;     /* as passed */
    const char *resolved; /* absolute resolved path or "" */
    const char *key;      /* policy key, or "" */
    const char *pattern;  /* pattern, or "" */
    const char *reason;   /* reason word */
};

/* Send ev to the launcher, over this process image's report socket, opened
 * for its first record (not at load time: a process that is never refused
 * holds no descriptor of ours) and kept; opened again if the program closed
 * it or put another file at its number. When it cannot be delivered - no
 * launcher, no descriptor left, a launcher that does not read - print it
 * on stderr if print_fallback (paldron: deny: <program> <op> <path>
 * (<reason> <pattern>) [live]): the launcher counts that line in the
 * captured stderr as a denial (launcher/exec/live.h). The call is refused
 * either way. */
void pd_emit(const struct pd_state *s, const struct pd_event *ev, bool print_fallback);
/* (s may be NULL when there is no state yet: the policy could not be
 * loaded.) */

/* PALDRON_DEBUG=1: paldron-preload[<pid>]: <program> <op> <path> -> <what> */
void pd_trace(const char *op, const char *path, const char *what, const char *reason,
              const char *pattern);

/* Write the NULL-terminated list of strings and a newline to stderr, with
 * one write (no stdio, no allocation). */
void pd_say(const char *first, ...) __attribute__((sentinel));

#endif
