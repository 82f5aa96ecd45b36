/* launcher/live.h - the launcher's end of the live gate: it writes the
 * compiled policy the preload reads, owns the report socket every preloaded
 * process sends its records to, and turns the records into the run's
 * verdict lines, the coverage line, the --log file and --audit advice.
 *
 * Life cycle: pd_live_open (before fork) -> pd_live_env (child environment)
 * -> pd_live_drain (whenever the socket is readable, and once after the run)
 * -> pd_live_print -> pd_live_close. */
#ifndef PALDRON_LIVE_H
#define PALDRON_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "launcher/exec_findings.h"
#include "policy/policy.h"

struct pd_live_rec {
    char *kind, *op, *path, *resolved, *key, *pattern, *reason, *program;
    long pid;
    size_t count; /* identical records are folded */
};

struct pd_live {
    int fd; /* the report socket (SOCK_DGRAM, bound in the run directory) */
    bool audit;
    FILE *log;  /* --log FILE: every record as one JSON line */
    FILE *echo; /* interactive: each denying (or audit) record, one line as it comes */
    char lib[PD_PATH_MAX];
    char run_dir[PD_PATH_MAX];
    char compiled[PD_PATH_MAX];
    struct pd_live_rec *recs;
    size_t nrecs;
    size_t ndeny, naudit, ncoverage, nerror, nbad;
};

/* Write <run_dir>/policy.compiled (read-only) from ctx, bind
 * <run_dir>/report.sock, open log_path (may be NULL). Returns 0, or -1 with
 * err naming the step. */
int pd_live_open(struct pd_live *l, const struct pd_ctx *ctx, const char *run_dir, const char *lib,
                 bool audit, const char *log_path, char *err, size_t errlen);

/* The environment entries the preload needs ("NAME=value", malloc'd, NULL
 * terminated list of at most 6). debug: the PALDRON_DEBUG value to pass, or
 * NULL. Returns 0 or -1 (ENOMEM). */
int pd_live_env(const struct pd_live *l, const char *debug, char *out[6]);

/* Read every record waiting on the socket. Never blocks. With l->echo set,
 * each record that denies is printed there at once as
 * "paldron: deny: <finding> [live]" (audit records as "paldron: audit:
 * would deny: ..."), besides being kept for the verdict. */
void pd_live_drain(struct pd_live *l);

/* Every record that denies the run (deny, error, unreadable) as a finding:
 * "<program> <op> <path> (<reason> <pattern>) [live]". */
void pd_live_findings(const struct pd_live *l, struct pd_findings *out);

/* Records that deny the run so far (deny, error, unreadable), repeats
 * included. */
size_t pd_live_denials(const struct pd_live *l);

/* Record that path runs without the preload (the command itself, seen by
 * the launcher: the preload never sees the first exec). */
void pd_live_note_unmonitored(struct pd_live *l, const char *path, const char *why);

/* In audit mode, what would have been denied and the smallest policy
 * change that allows it; then the coverage line (what ran on the kernel
 * layers only). */
void pd_live_notes(const struct pd_live *l, const struct pd_policy *pol, FILE *out);

void pd_live_close(struct pd_live *l);

#endif
