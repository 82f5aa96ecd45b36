/* launcher/exec/exec.h - the parts of `paldron exec`, one file each:
 *   exec_run.c       the sequence: gate, plan, snapshot, run, scan, verdict
 *   exec_env.c       the command's environment (filtered, private temp home)
 *   exec_env_filter.c which of the caller's variables pass
 *   exec_cache.c     the workspace's persistent cache folder
 *   exec_roots.c     missing allow_paths folders, created before the run
 *   exec_sandbox.c   the sandbox spec handed to platform/
 *   exec_child.c     starting the child, and the child until execve
 *   exec_supervise.c capture, deadline, signals, reaping (the launcher side)
 *   exec_flow.c      each output stream on its way: output scan, capture, --stream
 *   exec_capture.c   one captured stream: head and tail
 *   exec_keeper.c    keep_background: a subreaper that outlives the launcher
 *   exec_tree.c      finding and killing every descendant
 *   exec_result.c    the result block and the verdict lines
 *   exec_json.c      --json: the result as one JSON object
 *   exec_findings.c  the list every verdict layer reports into
 *   exec_valgrind.c  the launcher under valgrind: the child's last step made natively
 * Everything the child needs is prepared in the parent beforehand (struct
 * pd_exec_plan), so that the child only makes system calls. */
#ifndef PALDRON_LAUNCHER_EXEC_H
#define PALDRON_LAUNCHER_EXEC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "launcher/exec/exec_findings.h"
#include "launcher/scan/scan.h"
#include "launcher/exec/live.h"
#include "launcher/exec/rundir.h"
#include "platform/platform.h"
#include "policy/policy.h"

/* Bytes of each stream kept for the result block (the original's cap):
 * the first PD_CAPTURE_HEAD and the last PD_CAPTURE_MAX - PD_CAPTURE_HEAD
 * (exec_capture.c says why). */
#define PD_CAPTURE_MAX  1048576
#define PD_CAPTURE_HEAD 262144
/* Between SIGTERM and SIGKILL when a tree is ended. */
#define PD_GRACE_MS 500

/* The lists of the sandbox spec and the storage behind them. */
struct pd_exec_lists {
    const char **exec; /* fixed entries + the floor (pd_exec_floor) */
    const char **read; /* system folders + read_paths + fixed entries */
    const char *dev[12];
    const char **write; /* npolicy_roots + 3 */
    char *owned[8];     /* composed paths the lists point to */
    size_t nowned;
    char **floor; /* allow_binaries: the files execution is granted on */
    size_t nfloor, capfloor;
};

struct pd_outscan;
struct pd_outscan_stream;

/* A growable list of owned strings. */
struct pd_strlist {
    char **v;
    size_t n, cap;
};

/* exec_ns.c: the namespace floor's storage behind spec.ns. */
struct pd_exec_ns {
    struct pd_keep keep[PD_NS_KEEP_MAX];
    size_t nkeep;
    struct pd_strlist hide, readonly, sockets;
    struct pd_ns_report *report; /* a MAP_SHARED page the child writes */
    char **envp;                 /* the environment with TMPDIR=/tmp (pointers into envp),
                                    the command's once the namespaces are entered
                                    (pd_exec_last_step chooses) */
    /* Under valgrind the page must outlive the child's exec of the native
     * `paldron __sandbox` (exec_valgrind.c): a memfd both map. */
    bool report_memfd; /* report_fd is open */
    int report_fd;
};

/* Known values an output or content scan loads on first use
 * (exec_output.h: pd_exec_known_later_load). */
struct pd_known_later {
    const struct pd_ctx *ctx;
    char *const *envp;
    struct pd_outscan *scan; /* NULL: nothing to load */
    bool done;
    int rc;
};

/* exec_net.c: the run's network by name (allow_hosts). */
struct pd_net_proxy;
struct pd_exec_net {
    bool on;                    /* allow_hosts through the run's namespace and the proxy */
    bool fallback;              /* allow_hosts_without_namespace: the live gate alone */
    char fallback_why[256];     /* ... why: the policy, or the host's refusal */
    int chan[2];                /* the listeners come over [0]; the child sends on [1] */
    struct pd_ns_listen listen; /* spec.ns.listen */
    char resolv[PD_PATH_MAX];   /* the run's resolv.conf, in the run directory */
    char proxy_url[64];         /* http://127.0.0.1:<port> */
    char ssh_command[PD_PATH_MAX + 128];
    struct pd_net_proxy *proxy; /* while the run lasts */
};

struct pd_exec_plan {
    const struct pd_ctx *ctx;
    struct pd_exec_net net;
    struct pd_fence fence;        /* waited out by the child before execve (scan.h) */
    bool isolated;                /* require_os_isolation: kernel layers on */
    bool valgrind;                /* under valgrind: the child's last step is made by a native
                                     process (exec_valgrind.c) */
    struct pd_platform_info info; /* isolated only */
    struct pd_sandbox_spec spec;  /* isolated only */
    struct pd_ns_early early;     /* namespaces made while the run is prepared */
    struct pd_exec_lists lists;
    struct pd_exec_ns ns;           /* isolated only */
    struct pd_limits limits;        /* also applied in degraded mode */
    char program[PD_PATH_MAX];      /* absolute invocation path, the new argv[0] */
    char program_real[PD_PATH_MAX]; /* with every link resolved */
    char **argv;
    char **envp;
    long long timeout_sec; /* 0: no deadline (interactive only) */
    bool keep_background;
    bool interactive;      /* --interactive: the command shares paldron's stdio and process group */
    bool routed;           /* --routed: output and exit status pass through (exec_routed.c) */
    char cwd[PD_PATH_MAX]; /* where the command starts: the workspace, or a folder in it */
    /* The repository's git directory (and a linked work tree's common
     * one) made writable because the policy allows git ("" = none). */
    char git_roots[2][PD_PATH_MAX];
    struct pd_rundir rundir;    /* isolated only */
    bool rundir_shm;            /* the run directory is in /dev/shm (exec_run.c) */
    struct pd_live *live;       /* the live gate (preload), NULL when not injected */
    char cache[PD_PATH_MAX];    /* the persistent cache folder, "" if none (exec_cache.c) */
    sigset_t child_mask;        /* the signal mask the command starts with */
    bool stream;                /* --stream: the output goes out as it comes (exec_flow.c) */
    bool json;                  /* --json: the result is one JSON object (exec_json.c) */
    struct pd_outscan *outscan; /* the output scanner, NULL when off (exec_output.h) */
    struct pd_known_later outscan_later; /* its values loaded by the first output byte */
};

/* One captured stream (exec_capture.c), already redacted by the output scan.
 * Once closed, buf holds the first bytes ([0, cut)) and, when more than
 * PD_CAPTURE_MAX came, the last ones ([cut, len)); dropped counts the bytes
 * between (cut == len when none). */
struct pd_capture {
    char *buf;
    size_t len, cap;
    size_t cut;
    unsigned long long dropped; /* bytes between head and tail, never kept */
    bool lost;                  /* memory ran out: the capture is incomplete */
    bool closed;
    char *ring; /* while open: the tail so far, a ring */
    size_t ring_len, ring_at, ring_cap;
};
void pd_capture_add(struct pd_capture *c, const void *bytes, size_t n);
/* The tail after the head, in order; nothing is added after. */
void pd_capture_close(struct pd_capture *c);
void pd_capture_free(struct pd_capture *c);

/* exec_flow.c: where one output stream of the command goes: through the
 * output scan's stream redaction (launcher/outscan/outscan.h) into its capture and,
 * with --stream, to paldron's own stdout or stderr as it comes. */
struct pd_exec_flow {
    struct pd_outscan_stream *scan; /* NULL: no output scan, or none yet */
    struct pd_outscan *base;        /* the scanner scan is made from on the first byte */
    struct pd_known_later *later;   /* its values loaded then */
    struct pd_capture *cap;
    int fd;            /* --stream: 1 or 2; -1: capture only */
    long long give_up; /* --stream: stop writing to fd after this (monotonic ms) */
    bool ended;        /* end of stream seen: everything held was released */
    bool gone;         /* fd cannot take more (its reader went away, or stalled past give_up) */
    int gone_errno;    /* why (EPIPE: the reader went away) */
    bool wrote_any;    /* --stream: something went to fd */
    char last;         /* --stream: the last byte that went to fd */
};

struct pd_exec_outcome {
    char sandbox_error[PD_MSG_MAX]; /* the run failed before execve ("" if not) */
    bool exited;                    /* status holds the command's wait status */
    int status;
    bool timed_out;
    int interrupted;        /* signal that made paldron stop the run, 0 if none */
    size_t left_running;    /* keep_background: descendants still running */
    bool keeper_has_rundir; /* keep_background: the keeper removes the run directory */
    struct pd_capture out, err;
    struct pd_exec_flow flow[2]; /* stdout, stderr (not in an interactive run) */
    bool scan_failed;            /* the output scan could not run: output withheld, deny */
    struct pd_strlist warnings;  /* --json: the warnings of the verdict (pd_exec_keep_warnings) */
};

/* exec_env.c: the environment of the command (NULL-terminated, malloc'd):
 * the caller's variables that exec_env_filter.c passes, then the launcher's
 * own (which replace the caller's of the same name). */
struct pd_env_opts {
    bool isolated;           /* temp home, caches, real cargo/rustup homes */
    const char *proxy_url;   /* allow_hosts: every client's proxy (NULL: none) */
    const char *ssh_command; /* allow_hosts: GIT_SSH_COMMAND through the proxy */
    const char *temp_home;   /* isolated only */
    const char *go_tmp;      /* $GOTMPDIR, both modes ("" or NULL: none) */
    const char *cache;       /* the persistent cache folder; "" or NULL: none */
    bool allow_network;      /* false: the tools' offline switches */
    const char *cargo_home;  /* the real ones, read-only in the spec */
    const char *rustup_home;
    const struct pd_strv *pass, *drop; /* env_pass, env_drop (NULL: none) */
    FILE *say;                         /* NULL, or where each dropped name is said */
};
char **pd_exec_env(char *const *envp, const struct pd_env_opts *o);
void pd_exec_env_free(char **env);
/* The real cargo or rustup home: $var, else <home>/<dflt>. "" if unknown. */
void pd_exec_tool_home(const char *var, const char *dflt, char *out, size_t outlen);
/* Does an ASAN_OPTIONS value (NULL: none) set verify_asan_link_order? */
bool pd_asan_sets_link_order(const char *options);
/* exec_env_filter.c: why the caller's variable name[0..len) is dropped
 * ("loader hook", "shell hook", "secret-looking", "env_drop", ...), or NULL
 * when it passes. */
const char *pd_env_drop_reason(const char *name, size_t len, const struct pd_strv *pass,
                               const struct pd_strv *drop, bool allow_network);

/* exec_cache.c: the workspace's persistent cache folder,
 * <$XDG_CACHE_HOME or ~/.cache>/paldron/<name>-<hash of the real path,
 * device and inode>. pd_cache_dir computes it; pd_cache_prepare also
 * creates it (0700, no link followed in paldron/ and below). Return 0 or
 * -1 with err (NULL allowed) saying why. */
int pd_cache_base(char *out, size_t len, char *err, size_t errlen);
int pd_cache_dir(const char *workspace, char *out, size_t len, char *err, size_t errlen);
/* exec_ns_stock.c: the run's namespaces (e), taken from the stock the last
 * run left, else made while the run is prepared (pd_ns_early_start); and
 * after a run that entered them, the stock for the next (kept
 * pd_ns_stock_keep_sec seconds, 15). net: the run has no network. */
void pd_exec_ns_begin(struct pd_exec_plan *p, bool net);
/* The kept process whose namespaces were taken ends (once the child has
 * started: exec_supervise.c). */
void pd_exec_ns_end_taken(void);
bool pd_exec_ns_stock_due(const struct pd_exec_plan *p); /* the run entered them */
void pd_exec_ns_stock_leave(bool due, bool net);
extern unsigned pd_ns_stock_keep_sec;

/* The cache base (pd_cache_base) opened as pd_cache_prepare made it: the
 * user's, no link in its last component, writable by no one else; -1 if it
 * is not there (yet) or is not that. */
int pd_cache_base_open(const char *base);
int pd_cache_prepare(const char *workspace, char *out, size_t len, char *err, size_t errlen);
/* Isolated mode: prepare p->cache and make it a writable root of the live
 * gate (the spec adds it for the kernel). A cache that cannot be made is a
 * warning (the caches then live in the temp home). Returns 0, or -1
 * (ENOMEM). */
int pd_exec_cache_plan(struct pd_exec_plan *p, struct pd_ctx *ctx);

/* exec_roots.c: create the allow_paths folders that are missing, inside
 * the workspace, as the invoking user, without following any link, and
 * say so once on out ("paldron: created build/ (allow_paths)"); an entry
 * outside the workspace, through a link, or that the policy denies is not
 * created, and the line says why. Before the kernel rules are built: they
 * grant nothing on a path that does not exist. */
void pd_exec_make_roots(const struct pd_ctx *ctx, FILE *out);
/* exec_git_root.c: when the policy allows git, the git directory of the
 * workspace's repository (and its common directory) become writable roots
 * of the gate (pd_ctx_add_root) and of the kernel (p->git_roots), unless a
 * writable root holds them already. Returns 0, or -1 (ENOMEM). */
int pd_exec_git_roots(struct pd_exec_plan *p, struct pd_ctx *c);

/* exec_sandbox.c: fill p->spec, p->lists and p->limits from the context,
 * the program and the temp home. Returns 0 or -1 (ENOMEM). */
int pd_exec_spec(struct pd_exec_plan *p);
void pd_exec_spec_free(struct pd_exec_plan *p);

/* exec_ns.c: fill p->spec.ns (and p->ns) after the snapshot: what to
 * bind back under the private /tmp, mask and make read-only, the host
 * sockets out of reach, the report page. Returns 0 or -1 (errno). */
struct pd_scan;
int pd_exec_ns_plan(struct pd_exec_plan *p, const struct pd_scan *scan);
/* After the run: the coverage line of the namespace floor. Missing
 * namespaces are always said (every protection lacking, and why); what the
 * floor held (masks counted) only when always is set: a program ran that
 * the live gate could not see, or PALDRON_DEBUG. */
void pd_exec_ns_coverage(const struct pd_exec_plan *p, bool always, FILE *out);
void pd_exec_ns_free(struct pd_exec_plan *p);

/* exec_child.c: the child before execve: own session (no controlling terminal), stdin /dev/null,
 * stdout/stderr to the pipes (interactive: paldron's process group and
 * paldron's stdin, stdout and stderr), working directory, no other descriptor,
 * kernel layers (or rlimits only in degraded mode), execve. On any failure
 * writes "<step>: <error>" to errfd and exits 127. parent: the forking
 * process (the child dies with it). */
__attribute__((noreturn)) void pd_exec_child(const struct pd_exec_plan *p, pid_t parent, int out_w,
                                             int err_w, int errfd);

/* exec_child.c: the child's last step, once its session, descriptors and
 * working directory are set: the kernel layers (isolated: pd_platform_apply)
 * or the resource limits alone (degraded mode), the clock fence, execve. On
 * failure "<step>: <error>" on errfd and exit 127. The child makes it, or
 * under valgrind the native `paldron __sandbox` from what the child handed
 * it (exec_valgrind.c): one function for both, so that the layers are the
 * same and in the same order. */
struct pd_exec_last {
    bool isolated;
    const struct pd_sandbox_spec *spec;  /* isolated only */
    const struct pd_platform_info *info; /* isolated only */
    const struct pd_limits *limits;      /* degraded mode only */
    const struct pd_fence *fence;
    const char *program;
    char *const *argv;
    char *const *envp;
    char *const *ns_envp; /* envp with TMPDIR=/tmp once the namespaces are entered (NULL: envp) */
};
__attribute__((noreturn)) void pd_exec_last_step(const struct pd_exec_last *l, int errfd);
/* Every descriptor above 2 close-on-exec. Returns 0 or -1 (errno). */
int pd_exec_cloexec_from_3(void);
/* "<step>[ <what>]: <detail or strerror(err)>" on errfd, then _exit(127);
 * no allocation (the child may share the launcher's memory). */
__attribute__((noreturn)) void pd_exec_fail(int errfd, const char *step, const char *what, int err,
                                            const char *detail);

/* exec_valgrind.c: valgrind memcheck runs the launcher (tests/valgrind/),
 * but it knows neither the Landlock system calls nor what a seccomp filter
 * would do to it. pd_exec_under_valgrind: valgrind's own preload is in
 * LD_PRELOAD (one getenv, then remembered). pd_exec_valgrind_handoff, in
 * the child after its descriptors are set: the last step written into a
 * sealed memfd, the descriptors that step needs kept open, and the
 * launcher's own binary executed as `paldron __sandbox FD` - natively, as
 * valgrind does not follow an exec - which makes pd_exec_last_step from
 * it. Any failure: "<step>: <error>" on errfd, exit 127. */
bool pd_exec_under_valgrind(void);
__attribute__((noreturn)) void pd_exec_valgrind_handoff(const struct pd_exec_plan *p,
                                                        const struct pd_exec_last *l, int errfd);

/* exec_child.c: start pd_exec_child in a new process (the calling process
 * is its parent); returns its pid, or -1 with errno. Returns once the child
 * has called execve or exited. */
pid_t pd_exec_spawn(const struct pd_exec_plan *p, int out_w, int err_w, int errfd);

/* exec_net.c: allow_hosts. pd_exec_net_plan before the spec is built (it
 * decides the namespaces are required and makes the channel, the port,
 * the resolv.conf); pd_exec_net_spec once the spec exists; pd_exec_net_start
 * once the child is started (the parent's end of the channel is served
 * from then on); pd_exec_net_stop when the run's tree has ended, its
 * records into live; pd_exec_net_free in every case. Each returns 0, or -1
 * having said why. */
int pd_exec_net_plan(struct pd_exec_plan *p, struct pd_ctx *ctx);
void pd_exec_net_spec(struct pd_exec_plan *p);
int pd_exec_net_start(struct pd_exec_plan *p);
void pd_exec_net_stop(struct pd_exec_plan *p, struct pd_live *live);
void pd_exec_net_free(struct pd_exec_plan *p);

/* exec_supervise.c: the signals the launcher takes through a signalfd
 * while a command runs (SIGCHLD and those that stop paldron). pd_exec_run
 * blocks them from before the run directory exists to the end, so that an
 * interrupt always goes through the cleanup. */
void pd_exec_signals(sigset_t *set);

/* exec_supervise.c: run the plan (the signals of pd_exec_signals blocked,
 * p->child_mask the mask to restore in the command); fills *o. Returns 0, or -1 when the run
 * could not be started (o->sandbox_error says why). */
int pd_exec_supervise(struct pd_exec_plan *p, struct pd_exec_outcome *o);
void pd_exec_outcome_free(struct pd_exec_outcome *o);

/* exec_keeper.c: keep_background: the process between the launcher and the
 * command. It becomes a subreaper in its own session, starts the command,
 * reports its wait status on statusfd (struct pd_keeper_msg), then waits
 * for the command's background descendants and ends them at the deadline;
 * last it removes the run directory. Never returns. */
struct pd_keeper_msg {
    int timed_out;
    int status;
};
struct pd_keeper_fds {
    int out_w, err_w; /* the command's stdout and stderr */
    int out_r, err_r; /* their read ends, drained once the launcher exited */
    int errfd, statusfd;
};
__attribute__((noreturn)) void pd_exec_keeper(const struct pd_exec_plan *p,
                                              const struct pd_keeper_fds *fds,
                                              long long deadline_ms);

/* exec_tree.c: every living descendant of the calling process, found
 * through /proc/<pid>/task/<tid>/children (the calling process must be a
 * subreaper for orphans to stay in reach). */
struct pd_pids {
    pid_t *pid, *parent;
    size_t n, cap;
};
int pd_tree_list(struct pd_pids *out);
/* Send sig to each listed process still a child of its listed parent
 * (pidfds, so a recycled pid is never signalled). Returns how many. */
size_t pd_tree_signal(const struct pd_pids *pids, int sig);
void pd_pids_free(struct pd_pids *pids);
/* SIGTERM to every descendant, up to grace_ms for them to go, then SIGKILL
 * until none is left. idle(arg, ms) is called to wait: it must reap
 * children (and may read pipes). Returns the number of processes that
 * received SIGTERM. */
size_t pd_tree_end(int grace_ms, void (*idle)(void *arg, int ms), void *arg);
/* Monotonic milliseconds. */
long long pd_now_ms(void);

/* exec_flow.c: before the run, the flows of both streams (p->outscan's
 * stream scans; with p->stream, paldron's stdout and stderr, given up on
 * after give_up). Returns 0, or -1 (ENOMEM). */
int pd_exec_flow_open(struct pd_exec_plan *p, struct pd_exec_outcome *o, long long give_up);
/* n bytes the command wrote on stream k (0 stdout, 1 stderr). */
void pd_exec_flow_feed(struct pd_exec_outcome *o, int k, const void *buf, size_t n);
/* End of stream k: release what was held, close the capture. */
void pd_exec_flow_end(struct pd_exec_outcome *o, int k);

/* exec_result.c: the result block on stdout (interactive: the summary
 * line on stderr instead; --stream: no stream sections; --json: one JSON
 * object, exec_json.c), then the verdict lines on stderr; returns the
 * exit code. deny: findings of every layer. A deny ends with
 * "paldron: denied: N finding(s); the command itself exited CODE". */
int pd_exec_report(const struct pd_exec_plan *p, const struct pd_exec_outcome *o,
                   struct pd_findings *deny);
/* The block (--json: the object) for a run that failed before anything ran. */
void pd_exec_print_sandbox_error(const struct pd_exec_plan *p, const char *msg);
/* What the command itself did, for the verdict: "exited 3", "was killed by
 * SIGKILL", "timed out after 5 s", "was stopped (paldron was interrupted by
 * SIGINT)", "did not start", "left no status". */
void pd_exec_status_words(const struct pd_exec_plan *p, const struct pd_exec_outcome *o, char *out,
                          size_t len);
/* Keep the verdict's warnings for --json (copied; w is left as it is). */
void pd_exec_keep_warnings(struct pd_exec_outcome *o, const struct pd_findings *w);

/* exec_json.c: --json. The result of a run: {"verdict", "exit", "command":
 * {"exit", "signal", "timed_out", "interrupted", "started", "error"}, "stdout",
 * "stderr", "stdout_dropped", "stderr_dropped", "findings": [{"message"}],
 * "warnings": [...], "error"} on stdout (docs/output-scan.md). verdict_exit:
 * 0, 1 or 2; error: the broken verdict's line (NULL otherwise). */
void pd_exec_json_result(const struct pd_exec_plan *p, const struct pd_exec_outcome *o,
                         const struct pd_findings *deny, int verdict_exit, const char *error);
/* The object for a run refused before it started: the argv gate's deny
 * (finding) or a start failure (error). */
void pd_exec_json_not_run(const char *finding, const char *error);
/* The warning about processes left running (keep_background), for the
 * stderr line and the JSON object alike. */
void pd_exec_background_warning(const struct pd_exec_plan *p, const struct pd_exec_outcome *o,
                                char *out, size_t len);

/* exec_run.c: `paldron exec` after option parsing. */
struct pd_exec_opts {
    long long timeout; /* --timeout, 0 = the policy's (interactive: none) */
    bool audit;        /* --audit: the live gate only logs */
    bool interactive;  /* --interactive: terminal passed through, nothing captured */
    const char *log;   /* --log FILE: every live-gate record as a JSON line */
    bool routed;       /* --routed: argv is one shell command text (exec_routed.c) */
    const char *cwd;   /* the real working directory, inside the workspace; NULL = it */
    bool stream;       /* --stream: the output goes out as it comes, redacted */
    bool json;         /* --json: the result as one JSON object on stdout */
};

/* exec_routed.c: a hook-routed call. argv[0] is the command text the agent
 * wrote; *out becomes the argv to run: the text's words when it is one
 * plain command (no shell syntax, no builtin: the program runs directly,
 * as `exec -- argv` would, and costs no shell), else Paldron's own shell
 * (PD_ROUTED_SHELL -c TEXT). *own_shell says which: Paldron's shell is not
 * judged against allow_binaries (every program it starts is). Returns 0,
 * or -1 (ENOMEM). Free *out with pd_exec_routed_free. */
#define PD_ROUTED_SHELL "/bin/bash"
int pd_exec_routed_argv(const struct pd_ctx *c, const char *text, const char *cwd, char ***out,
                        int *argc, bool *own_shell);
void pd_exec_routed_free(char **argv);
/* The routed result: the command's stdout and stderr as they were (after
 * the output scan), the verdict lines, and the command's exit status (a
 * denial with status 0 ends 2; a timeout 124; a signal 128+N; a sandbox
 * error 126). */
int pd_exec_routed_report(const struct pd_exec_plan *p, const struct pd_exec_outcome *o,
                          struct pd_findings *deny);
int pd_exec_run(struct pd_ctx *ctx, int argc, char **argv, const struct pd_exec_opts *opts);

/* PALDRON_DEBUG=timing: mark the end of a phase named phase (a string
 * literal), and print the phases on one line (exec_timing.c). */
void pd_timing_mark(const char *phase);
void pd_timing_print(FILE *out);

#endif
