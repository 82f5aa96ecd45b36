/* launcher/outscan/outscan.h - the output scanner: judges a captured stdout/stderr
 * buffer before a single byte of it is released. Every secret it finds is
 * replaced by "[REDACTED:<rule>]" in a copy of the buffer and listed as a
 * finding; the launcher denies a run with any finding.
 *
 * Life cycle:
 *   struct pd_outscan *s = pd_outscan_new();
 *   pd_outscan_add_env(s, environ);              known values from secret-looking env names
 *   pd_outscan_add_secret_file(s, ".env");       known values from a secret file
 *   pd_outscan_add_pattern(s, "acme", "prefix=ACME_ class=[A-Za-z0-9] min=20 max=40");
 *   struct pd_outscan_result r;
 *   pd_outscan_scan(s, buf, len, &r);            r.out / r.findings
 *   pd_outscan_result_free(&r);
 *   pd_outscan_free(s);
 *
 * What is found (docs/output-scan.md has the exact rules):
 *   - known values, raw or JSON-escaped ("known-value"), base64 in the standard and URL-safe
 *     alphabets at each of the three byte alignments, also inside a longer base64
 *     stream ("known-value-base64"), and hex in lower and upper case
 *     ("known-value-hex");
 *   - well-known credential formats (pd_outscan_rule_names());
 *   - extra user patterns (pd_outscan_add_pattern()).
 *
 * Bytes are bytes: buffers may hold NUL bytes and invalid UTF-8. Output is
 * deterministic. The module never prints, never exits and is not thread-safe
 * (one scanner per thread; pd_outscan_scan() compiles the needles on first use).
 * Errors: -1 with errno set; pd_outscan_last_error() says more where useful. */
#ifndef PALDRON_OUTSCAN_H
#define PALDRON_OUTSCAN_H

#include <stdbool.h>
#include <stddef.h>

struct pd_outscan;

enum pd_outscan_kind {
    PD_OUTSCAN_KNOWN_VALUE = 0,  /* rule "known-value" */
    PD_OUTSCAN_KNOWN_BASE64 = 1, /* rule "known-value-base64" */
    PD_OUTSCAN_KNOWN_HEX = 2,    /* rule "known-value-hex" */
    PD_OUTSCAN_FORMAT = 3,       /* a built-in credential format rule */
    PD_OUTSCAN_PATTERN = 4,      /* a user pattern (pd_outscan_add_pattern) */
};

/* One redacted span of the scanned buffer. Spans never overlap and are sorted
 * by offset. rule and source point into static storage or into the scanner:
 * they stay valid until pd_outscan_free(). */
struct pd_outscan_finding {
    const char *rule; /* the word inside [REDACTED:...] */
    enum pd_outscan_kind kind;
    const char *source; /* known values: "env OPENAI_API_KEY", "file .env"; else NULL */
    size_t offset;      /* in the scanned buffer */
    size_t length;      /* bytes replaced */
};

struct pd_outscan_result {
    char *out;      /* the redacted copy, NUL-terminated (out[out_len] == '\0') */
    size_t out_len; /* equals the input length when there is no finding */
    struct pd_outscan_finding *findings;
    size_t n_findings;
};

/* A scanner with the built-in rules and no known value. NULL + ENOMEM. */
struct pd_outscan *pd_outscan_new(void);
void pd_outscan_free(struct pd_outscan *scan);

/* Add one known secret value (len bytes, may hold any byte). source_label says
 * where it came from, e.g. "env OPENAI_API_KEY" or "file .env" (copied; NULL
 * reads as "value"). Returns 1 when added, 0 when ignored because it is trivial
 * (pd_outscan_value_is_trivial) or already known, -1 with errno (ENOMEM, EINVAL). */
int pd_outscan_add_value(struct pd_outscan *scan, const void *value, size_t len,
                         const char *source_label);

/* Add the values of every "NAME=value" entry whose NAME looks secret
 * (pd_outscan_env_name_is_secret), each line of a multi-line value, and the
 * password of any "scheme://user:password@" URL in any value. envp ends with
 * NULL. Returns the number of values added, or -1 with errno. */
int pd_outscan_add_env(struct pd_outscan *scan, char *const *envp);

/* Read a secret file (.env, .env.*, INI/YAML/JSON-ish key files, PEM private
 * keys, a Docker/Kubernetes secret holding a bare value) and add the values it
 * holds: see docs/output-scan.md for which lines count (assignment values, PEM
 * body lines, and every other line that pd_outscan_line_is_secret accepts).
 * The source label is "file <path>". Returns the number of values added, or
 * -1 with errno (from open/read; EFBIG above 16 MiB; ENOMEM). */
int pd_outscan_add_secret_file(struct pd_outscan *scan, const char *path);

/* The same for a file that is protected but not secret (.git/config, a hook,
 * the policy file): only assignment values, URL passwords and PEM blocks
 * count, never a bare line (its other lines are code, not secrets). */
int pd_outscan_add_config_file(struct pd_outscan *scan, const char *path);

/* Same as pd_outscan_add_secret_file() on text already in memory. */
int pd_outscan_add_secret_text(struct pd_outscan *scan, const char *text, size_t len,
                               const char *source_label);

/* Add an extra pattern in the language of docs/output-scan.md, e.g.
 * "prefix=ACME_ class=[A-Za-z0-9] min=20 max=40" or "ACME_????????".
 * name ([A-Za-z0-9_.-]{1,64}, not a built-in rule name) is the rule reported.
 * Returns 0, or -1 with errno EINVAL (message in pd_outscan_last_error),
 * EEXIST (name taken) or ENOMEM. */
int pd_outscan_add_pattern(struct pd_outscan *scan, const char *name, const char *pattern);

/* Turn off one built-in format rule by name (policy escape hatch for a false
 * positive). Returns 0, or -1 with errno ENOENT. */
int pd_outscan_disable_rule(struct pd_outscan *scan, const char *rule);

/* Scan len bytes of buf. Fills *res (always: zeroed on error) with the redacted
 * copy and the findings: every match, chosen leftmost-longest, non-overlapping;
 * a match that starts inside a chosen one and ends after it extends that
 * finding, so no byte of any match is ever released. Returns the number of
 * findings (>= 0) or -1 with errno (ENOMEM, EINVAL): then nothing was judged
 * and the caller must not release the buffer (fail closed). */
int pd_outscan_scan(struct pd_outscan *scan, const void *buf, size_t len,
                    struct pd_outscan_result *res);
void pd_outscan_result_free(struct pd_outscan_result *res);

/* want = false: a scan without findings leaves res->out NULL (out_len 0)
 * instead of copying the input (for a caller that keeps its own buffer: a
 * 1 MiB copy costs more in page faults than the scan). Default: true. */
void pd_outscan_copy_clean(struct pd_outscan *scan, bool want);

/* The heuristics, exposed for tests and for `paldron policy --explain`. */
bool pd_outscan_env_name_is_secret(const char *name, size_t len);
bool pd_outscan_value_is_trivial(const void *value, size_t len);
/* Does a bare line of a secret file (no assignment, no comment; blanks around
 * it trimmed) count as a secret value? Not trivial, and either it mixes at
 * least two of letters, digits and other visible bytes, or it is at least 16
 * bytes without a blank (docs/output-scan.md, "Bare lines"). */
bool pd_outscan_line_is_secret(const void *line, size_t len);

/* Built-in format rule names, in priority order, NULL-terminated; *n (if not
 * NULL) receives the count. */
const char *const *pd_outscan_rule_names(size_t *n);
const char *pd_outscan_kind_name(enum pd_outscan_kind kind);

/* Known values and needles (encodings included) currently loaded; the needle
 * count compiles pending additions first (0 if that fails). */
size_t pd_outscan_value_count(const struct pd_outscan *scan);
size_t pd_outscan_needle_count(struct pd_outscan *scan);

/* Text of the last error of an add_* call ("" if none). */
const char *pd_outscan_last_error(const struct pd_outscan *scan);

/* ---- stream mode (launcher/outscan/outscan_stream.c) ----------------------------
 * The same scan on output that arrives in pieces: each piece is released,
 * redacted, as soon as no secret can still cover its bytes; only a tail that
 * may be the start of a secret is held, until the bytes that decide it come
 * (or the end). A secret split across feeds is redacted exactly as
 * pd_outscan_scan() redacts the whole. docs/output-scan.md, "Stream mode".
 *
 *   struct pd_outscan_stream *st = pd_outscan_stream_new(scan);
 *   pd_outscan_stream_feed(st, buf, n, emit, arg);    any number of times
 *   pd_outscan_stream_finish(st, emit, arg);          at the end: releases the rest
 *   pd_outscan_stream_findings(st, &n, &total);
 *   pd_outscan_stream_free(st);
 *
 * Add every value and pattern before pd_outscan_stream_new (it takes the
 * scanner's compiled needles). One stream per output stream; the scanner may
 * be shared by several streams (not by threads). */
struct pd_outscan_stream;

/* Receives the released, redacted bytes in order (called zero or more times
 * per feed). */
typedef void (*pd_outscan_emit_fn)(void *arg, const void *bytes, size_t len);

/* NULL with errno (ENOMEM; EINVAL for a NULL scanner). */
struct pd_outscan_stream *pd_outscan_stream_new(struct pd_outscan *scan);
void pd_outscan_stream_free(struct pd_outscan_stream *st);

/* Feed len bytes; emits what is now decided. Returns 0, or -1 with errno:
 * ENOMEM (the scan failed: nothing more is released, the caller must withhold
 * and deny - fail closed), EINVAL (after finish, NULL arguments). */
int pd_outscan_stream_feed(struct pd_outscan_stream *st, const void *buf, size_t len,
                           pd_outscan_emit_fn emit, void *arg);
/* End of the stream: everything held is decided now and released. 0 or -1
 * (ENOMEM as above). A second call does nothing. */
int pd_outscan_stream_finish(struct pd_outscan_stream *st, pd_outscan_emit_fn emit, void *arg);

/* Bytes fed but not yet released, and the most that can ever be held
 * (held <= bound after every feed): the longest needle + 4, each rule's
 * longest match, each pattern's, and 64 KiB for the unbounded rules
 * (private-key, jwt). */
size_t pd_outscan_stream_held(const struct pd_outscan_stream *st);
size_t pd_outscan_stream_bound(const struct pd_outscan_stream *st);

/* The findings so far, one per distinct (rule, kind, source), each with the
 * stream offset and length of its first occurrence (in the input); *total
 * counts every occurrence. Valid until the next feed. */
const struct pd_outscan_finding *pd_outscan_stream_findings(const struct pd_outscan_stream *st,
                                                            size_t *n, size_t *total);

/* A private key or a JWT (or a chain of overlapping matches) ran past the
 * bound while still open: it was redacted and the rest of the stream is
 * withheld (still scanned, never released). The rule, or NULL. */
const char *pd_outscan_stream_withheld(const struct pd_outscan_stream *st);

/* Does stream mode know where this built-in rule's matches end (tests: every
 * rule of pd_outscan_rule_names() must be known; an unknown one is held for
 * 4 KiB after its prefix)? */
bool pd_outscan_stream_knows_rule(const char *rule);

#endif
