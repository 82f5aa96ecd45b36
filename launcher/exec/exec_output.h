/* launcher/exec/exec_output.h - the output verdict of `paldron exec` (local
 * secret scan with redaction, then the optional remote jev verdict). */
#ifndef PALDRON_LAUNCHER_EXEC_OUTPUT_H
#define PALDRON_LAUNCHER_EXEC_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "launcher/exec/exec.h"
#include "launcher/scan/scan.h"

struct pd_outscan;

/* Before the run: a scanner loaded with the policy's extra patterns and
 * ignored rules, for the values of the denied files
 * (pd_exec_add_denied_values, as its "all" scanner). The values the run
 * cannot change - the secret-looking variables of envp (paldron's own
 * environment, which the command never sees), the usual credential files
 * of the real home, allow_secrets files - are left in *later, loaded by
 * the first output byte (pd_exec_known_later_load): a run that prints
 * nothing does not pay for them. NULL with err[0] == '\0' when neither
 * output_scan nor jev_verdict is on; NULL with err set on a policy problem
 * (exit 1, nothing runs). */
struct pd_outscan *pd_exec_output_prepare(const struct pd_ctx *ctx, char *const *envp,
                                          struct pd_known_later *later, char *err, size_t errlen);

/* The known secret values, in two parts. The denied files the snapshot
 * recorded, read before the run (the run may change them), in one pass:
 * a file denied for reading is a secret, every line of it may be a value
 * (added to all and secrets); of a file only protected from writing, its
 * assignments (to all only; git's *.sample hooks are skipped). Either
 * scanner may be NULL.
 * Host values: the secret-looking variables of envp, the usual credential
 * files of the real home, the files allow_secrets names. Shared by the
 * output scan and the content scan of changed files (exec_content.h).
 * pd_exec_add_host_values: 0, or -1 (ENOMEM). */
void pd_exec_add_denied_values(const struct pd_ctx *ctx, const struct pd_scan *snap,
                               struct pd_outscan *all, struct pd_outscan *secrets);
int pd_exec_add_host_values(const struct pd_ctx *ctx, char *const *envp, struct pd_outscan *scan);

/* Add l's host values to l->scan, once; later calls return the first
 * result. 0, or -1 (ENOMEM). */
int pd_exec_known_later_load(struct pd_known_later *l);

/* After the run: first, each fallback line of the live gate in the
 * captured stderr (a record the preload could not deliver) is a denial
 * (pd_live_stderr_findings); then, with output_scan on, every finding of the
 * stream scans (exec_flow.c: the output was redacted as it came) denies
 * ("output exposes <kind> (<rule>) [stream]"); a scan that failed withholds
 * the output and denies. Then, for a clean successful run, the remote
 * verdict on the redacted text (deny, or a warning with jev_on_error =
 * "allow"). */
void pd_exec_output_judge(const struct pd_ctx *ctx, struct pd_outscan *scan,
                          struct pd_exec_outcome *o, bool denied_so_far, char *const *argv,
                          struct pd_findings *deny, struct pd_findings *warn);

#endif
