/* policy/report.h - the record the preload sends to the launcher for every
 * decision it must report (docs/preload.md, "Report channel").
 *
 * One record is one datagram of text, at most PD_REPORT_MAX bytes:
 *
 *   PDR1 <kind> <op> <path> <resolved> <key> <pattern> <reason> <pid> <program> <argv0> ...
 *
 * Fields are separated by one TAB. Inside a field '\' is written "\\", TAB
 * "\t" and newline "\n"; nothing else is escaped. An absent field (NULL) is
 * written empty and decodes as "". A field too long for its share of the
 * record is cut (never inside an escape) and ends in "..."; argv entries are
 * added while they fit, the last one possibly cut the same way.
 *
 * Pure functions: no allocation, no I/O, safe in any context (the preload
 * encodes in processes that may be anywhere, even in a signal handler). */
#ifndef PALDRON_POLICY_REPORT_H
#define PALDRON_POLICY_REPORT_H

#include <stddef.h>

#define PD_REPORT_MAGIC    "PDR1"
#define PD_REPORT_MAX      8192 /* bytes of one record, the datagram size */
#define PD_REPORT_MAX_ARGS 1024 /* argv entries kept in one record */

/* Kinds of record. */
#define PD_REPORT_DENY     "deny"     /* a call was refused */
#define PD_REPORT_AUDIT    "audit"    /* PALDRON_AUDIT=1: would have been refused */
#define PD_REPORT_COVERAGE "coverage" /* an exec target runs without the preload */
#define PD_REPORT_ERROR    "error"    /* the preload could not load its policy */
/* a write outside the writable roots that no rule names was refused: the
 * verdict follows the command unless the policy says strict = true; also a
 * call the live gate let through and a kernel layer refused (the key names
 * the layer, PD_LAYER_*, and the reason is "<layer>: <why>") */
#define PD_REPORT_BLOCKED "blocked"

/* Keys of blocked records from the kernel layers (preload/kernel_refusal.h). */
#define PD_LAYER_LANDLOCK  "landlock"
#define PD_LAYER_SECCOMP   "seccomp"
#define PD_LAYER_NAMESPACE "namespace"
/* Their reasons. */
#define PD_KERNEL_READ      "landlock: outside the readable roots"
#define PD_KERNEL_WRITE     "landlock: outside the writable roots"
#define PD_KERNEL_EXEC      "landlock: outside the exec roots"
#define PD_KERNEL_NETWORK   "seccomp: network off"
#define PD_KERNEL_MASKED    "namespace: masked secret"
#define PD_KERNEL_READONLY  "namespace: read-only"
#define PD_KERNEL_HOST_SOCK "namespace: host socket masked"

/* Reasons of coverage records. */
#define PD_REPORT_STATIC  "static binary"
#define PD_REPORT_SETUID  "set-uid program"
#define PD_REPORT_FOREIGN "foreign ELF class"
#define PD_REPORT_FCAPS   "file capabilities"
#define PD_REPORT_NONAME  "no file on disk (memfd or deleted file)"

struct pd_report {
    const char *kind;     /* PD_REPORT_DENY ... */
    const char *op;       /* read write create delete exec connect bind send resolve init */
    const char *path;     /* as passed by the program */
    const char *resolved; /* absolute resolved path, or "" */
    const char *key;      /* policy key that decided ("deny_globs", ...) */
    const char *pattern;  /* pattern that matched, or "" */
    const char *reason;   /* PD_REASON_* or a coverage / error reason */
    long pid;
    const char *program; /* short name of the program that made the call */
    size_t argc;
    const char *const *argv;
};

/* A decoded record and the storage its strings point into. */
struct pd_report_decoded {
    struct pd_report r;
    const char *argv[PD_REPORT_MAX_ARGS];
    char text[PD_REPORT_MAX + 1];
};

/* Encode r into buf (len bytes; PD_REPORT_MAX is always enough). Returns
 * the record's length (no NUL is counted; one is written when room is
 * left), or 0 when len is too small even for the fixed fields. */
size_t pd_report_encode(const struct pd_report *r, char *buf, size_t len);

/* Decode one record of len bytes (it need not be NUL-terminated) into d;
 * d->r's strings then point into d->text. Returns 0, or -1 when the record
 * is malformed (bad magic, missing fields, bad escape, bad pid, unknown
 * kind, longer than PD_REPORT_MAX). */
int pd_report_decode(const char *buf, size_t len, struct pd_report_decoded *d);

#endif
