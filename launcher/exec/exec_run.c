/* launcher/exec/exec_run.c - the sequence of `paldron exec`:
 *   argv gate -> plan (program, isolation check, run directory, spec,
 *   environment) -> pre-run snapshot -> run -> verdict inputs in order:
 *   live denials, post-run scan, output scan, remote verdict -> report.
 * Every error path before the run ends in exit 1 (or 2 for a deny) with
 * nothing started; the run directory is removed on every path.
 * --interactive: the same, except that the command uses the terminal (no
 * capture, so no output scan nor remote verdict), the live gate's records
 * are printed as they come, and there is no deadline unless --timeout. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/exec/exec.h"
#include "launcher/exec/exec_content.h"
#include "launcher/exec/exec_output.h"
#include "launcher/launcher.h"
#include "launcher/exec/live.h"
#include "launcher/exec/preload_path.h"
#include "policy/gate_exec.h"
#include "launcher/outscan/outscan.h"
#include "launcher/scan/scan.h"
#include "launcher/scan/scan_git.h"

extern char **environ;

#if defined(__linux__)
#define PD_OS "linux"
#elif defined(__APPLE__)
#define PD_OS "darwin"
#else
#define PD_OS "this system"
#endif

/* A launcher started with a standard descriptor closed would hand the
 * command one of its own pipes as that descriptor. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (null >= 0 && null != fd) {
            dup2(null, fd);
            close(null);
        }
    }
}

static void print_warnings(struct pd_findings *w)
{
    for (size_t k = 0; k < w->n; k++)
        pd_err("warning: %s", w->v[k].message);
    pd_findings_free(w);
}

static void set_limits(struct pd_exec_plan *p)
{
    const struct pd_policy *pol = p->ctx->policy;
    p->limits.cpu_sec = (unsigned long long)pol->cpu_time_sec;
    /* "unlimited": the inherited limit stays (0 = leave it) */
    p->limits.mem_bytes = pol->max_memory_mb == PD_MEMORY_UNLIMITED
                              ? 0
                              : (unsigned long long)pol->max_memory_mb << 20;
    p->limits.nproc = (unsigned long long)pol->max_processes;
    p->limits.fsize_bytes = (unsigned long long)pol->max_file_size_mb << 20;
    p->limits.nofile = (unsigned long long)pol->max_open_files;
}

static int set_argv(struct pd_exec_plan *p, int argc, char **argv)
{
    p->argv = calloc((size_t)argc + 1, sizeof *p->argv);
    if (!p->argv)
        return -1;
    p->argv[0] = p->program; /* the absolute invocation path, as the original did */
    for (int k = 1; k < argc; k++)
        p->argv[k] = argv[k];
    return 0;
}

/* Resolve argv[0]; on failure print the original's start-failure block
 * (capture mode: an interactive run has no block). */
static int resolve(struct pd_exec_plan *p, const char *name, bool missing)
{
    char msg[PD_MSG_MAX];
    if (!missing &&
        pd_resolve_program(p->ctx, name, p->ctx->workspace, p->program, sizeof p->program) == 0) {
        if (!realpath(p->program, p->program_real))
            snprintf(p->program_real, sizeof p->program_real, "%s", p->program);
        return 0;
    }
    if (strchr(name, '/'))
        snprintf(msg, sizeof msg, "exec: \"%s\": %s", name,
                 strerror(errno == EACCES ? EACCES : ENOENT));
    else
        snprintf(msg, sizeof msg, "exec: \"%s\": executable file not found in $PATH", name);
    if (!p->interactive && !p->routed)
        pd_exec_print_sandbox_error(p, msg);
    pd_err("sandbox: %s", msg);
    return -1;
}

static bool named_go(const char *path)
{
    const char *slash = strrchr(path, '/');
    return strncmp(slash ? slash + 1 : path, "go", 2) == 0;
}

/* Can the run start go? Only where allow_binaries is open or names a go, by
 * its name (go, go1.22, /usr/local/go/bin/go) or by the file it is (a link
 * "mygo" to go allows go under any name): elsewhere the exec list refuses
 * go, and its work directory would be made and removed for nothing. */
static bool go_may_run(const struct pd_ctx *ctx)
{
    const struct pd_strv *ab = &ctx->policy->allow_binaries;
    if (ab->n == 0)
        return true;
    char file[PD_PATH_MAX], real[PD_PATH_MAX];
    for (size_t k = 0; k < ab->n; k++)
        if (named_go(ab->v[k]) || (pd_binary_entry_file(ctx, ab->v[k], file, sizeof file) == 0 &&
                                   pd_realpath(file, real) && named_go(real)))
            return true;
    return false;
}

/* In /dev/shm when the run gets its own mount namespace: a tmpfs, where
 * making and removing the directory, the temp home, the compiled policy
 * and the report socket cost a fraction of what they cost on a disk's file
 * system (0.3 ms a run on ext4 here). Inside, the namespace binds it back
 * read-only and the temp home writable, as it does one under /tmp; the
 * host's /dev/shm is writable only as the run's private one (spec
 * shm_private), so a child whose namespaces are refused after all keeps
 * the directory out of the run's reach. Elsewhere, with a $TMPDIR the
 * caller set (where the caller wants temporary files), or a /dev/shm that
 * is not where it says (a link): in $TMPDIR, or /tmp, as always. */
static void rundir_in_shm(struct pd_exec_plan *p)
{
    char err[PD_MSG_MAX];
    const char *tmpdir = getenv("TMPDIR");
    p->rundir_shm = false;
    if ((tmpdir && tmpdir[0]) || !p->isolated || !p->ctx->policy->namespaces ||
        !pd_ns_early_admitted(&p->early) ||
        pd_rundir_create(&p->rundir, "/dev/shm", err, sizeof err) != 0)
        return;
    const char *rest = pd_path_under(p->rundir.path, "/dev/shm");
    if (rest && rest[0] && !strchr(rest, '/')) {
        p->rundir_shm = true;
        return;
    }
    pd_rundir_remove(&p->rundir, err, sizeof err);
}

/* The run directory (temp home; compiled policy and report socket of the
 * live gate) and the roots it adds, in both modes. */
static int prepare_rundir(struct pd_exec_plan *p, struct pd_ctx *ctx)
{
    char err[PD_MSG_MAX];
    rundir_in_shm(p);
    if (!p->rundir_shm && pd_rundir_create(&p->rundir, getenv("TMPDIR"), err, sizeof err) != 0) {
        pd_err("sandbox: %s", err);
        return -1;
    }
    /* The temp home and /dev/shm are writable roots for the gate too, and
     * so is /tmp when the run gets its own (where the host refuses the
     * namespaces, Landlock still refuses /tmp). */
    if (pd_ctx_add_root(ctx, p->rundir.home) != 0 || pd_ctx_add_root(ctx, "/dev/shm") != 0 ||
        (p->isolated && ctx->policy->namespaces && pd_ctx_add_root(ctx, "/tmp") != 0)) {
        pd_err("sandbox: %s", strerror(errno));
        return -1;
    }
    /* The go work directory ($GOTMPDIR): go test and go run build their
     * binary there and start it, so with allow_binaries it is the go
     * driver's helper tree (policy/gate_exec.h, rule g). Ours, in the temp
     * home, rather than go's default under $TMPDIR: a fixed place the
     * gate and the kernel floor can name before the run. */
    if (!go_may_run(ctx))
        ctx->go_tmp[0] = '\0'; /* no GOTMPDIR, no helper tree: go cannot start */
    else if (snprintf(ctx->go_tmp, sizeof ctx->go_tmp, "%s/go-tmp", p->rundir.home) >=
                 (int)sizeof ctx->go_tmp ||
             mkdir(ctx->go_tmp, 0700) != 0) {
        pd_err("sandbox: create %s: %s", ctx->go_tmp, strerror(errno));
        ctx->go_tmp[0] = '\0';
        return -1;
    }
    /* With isolation the temp home is the command's $HOME: the gate leaves
     * the built-in secret names to the user's own files (pd_in_temp_home).
     * Resolved, as every path the gate compares it with. */
    if (p->isolated && !realpath(p->rundir.home, ctx->temp_home)) {
        pd_err("sandbox: %s: %s", p->rundir.home, strerror(errno));
        ctx->temp_home[0] = '\0';
        return -1;
    }
    return 0;
}

/* The live gate: the preload library, its compiled policy and report socket. */
static int prepare_live(struct pd_exec_plan *p, struct pd_live *live, bool audit,
                        const char *log_path)
{
    char lib[PD_PATH_MAX], err[PD_MSG_MAX];
    if (pd_preload_path(lib, sizeof lib) != 0) {
        pd_preload_missing_msg(err, sizeof err);
        pd_err("live gate: %s; refusing to run without it", err);
        return -1;
    }
    if (pd_live_open(live, p->ctx, p->rundir.path, lib, audit, log_path, err, sizeof err) != 0) {
        pd_err("%s", err);
        pd_live_close(live);
        return -1;
    }
    p->live = live;
    live->echo = p->interactive ? stderr : NULL;
    return 0;
}

/* Isolated mode: spec, and the kernel's answer. */
static int prepare_isolation(struct pd_exec_plan *p)
{
    char err[PD_MSG_MAX], warn[PD_MSG_MAX];
    pd_exec_platform_probe(&p->info);
    if (pd_exec_spec(p) != 0) {
        pd_err("sandbox: %s", strerror(errno));
        return -1;
    }
    if (pd_platform_check(&p->spec, &p->info, err, sizeof err, warn, sizeof warn) != 0) {
        pd_err("OS isolation unavailable on " PD_OS ": %s. Set require_os_isolation=false for "
               "policy-gate-only mode (no kernel boundary).",
               err);
        return -1;
    }
    if (warn[0])
        pd_err("warning: %s", warn);
    return 0;
}

/* Add the live gate's variables to the command's environment. */
static int add_live_env(struct pd_exec_plan *p)
{
    char *extra[6];
    if (pd_live_env(p->live, getenv("PALDRON_DEBUG"), extra) != 0)
        return -1;
    size_t n = 0, m = 0;
    while (p->envp[n])
        n++;
    while (m < 6 && extra[m])
        m++;
    char **env = realloc(p->envp, (n + m + 1) * sizeof *env);
    if (!env) {
        for (size_t k = 0; k < m; k++)
            free(extra[k]);
        return -1;
    }
    for (size_t k = 0; k < m; k++)
        env[n + k] = extra[k];
    env[n + m] = NULL;
    p->envp = env;
    return 0;
}

/* Remove the run directory unless the keeper does (keep_background). */
static void remove_rundir(struct pd_exec_plan *p, const struct pd_exec_outcome *o)
{
    char err[PD_MSG_MAX];
    if (o && o->keeper_has_rundir)
        return;
    if (pd_rundir_remove(&p->rundir, err, sizeof err) != 0)
        pd_err("warning: %s", err);
    p->rundir.path[0] = '\0'; /* one attempt, one warning */
}

static long long run_timeout(const struct pd_policy *pol, long long cli_timeout, bool routed)
{
    /* A routed call runs as long as the agent's client lets it (the hook
     * passes the client's timeout), unless the policy file sets a limit. */
    if (routed && cli_timeout > 0 && !pol->timeout_sec_set)
        return cli_timeout;
    if (cli_timeout <= 0 || cli_timeout == pol->timeout_sec)
        return pol->timeout_sec;
    if (cli_timeout < pol->timeout_sec)
        return cli_timeout;
    /* The policy's limit is the policy: the command line may shorten it. */
    if (!routed)
        pd_err("warning: --timeout %lld is longer than the policy's timeout_sec = %lld; using %lld",
               cli_timeout, pol->timeout_sec, pol->timeout_sec);
    return pol->timeout_sec;
}

/* The argv gate; a routed call's program only (the hook judged the
 * command, the sandbox judges what it does), and nothing for Paldron's own
 * shell. */
static void gate(const struct pd_ctx *ctx, int argc, char **argv, const struct pd_exec_opts *opts,
                 bool own_shell, struct pd_verdict *v, bool *missing)
{
    *missing = false;
    if (own_shell)
        pd_verdict_allow(v);
    else if (opts->routed)
        pd_gate_binary(ctx, argv[0], opts->cwd, v, missing);
    else
        pd_gate_argv(ctx, argc, argv, v, missing);
}

/* --audit: a denial of the argv gate is said with its smallest change,
 * and the command runs under every kernel layer. The command itself is on
 * the kernel's exec list in every run (exec_sandbox.c), so a program
 * outside allow_binaries starts; what it starts or touches meets the live
 * gate (logging) and the kernel layers, whose refusals are reported. */
static void audit_argv(const struct pd_ctx *ctx, const struct pd_verdict *v, const char *program)
{
    char fix[PD_PATH_MAX + 96];
    pd_verdict_advice(ctx, v, program, fix, sizeof fix);
    bool binary = v->key && strcmp(v->key, "allow_binaries") == 0;
    pd_err("audit: would deny: %s [argv]%s", v->message,
           binary ? "; it runs: the command itself is on the kernel's exec list" : "");
    pd_err("audit:   smallest change: %s", fix[0] ? fix : "see 'paldron explain'");
}

static int run(struct pd_ctx *ctx, int argc, char **argv, const struct pd_exec_opts *opts,
               bool own_shell)
{
    const struct pd_policy *pol = ctx->policy;
    struct pd_verdict v;
    bool missing = false;
    int rc = PD_EXIT_BROKEN;
    ensure_std_fds();
    pd_timing_mark("load");
    /* the preparation asks the same paths many times; ended before the
     * command starts (policy.h) */
    pd_memo_begin();

    gate(ctx, argc, argv, opts, own_shell, &v, &missing);
    pd_timing_mark("gate");
    if (v.deny && opts->audit)
        audit_argv(ctx, &v, argv[0]); /* said, and the run goes on */
    else if (v.deny) {
        /* the rule and the smallest change that would allow it */
        char fix[PD_PATH_MAX + 96];
        pd_verdict_advice(ctx, &v, argv[0], fix, sizeof fix);
        pd_err("deny: %s%s%s%s", v.message, fix[0] ? " (" : "", fix, fix[0] ? ")" : "");
        if (opts->json) { /* the same finding, in the one result object */
            char finding[PD_MSG_MAX + sizeof fix + 4];
            snprintf(finding, sizeof finding, "%s%s%s%s", v.message, fix[0] ? " (" : "", fix,
                     fix[0] ? ")" : "");
            pd_exec_json_not_run(finding, NULL);
        }
        return PD_EXIT_DENY;
    }

    /* one block: the plan and the outcome live and go together (and a
     * process forked from here, such as the native probe under valgrind,
     * holds both through the one pointer) */
    struct run_mem {
        struct pd_exec_plan p;
        struct pd_exec_outcome o;
    } *mem = calloc(1, sizeof *mem);
    struct pd_exec_plan *p = mem ? &mem->p : NULL;
    struct pd_exec_outcome *o = mem ? &mem->o : NULL;
    struct pd_findings warn = {0}, deny = {0}, layer = {0};
    struct pd_scan *scan = NULL;
    struct pd_git_scan *git_scan = NULL;
    struct pd_scan_reuse *reuse = NULL; /* directory listings of the last run */
    struct pd_outscan *outscan = NULL;
    struct pd_outscan *known = NULL; /* the content scan of changed files */
    struct pd_known_later content_later = {0};
    struct pd_live live = {.fd = -1};
    sigset_t stop, saved;
    pd_exec_signals(&stop);
    sigprocmask(SIG_BLOCK, &stop, &saved);
    if (!p || !o) {
        pd_err("out of memory");
        goto out;
    }
    p->child_mask = saved;
    p->ctx = ctx;
    p->isolated = pol->require_os_isolation;
    p->valgrind = pd_exec_under_valgrind();
    p->interactive = opts->interactive;
    p->routed = opts->routed;
    p->stream = opts->stream;
    p->json = opts->json;
    snprintf(p->cwd, sizeof p->cwd, "%s", opts->cwd ? opts->cwd : "");
    p->keep_background = pol->keep_background;
    /* Interactive: the policy's timeout_sec is the limit of one captured
     * command; a session lasts until it ends, or --timeout. */
    p->timeout_sec = p->interactive ? opts->timeout : run_timeout(pol, opts->timeout, opts->routed);
    if (p->interactive && p->keep_background) {
        /* The keeper runs the command in a session of its own, out of the
         * terminal's reach: the stricter rule applies instead. */
        pd_err("warning: keep_background does not apply to an interactive run: the command's "
               "processes are ended when it exits");
        p->keep_background = false;
    }
    if (p->interactive && pol->jev_verdict)
        pd_err("warning: jev_verdict does not apply to an interactive run: its output goes to "
               "the terminal uncaptured");
    set_limits(p);
    /* the namespaces take longest to make and need nothing prepared here:
     * a helper makes them meanwhile (platform.h); the child joins them */
    if (p->isolated && pol->namespaces && !p->valgrind)
        pd_exec_ns_begin(p, !pol->allow_network);
    if (!p->isolated)
        pd_err("warning: running without OS isolation: the argv gate, the live gate in "
               "dynamically linked programs, the post-run scan%s run; no kernel boundary: static "
               "binaries and raw system calls are not stopped",
               p->interactive || !pol->output_scan ? "" : " and the output scan");

    if (resolve(p, argv[0], missing) != 0)
        goto out;
    pd_timing_mark("resolve");
    /* before the kernel rules, which grant nothing on a missing folder */
    pd_exec_make_roots(ctx, stderr);
    if (pd_exec_git_roots(p, ctx) != 0) {
        pd_err("sandbox: %s", strerror(errno));
        goto out;
    }
    /* the repositories that exist now: the live gate's policy protects
     * their config and hooks, so this comes before it is compiled */
    pd_timing_mark("roots");
    reuse = pd_scan_reuse_open(ctx, p->isolated);
    git_scan = pd_git_scan_before_reusing(ctx, reuse);
    pd_timing_mark("git-before");
    if (!git_scan) {
        pd_err("scan: cannot record the git repositories before the run: %s", strerror(errno));
        goto out;
    }
    ctx->private_net = p->isolated && pol->namespaces && !pol->allow_network;
    if (prepare_rundir(p, ctx) != 0 || pd_exec_cache_plan(p, ctx) != 0 ||
        pd_exec_net_plan(p, ctx) != 0)
        goto out;
    pd_timing_mark("rundir");
    if (prepare_live(p, &live, opts->audit, opts->log) != 0)
        goto out;
    pd_timing_mark("live-open");
    if (p->isolated && prepare_isolation(p) != 0)
        goto out;
    if (p->net.fallback)
        pd_err("warning: allow_hosts_without_namespace = true: allow_hosts is held by the live "
               "gate's checks of connect and name lookups only; static binaries, Go programs and "
               "raw system calls are not held to it (no network namespace: %s)",
               p->net.fallback_why);
    pd_timing_mark("spec");
    char cargo[PD_PATH_MAX], rustup[PD_PATH_MAX];
    pd_exec_tool_home("CARGO_HOME", ".cargo", cargo, sizeof cargo);
    pd_exec_tool_home("RUSTUP_HOME", ".rustup", rustup, sizeof rustup);
    const char *debug_env = getenv("PALDRON_DEBUG");
    const struct pd_env_opts eo = {
        .isolated = p->isolated,
        .proxy_url = p->net.on ? p->net.proxy_url : NULL,
        .ssh_command = p->net.on ? p->net.ssh_command : NULL,
        .temp_home = p->rundir.home,
        .go_tmp = ctx->go_tmp,
        .cache = p->cache,
        .allow_network = pol->allow_network,
        .cargo_home = cargo,
        .rustup_home = rustup,
        .pass = &pol->env_pass,
        .drop = &pol->env_drop,
        /* --audit and PALDRON_DEBUG=1 name every dropped variable */
        .say = opts->audit || (debug_env && strcmp(debug_env, "1") == 0) ? stderr : NULL};
    p->envp = pd_exec_env(environ, &eo);
    if (!p->envp || add_live_env(p) != 0 || set_argv(p, argc, argv) != 0) {
        pd_err("out of memory");
        goto out;
    }

    pd_timing_mark("env");
    scan = pd_scan_snapshot_reusing(ctx, !p->isolated, reuse, &warn);
    pd_timing_mark("snapshot");
    if (!scan) {
        pd_err("scan: cannot record the workspace before the run: %s", strerror(errno));
        goto out;
    }
    print_warnings(&warn);
    char oerr[PD_MSG_MAX] = "";
    /* interactive: nothing is captured, so nothing can be scanned */
    if (!p->interactive)
        outscan = pd_exec_output_prepare(ctx, environ, &p->outscan_later, oerr, sizeof oerr);
    p->outscan = outscan; /* the output is scanned as it comes (exec_flow.c) */
    if (!outscan && oerr[0]) {
        pd_err("%s", oerr);
        goto out;
    }
    pd_timing_mark("outscan-prep");
    known = pd_exec_content_prepare(ctx, environ, &content_later, oerr, sizeof oerr);
    if (!known && oerr[0]) {
        pd_err("%s", oerr);
        goto out;
    }
    pd_exec_add_denied_values(ctx, scan, outscan, known);
    pd_timing_mark("content-prep");
    if (p->isolated && pd_exec_ns_plan(p, scan) != 0) {
        pd_err("sandbox: plan the namespaces: %s", strerror(errno));
        goto out;
    }
    pd_exec_net_spec(p); /* after the plan: it sets the spec's namespaces anew */
    pd_timing_mark("ns-plan");
    /* the live gate's policy names what the kernel layers grant: written
     * once the spec and the namespace plan are complete */
    if (pd_live_write_policy(&live, p->isolated ? &p->spec : NULL, oerr, sizeof oerr) != 0) {
        pd_err("%s", oerr);
        goto out;
    }
    pd_timing_mark("policy-write");
    /* the child waits it out, overlapped with its set-up */
    pd_scan_fence_target(scan, &p->fence);
    pd_memo_end(); /* what the run changes is never answered from memory */
    pd_ns_early_finish(&p->early, &p->spec.ns.join);

    pd_exec_supervise(p, o);
    pd_ns_early_close(&p->early); /* the run holds them now */
    pd_timing_mark("run");

    /* Verdict inputs in order, each layer's findings sorted by path. The
     * scan runs whatever happened: even a run that failed part-way may
     * have written something. */
    pd_live_drain(&live);
    pd_live_findings(&live, &layer);
    pd_findings_take(&deny, &layer);
    /* the command itself: the preload never sees the first exec */
    const char *why = pd_exec_unmonitored(p->program_real, p->isolated);
    if (why)
        pd_live_note_unmonitored(&live, p->program_real, why);
    pd_live_notes(&live, pol, stderr);
    const char *debug = getenv("PALDRON_DEBUG");
    pd_exec_ns_coverage(p, live.ncoverage > 0 || (debug && strcmp(debug, "1") == 0), stderr);
    pd_timing_mark("live-drain");
    pd_scan_compare(scan, &layer, &warn);
    pd_timing_mark("compare");
    pd_exec_content_judge(ctx, scan, known, &content_later, &layer, &warn);
    pd_timing_mark("content-judge");
    pd_git_scan_after(git_scan, &layer);
    pd_timing_mark("git-after");
    pd_findings_sort(&layer);
    pd_findings_take(&deny, &layer);
    pd_exec_output_judge(ctx, outscan, o, deny.n > 0 || deny.lost, p->argv, &layer, &warn);
    pd_findings_take(&deny, &layer);
    /* every judge has read them: what the kernel let through moves away
     * (--audit changes nothing) */
    if (!opts->audit)
        pd_scan_quarantine(scan, &deny, &warn);
    pd_exec_keep_warnings(o, &warn); /* --json lists them too */
    print_warnings(&warn);
    if (o->left_running) {
        char w[PD_MSG_MAX];
        pd_exec_background_warning(p, o, w, sizeof w);
        pd_err("warning: %s", w);
    }
    /* The run directory goes before anything is printed: a reader that
     * went away (SIGPIPE) must not leave it behind. */
    pd_timing_mark("output-judge");
    remove_rundir(p, o);
    pd_timing_mark("rundir-rm");
    rc = p->routed ? pd_exec_routed_report(p, o, &deny) : pd_exec_report(p, o, &deny);
out:
    pd_memo_end();
    pd_exec_net_free(p);
    pd_scan_free(scan);
    pd_scan_reuse_free(reuse);
    pd_git_scan_free(git_scan);
    pd_outscan_free(outscan);
    pd_outscan_free(known);
    pd_live_close(&live);
    pd_findings_free(&warn);
    pd_findings_free(&deny);
    pd_findings_free(&layer);
    /* the namespaces of the next run are made once this one is over */
    const bool stock = p && pd_exec_ns_stock_due(p);
    const bool stock_net = !pol->allow_network;
    if (p) {
        pd_ns_early_close(&p->early);
        remove_rundir(p, o);
        pd_exec_ns_free(p);
        pd_exec_spec_free(p);
        pd_exec_env_free(p->envp);
        free(p->argv);
    }
    if (o)
        pd_exec_outcome_free(o);
    free(mem);
    /* A signal that came before the run could handle it acts now. */
    sigprocmask(SIG_SETMASK, &saved, NULL);
    pd_timing_mark("report+free");
    pd_timing_print(stderr);
    /* last: the process that makes them shares this memory (ns_stock.c) */
    pd_exec_ns_stock_leave(stock, stock_net);
    return rc;
}

int pd_exec_run(struct pd_ctx *ctx, int argc, char **argv, const struct pd_exec_opts *opts)
{
    if (!opts->routed)
        return run(ctx, argc, argv, opts, false);
    if (argc != 1) {
        pd_err("exec --routed takes one command text after -- (got %d arguments)", argc);
        return PD_EXIT_BROKEN;
    }
    char **rargv;
    int rargc;
    bool own_shell;
    if (pd_exec_routed_argv(ctx, argv[0], opts->cwd, &rargv, &rargc, &own_shell) != 0) {
        pd_err("out of memory");
        return PD_EXIT_BROKEN;
    }
    int rc = run(ctx, rargc, rargv, opts, own_shell);
    pd_exec_routed_free(rargv);
    return rc;
}
