/* launcher/scan/scan_git.h - git's own programs: the repositories of the
 * workspace and the writable roots, before and after a run.
 *
 *   struct pd_git_scan *g = pd_git_scan_before(ctx);    before the live gate's
 *                                                       policy is compiled
 *   ... run ...
 *   pd_git_scan_after(g, &findings);                    after pd_scan_compare
 *   pd_git_scan_free(g);
 *
 * Before: every git directory found (a directory with HEAD and objects/ +
 * refs/, or HEAD + commondir: the workspace's .git, nested repositories,
 * .git/modules/<name>, .git/worktrees/<name>, bare repositories, and the
 * targets of "gitdir:" files) is added to ctx (pd_ctx_add_git_dir), so the
 * live gate and the post-run scan protect its config and hooks; and what
 * in it makes git run a program is recorded: the entries of config,
 * config.worktree and the files they include that pd_git_key_runs names,
 * and every executable hook that is not a *.sample (hooks/ and
 * core.hooksPath).
 * After: the same, for every repository found then (including the ones the
 * run created). Each entry or hook the run added or changed is a finding:
 *   run set core.fsmonitor in .git/modules/sub/config (git runs it as a program)
 *   run added hook src/r/.git/hooks/pre-commit (git runs it as a program)
 * A configuration file the run changed that cannot be parsed is one too
 * (git may read it differently). */
#ifndef PALDRON_LAUNCHER_SCAN_GIT_H
#define PALDRON_LAUNCHER_SCAN_GIT_H

#include "launcher/exec/exec_findings.h"
#include "launcher/scan/scan.h"
#include "policy/policy.h"

struct pd_git_scan;

/* Find and record the repositories; sets ctx->git_dirs_known. ctx must
 * outlive the scan. NULL with errno (ENOMEM). */
struct pd_git_scan *pd_git_scan_before(struct pd_ctx *ctx);
/* The same, with the directory listings of r (scan.h; NULL: none). */
struct pd_git_scan *pd_git_scan_before_reusing(struct pd_ctx *ctx, struct pd_scan_reuse *r);

/* Compare with the state after the run; findings go to found. */
void pd_git_scan_after(struct pd_git_scan *g, struct pd_findings *found);

void pd_git_scan_free(struct pd_git_scan *g);

#endif
