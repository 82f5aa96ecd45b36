/* preload/state.h - what the preload knows in this process image: the
 * settings captured from the environment at load time (and re-injected into
 * every exec), and - from the first gated call on - the compiled policy,
 * mapped read-only (policy/compiled_image.h) and read in place. Slow paths
 * that need the policy as structs (pd_gate_path when the index cannot prove
 * "allow", the exec gate, advice) materialize it once (pd_full), without
 * parsing: pointer arrays into the mapping.
 *
 * Both are published with one atomic word each, built without locks and
 * without malloc: a thread, a signal handler, a fork child or the child of
 * a vfork (which shares this memory) may be the first to need them. Two
 * that race both build, one publishes, the other unmaps its copy. */
#ifndef PALDRON_PRELOAD_STATE_H
#define PALDRON_PRELOAD_STATE_H

#include <stdbool.h>
#include <sys/un.h>

#include "policy/compiled_image.h"
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
    PD_MODE_ACTIVE, /* the policy is mapped: gate every call */
    PD_MODE_CLOSED, /* PALDRON_RUN set but the policy is unusable: deny all */
};

/* Settings captured from the environment this image started with. The
 * strings are copies (the program may overwrite its environment block),
 * packed into one small buffer: the constructor touches a page or two,
 * not one per setting. */
struct pd_env {
    const char *run;    /* PALDRON_RUN, "" when absent */
    const char *lib;    /* absolute path of this library ("" if unknown) */
    const char *run_kv; /* "PALDRON_RUN=<run>", ready for a child's environment */
    const char *lib_kv; /* "PALDRON_PRELOAD=<lib>" */
    bool audit;         /* PALDRON_AUDIT=1 */
    bool debug;         /* PALDRON_DEBUG=1 */
};

/* <run>/name into out (len bytes); false when it does not fit. */
bool pd_run_file(const char *name, char *out, size_t len);

/* The state as one wrapper call sees it. */
struct pd_state {
    enum pd_mode mode;
    const struct pd_image *img; /* ACTIVE: the checked image, mapped */
};

/* The policy as structs, for the slow paths (pd_full). */
struct pd_full {
    struct pd_policy policy;
    struct pd_ctx ctx;
    struct pd_kernel_grants grants; /* what Landlock grants (kernel_refusal.h) */
    size_t maplen;                  /* bytes of the mapping that holds this */
};

/* The state into *s; the first call in a process image maps the policy
 * (or finds it unusable: then it says why, once). Call inside the
 * recursion guard. */
void pd_state_load(struct pd_state *s);

/* The materialized policy of an ACTIVE state; NULL when there is no memory
 * for it (the caller then refuses: fail closed). Built on first use. */
const struct pd_full *pd_full(const struct pd_state *s);

/* The captured settings (captured at load, or on first use if a library
 * constructor that ran before ours made a wrapped call). */
const struct pd_env *pd_env(void);

/* The program's name (basename of argv[0]) and argv, for records. */
const char *pd_program(void);
int pd_prog_argc(void);
char *const *pd_prog_argv(void);

#endif
