/* preload/kernel_would_refuse.h - which record a denying verdict makes
 * (issue 11, item 5): a rule the policy names denies the run; a write that
 * is only outside the writable roots is refused and reported as blocked (the
 * verdict follows the command unless strict = true); and a write the file
 * permissions refuse anyway goes to the kernel, which fails it as it would
 * without Paldron, and is not reported at all. */
#ifndef PALDRON_PRELOAD_KERNEL_WOULD_REFUSE_H
#define PALDRON_PRELOAD_KERNEL_WOULD_REFUSE_H

#include <stdbool.h>

#include "policy/compiled_image.h"
#include "policy/policy.h"

/* Is v a refusal of a write (write, create, delete) for lying outside the
 * writable roots, with no pattern, protected path or other rule involved? */
bool pd_outside_roots_only(const struct pd_verdict *v);

/* Would the kernel refuse op on abs (absolute) by the file permissions, a
 * read-only mount or a missing parent alone? Asked with the caller's ids. */
bool pd_kernel_would_refuse(enum pd_op op, const char *abs);

/* The kind of record the denying verdict v makes: PD_REPORT_AUDIT in audit
 * mode, PD_REPORT_BLOCKED for a refusal outside the roots only,
 * PD_REPORT_DENY otherwise; NULL when v is outside the roots only and the
 * kernel would refuse the call anyway, or the call writes a sandbox's own
 * tmpfs or a root under another name (preload/sandbox_view.h, with im's
 * host view): let it through, report nothing. *why then says which (for
 * the trace). */
const char *pd_refusal_kind(const struct pd_image *im, const struct pd_verdict *v, bool audit,
                            const char **why);

#endif
