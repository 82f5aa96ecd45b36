/* preload/state.h - what the preload knows in this process image: the
 * settings captured from the environment at load time (and re-injected into
 * every exec), the compiled policy and its context, and the mode. Built
 * once, on the first gated call, and read-only afterwards, so threads share
 * it without locks and fork children inherit it. */
#ifndef PALDRON_PRELOAD_STATE_H
#define PALDRON_PRELOAD_STATE_H

#include <stdbool.h>
#include <sys/un.h>

#include "policy/kernel_grants.h"
#include "policy/policy.h"

#define PD_ENV_RUN     "PALDRON_RUN"
#define PD_ENV_PRELOAD "PALDRON_PRELOAD"
#define PD_ENV_AUDIT   "PALDRON_AUDIT"
#define PD_ENV_DEBUG   "PALDRON_DEBUG"
#define PD_ENV_LD      "LD_PRELOAD"
#define PD_POLICY_FILE "policy.compiled"
#define PD_REPORT_SOCK "report.sock"

enum pd_mode {
    PD_MODE_PASS,   /* no PALDRON_RUN: an unrelated process, change nothing */
    PD_MODE_ACTIVE, /* the policy is loaded: gate every call */
    PD_MODE_CLOSED, /* PALDRON_RUN set but the policy is unusable: deny all */
};

/* Settings captured from the environment this image started with. */
struct pd_env {
    char run[PD_PATH_MAX]; /* PALDRON_RUN, "" when absent */
    char lib[PD_PATH_MAX]; /* absolute path of this library */
    bool audit;            /* PALDRON_AUDIT=1 */
    bool debug;            /* PALDRON_DEBUG=1 */
    /* "NAME=value" strings, ready for a child's environment */
    char run_kv[PD_PATH_MAX + 16];
    char lib_kv[PD_PATH_MAX + 24];
};

struct pd_match;

struct pd_state {
    enum pd_mode mode;
    struct pd_policy policy;
    struct pd_ctx ctx;
    struct pd_match *match;         /* fast path index (match.h) */
    struct pd_kernel_grants grants; /* what Landlock grants (kernel_refusal.h) */
    char policy_path[PD_PATH_MAX];  /* <run>/policy.compiled */
    char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)]; /* "" if too long */
    char exe[PD_PATH_MAX]; /* /proc/self/exe ("" if unknown) */
    char why[PD_MSG_MAX];  /* CLOSED: why the policy is unusable */
};

/* The state, built on first use (call inside the recursion guard). */
const struct pd_state *pd_state(void);

/* The captured settings (captured at load, or on first use if a library
 * constructor that ran before ours made a wrapped call). */
const struct pd_env *pd_env(void);

/* The program's name (basename of argv[0]) and argv, for records. */
const char *pd_program(void);
int pd_prog_argc(void);
char *const *pd_prog_argv(void);

#endif
