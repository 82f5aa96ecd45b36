/* launcher/exec/live.h - the launcher's end of the live gate: it writes the
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
#include <stdint.h>
#include <stdio.h>

#include "launcher/exec/exec_findings.h"
#include "policy/policy.h"

/* Bounds on what a run's records may cost the launcher, whatever the
 * sandboxed programs send: distinct records kept, bytes of their text, and
 * per sending process a burst of new records then a steady rate (a token
 * bucket). A record over a bound is counted (it still denies) but not kept,
 * logged or echoed; the run ends with "paldron: N live records dropped
 * (flood)". Repeats of a kept record are folded into its count. */
#define PD_LIVE_MAX_RECS   4096
#define PD_LIVE_MAX_BYTES  (2u << 20)
#define PD_LIVE_BURST      256  /* new records a process may add at once */
#define PD_LIVE_PER_SEC    64   /* then this many per second */
#define PD_LIVE_RATE_SLOTS 1024 /* processes tracked; the rest share one bucket */

struct pd_live_rec {
    char *kind, *op, *path, *resolved, *key, *pattern, *reason, *program; /* in block */
    char *block; /* one allocation holding the strings */
    long pid;
    size_t count;  /* identical records are folded */
    uint64_t hash; /* of the fields that make two records identical */
};

struct pd_live_rate {
    long pid; /* 0: free slot */
    double tokens;
    long long stamp_ms;
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
    size_t nrecs, caprecs, bytes;
    uint32_t *index; /* open addressing over recs (index + 1; 0 = empty) */
    struct pd_live_rate *rates;
    size_t ndeny, naudit, ncoverage, nerror, nbad;
    /* writes refused for lying outside the writable roots only: reported
     * as "paldron: blocked: ...", denials only with strict = true */
    size_t nblocked;
    /* of those, calls a kernel layer refused after the live gate let them
     * through (key "landlock", "seccomp" or "namespace") */
    size_t nkernel;
    bool strict;
    char workspace[PD_PATH_MAX];    /* live lines show paths in it relative */
    const struct pd_ctx *ctx;       /* the run's (PATH, roots): to name the fix of a program */
    size_t ndropped, ndropped_deny; /* over a bound; _deny: of those, denials */
};

/* Keep ctx (it must outlive l) and the path of <run_dir>/policy.compiled
 * (written by pd_live_write_policy), bind <run_dir>/report.sock, open
 * log_path (may be NULL). Returns 0, or -1 with err naming the step. */
int pd_live_open(struct pd_live *l, const struct pd_ctx *ctx, const char *run_dir, const char *lib,
                 bool audit, const char *log_path, char *err, size_t errlen);

/* Write <run_dir>/policy.compiled (read-only), the image the preload maps
 * (policy/compiled_image.h): the context given to pd_live_open, its
 * allow_binaries resolved, and, with spec (NULL: no kernel layers), what
 * the kernel layers grant (policy/kernel_grants.h), so that the preload
 * can name a kernel layer that refused a call. After the spec and the
 * namespace plan are complete, before the run. Returns 0, or -1 with err. */
struct pd_sandbox_spec;
int pd_live_write_policy(struct pd_live *l, const struct pd_sandbox_spec *spec, char *err,
                         size_t errlen);

/* The environment entries the preload needs ("NAME=value", malloc'd, NULL
 * terminated list of at most 6). debug: the PALDRON_DEBUG value to pass, or
 * NULL. Returns 0 or -1 (ENOMEM). */
int pd_live_env(const struct pd_live *l, const char *debug, char *out[6]);

/* Read every record waiting on the socket. Never blocks. With l->echo set,
 * each record that denies is printed there at once as
 * "paldron: deny: <finding> [live]" (audit records as "paldron: audit:
 * would deny: ..."), besides being kept for the verdict. */
void pd_live_drain(struct pd_live *l);

/* A record the launcher itself makes (its proxy and DNS server of
 * allow_hosts, launcher/net/net_proxy.h), taken as a preload's record is:
 * counted, kept, logged, echoed. */
struct pd_report;
void pd_live_add(struct pd_live *l, const struct pd_report *r);

/* Every record that denies the run (deny, error, unreadable; blocked with
 * strict = true) as a finding: "<program> <op> <path> (<reason> <pattern>)
 * [live]". <path> is the path as judged (resolved; relative when it lies in
 * the workspace and was written relative), followed by "(written <path>)"
 * when the program wrote it otherwise; records that differ only in the
 * written form (one exec tried along PATH as /usr/bin/id and /bin/id) are
 * one. A program outside allow_binaries gets the fix after "[live]":
 * (add "id" to allow_binaries). */
void pd_live_findings(const struct pd_live *l, struct pd_findings *out);

/* Records that deny the run so far (deny, error, unreadable), repeats
 * included. */
size_t pd_live_denials(const struct pd_live *l);

/* Calls a kernel layer refused (blocked records of Landlock, seccomp or
 * the namespace floor), repeats included: information, not denials unless
 * strict = true. */
size_t pd_live_kernel_blocked(const struct pd_live *l);

/* The preload's fallback lines in a captured stderr: a record it could not
 * deliver (no descriptor left, no launcher reading) is printed instead as
 * "paldron: deny: <program> <op> <path> (<reason> <pattern>) [live]", and a
 * policy it could not load as "paldron: preload: cannot load policy ...".
 * Each such line is a denial finding (at most 64 listed, the rest
 * counted in one more). A program can forge these lines: that only makes
 * its own run deny. */
void pd_live_stderr_findings(const char *buf, size_t len, struct pd_findings *out);

/* strict = true: the preload's fallback lines for blocked writes
 * ("paldron: blocked: ... [live]" on the captured stderr, a record it could
 * not deliver) as denial findings, like pd_live_stderr_findings. */
void pd_live_stderr_blocked(const char *buf, size_t len, struct pd_findings *out);

/* Record that path runs without the preload (the command itself, seen by
 * the launcher: the preload never sees the first exec). */
void pd_live_note_unmonitored(struct pd_live *l, const char *path, const char *why);

/* The blocked calls ("paldron: blocked: <program> <op> <path> (outside
 * the writable roots) [live]", or "(<layer>: <why>) [live]" for a kernel
 * layer's refusal, with its narrow fix) unless strict = true made them
 * denials or they were echoed already; in audit mode, what would have been
 * denied and what the kernel layers refused, each with the smallest policy
 * change that allows it (narrow, or "none narrow: <why>"); "paldron: N
 * call(s) blocked by the kernel layers"; then the coverage line (what ran
 * on the kernel layers only); then "paldron: N live records dropped
 * (flood)" when a bound was hit. Repeats of one decision end in
 * "(repeated N times)", N the number of calls. */
void pd_live_notes(const struct pd_live *l, const struct pd_policy *pol, FILE *out);

void pd_live_close(struct pd_live *l);

#endif
