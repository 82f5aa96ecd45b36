/* launcher/exec/exec_content.h - secrets by content: after the run, every file it
 * created or changed in the writable roots is searched for the known secret
 * values (the output scanner's matcher, known values only: raw,
 * JSON-escaped, base64, hex), so a copy of a secret under an innocuous name
 * denies the run and names both files:
 *   "run copied the secret of .env into src/notes.txt (known value)".
 * Bounded: a file over PD_CONTENT_FILE_MAX or beyond PD_CONTENT_TOTAL_MAX read
 * in all is not read, and a warning says so. On with output_scan (default);
 * output_scan = false turns both off. docs/output-scan.md, "Changed files". */
#ifndef PALDRON_LAUNCHER_EXEC_CONTENT_H
#define PALDRON_LAUNCHER_EXEC_CONTENT_H

#include <stddef.h>

#include "launcher/exec/exec_findings.h"
#include "launcher/exec/exec.h"
#include "launcher/scan/scan.h"
#include "policy/policy.h"

#define PD_CONTENT_FILE_MAX  ((size_t)64 << 20)
#define PD_CONTENT_TOTAL_MAX ((size_t)256 << 20)

struct pd_outscan;

/* Before the run: a scanner with no format rule, for the values of the
 * denied files (pd_exec_add_denied_values, as its secrets scanner); the
 * host values are left in *later, loaded when the first changed file is
 * judged. NULL with err[0] == '\0' when output_scan is off; NULL with err set
 * when out of memory (exit 1). */
struct pd_outscan *pd_exec_content_prepare(const struct pd_ctx *ctx, char *const *envp,
                                           struct pd_known_later *later, char *err, size_t errlen);

/* After the compare: search each changed file (pd_scan_each_changed_file) that
 * the policy lets the command read. A match denies (found); a file that could
 * not be read denies too (fail closed); one left out by the bounds is a
 * warning. known NULL: nothing to do. */
void pd_exec_content_judge(const struct pd_ctx *ctx, const struct pd_scan *snap,
                           struct pd_outscan *known, struct pd_known_later *later,
                           struct pd_findings *found, struct pd_findings *warn);

#endif
