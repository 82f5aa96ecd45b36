/* launcher/exec/exec_findings.h - a list of findings: what a layer found that
 * denies a run (live denials, the post-run scan, the output scan) or that the
 * user must be told (warnings). Each finding has the path it concerns (the
 * sort key) and its message, the text after "paldron: deny: " or
 * "paldron: warning: ". */
#ifndef PALDRON_LAUNCHER_EXEC_FINDINGS_H
#define PALDRON_LAUNCHER_EXEC_FINDINGS_H

#include <stddef.h>

struct pd_finding {
    char *path;
    char *message;
};

struct pd_findings {
    struct pd_finding *v;
    size_t n, cap;
    /* An allocation failed: at least one finding is missing. Callers treat
     * the list as incomplete (fail closed), never as clean. */
    int lost;
};

/* Append a finding (both strings copied). Returns 0, or -1 and sets lost. */
int pd_findings_add(struct pd_findings *f, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Sort by path (then message) and drop exact duplicates and repeated paths:
 * the first message of a path is kept. */
void pd_findings_sort(struct pd_findings *f);

/* Move every finding of src to the end of dst (src is left empty). */
int pd_findings_take(struct pd_findings *dst, struct pd_findings *src);

void pd_findings_free(struct pd_findings *f);

#endif
