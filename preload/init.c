/* preload/init.c - start-up of the preload in a process image. At load
 * time only what cannot wait: the settings from the environment (before
 * the program can change it) and argv. On the first gated call: map the
 * compiled policy that the launcher wrote into PALDRON_RUN (open, fstat,
 * mmap, close) and check it. Fail closed: with PALDRON_RUN set and no
 * usable policy, every gated call is denied and the reason is printed once.
 * Without PALDRON_RUN nothing is gated (pass-through). A program that makes
 * no gated call never maps anything. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy/report.h"
#include "preload/channel.h"
#include "preload/guard.h"
#include "preload/loader_started.h"
#include "preload/state.h"

__thread int pd_guard_depth __attribute__((tls_model("initial-exec")));

/* The captured settings: 0 not yet, 1 being captured, 2 captured. The
 * constructor captures them; a wrapped call made before it (by another
 * library's constructor) captures them first. */
static struct pd_env env_settings;
static atomic_int env_state;
static char env_store[1024]; /* the packed strings, when they fit */
static bool env_lost;        /* PALDRON_RUN was set but could not be kept */

static int prog_argc;
static char **prog_argv;
static const char *prog_name = "?";

/* 0: not loaded yet; LOADED_PASS or LOADED_CLOSED; else the address of
 * the mapped image (page aligned, so never 1 or 2). */
static _Atomic uintptr_t loaded;
#define LOADED_PASS   ((uintptr_t)1)
#define LOADED_CLOSED ((uintptr_t)2)

static _Atomic(struct pd_full *) full;

static const char *lookup(char **envp, const char *name)
{
    size_t n = strlen(name);
    for (char **e = envp; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

/* Copy "NAME=value" into the store at *used; returns its start. The
 * store is env_store, or a mapping for values that do not fit it. */
static const char *pack(char *store, size_t *used, const char *name, const char *value)
{
    size_t n = strlen(name), v = strlen(value);
    char *at = store + *used;
    memcpy(at, name, n);
    at[n] = '=';
    memcpy(at + n + 1, value, v + 1);
    *used += n + v + 2;
    return at;
}

static void capture(char **envp)
{
    extern char **environ;
    struct pd_env *e = &env_settings;
    if (!envp)
        envp = environ;
    const char *run = lookup(envp, PD_ENV_RUN);
    const char *lib = lookup(envp, PD_ENV_PRELOAD);
    const char *audit = lookup(envp, PD_ENV_AUDIT);
    const char *debug = lookup(envp, PD_ENV_DEBUG);
    char real[PD_PATH_MAX];
    run = run ? run : "";
    if (!lib || lib[0] != '/' || strlen(lib) >= PD_PATH_MAX) {
        /* not told: this library's own file */
        Dl_info info;
        lib = "";
        if (dladdr((void *)&capture, &info) && info.dli_fname && realpath(info.dli_fname, real))
            lib = real;
    }
    size_t need = strlen(PD_ENV_RUN) + strlen(run) + strlen(PD_ENV_PRELOAD) + strlen(lib) + 4;
    char *store = env_store;
    if (need > sizeof env_store) {
        void *m = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            /* the run is set but cannot be kept: fail closed (load) */
            env_lost = run[0] != '\0';
            run = lib = "";
        } else {
            store = m;
        }
    }
    size_t used = 0;
    e->run_kv = pack(store, &used, PD_ENV_RUN, run);
    e->run = e->run_kv + strlen(PD_ENV_RUN) + 1;
    e->lib_kv = pack(store, &used, PD_ENV_PRELOAD, lib);
    e->lib = e->lib_kv + strlen(PD_ENV_PRELOAD) + 1;
    e->audit = audit && strcmp(audit, "1") == 0;
    e->debug = debug && strcmp(debug, "1") == 0;
}

static void capture_once(char **envp)
{
    int seen = 0;
    if (atomic_compare_exchange_strong(&env_state, &seen, 1)) {
        int g = pd_guard_enter();
        capture(envp);
        pd_guard_leave(g);
        atomic_store_explicit(&env_state, 2, memory_order_release);
        return;
    }
    /* Another thread is capturing (only before the constructors are
     * done: a signal handler of this thread sees the recursion guard and
     * passes through instead). */
    while (atomic_load_explicit(&env_state, memory_order_acquire) != 2)
        sched_yield();
}

const struct pd_env *pd_env(void)
{
    if (atomic_load_explicit(&env_state, memory_order_acquire) != 2)
        capture_once(NULL);
    return &env_settings;
}

bool pd_run_file(const char *name, char *out, size_t len)
{
    const char *run = pd_env()->run;
    return run[0] && (size_t)snprintf(out, len, "%s/%s", run, name) < len;
}

/* glibc passes argc, argv and envp to ELF constructors. */
__attribute__((constructor)) static void pd_ctor(int argc, char **argv, char **envp)
{
    prog_argc = argc;
    prog_argv = argv;
    if (argc > 0 && argv && argv[0]) {
        const char *slash = strrchr(argv[0], '/');
        prog_name = slash ? slash + 1 : argv[0];
    }
    if (atomic_load_explicit(&env_state, memory_order_acquire) != 2)
        capture_once(envp);
    pd_loader_started_check(argv);
}

const char *pd_program(void)
{
    return prog_name;
}

int pd_prog_argc(void)
{
    return prog_argc;
}

char *const *pd_prog_argv(void)
{
    return prog_argv;
}

static void why_errno(char *why, size_t len, int err)
{
    snprintf(why, len, "%s", strerror(err));
}

/* Map and check the image at path; NULL with why filled when unusable.
 * Raw system calls and mmap only: no wrapper, no stdio, no malloc. */
static const struct pd_image *map_image(const char *path, char *why, size_t whylen)
{
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        why_errno(why, whylen, errno);
        return NULL;
    }
    struct stat st;
    const struct pd_image *im = NULL;
    if (fstat(fd, &st) != 0) {
        why_errno(why, whylen, errno);
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "not a regular file");
    } else if (st.st_size > (off_t)PD_IMAGE_MAX_BYTES) {
        snprintf(why, whylen, "larger than %u bytes", PD_IMAGE_MAX_BYTES);
    } else if ((size_t)st.st_size < sizeof(struct pd_image)) {
        /* too short to map as an image: say what its first bytes are */
        union {
            struct pd_image im;
            char b[sizeof(struct pd_image)];
        } head;
        ssize_t n = pread(fd, head.b, sizeof head.b, 0);
        const char *bad = n < 0 ? NULL : pd_image_check(head.b, (size_t)n);
        if (n < 0)
            why_errno(why, whylen, errno);
        else
            snprintf(why, whylen, "%s", bad ? bad : "truncated or incomplete compiled policy");
    } else {
        size_t len = (size_t)st.st_size;
        void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        const char *bad = m == MAP_FAILED ? NULL : pd_image_check(m, len);
        if (m == MAP_FAILED) {
            why_errno(why, whylen, errno);
        } else if (bad) {
            snprintf(why, whylen, "%s", bad);
            munmap(m, len);
        } else {
            im = m;
        }
    }
    close(fd);
    return im;
}

/* The policy is unusable: say so once per process image, and record it. */
static void say_closed(const char *policy_path, const char *why)
{
    const char *path = policy_path[0] ? policy_path : PD_POLICY_FILE;
    pd_say("paldron: preload: cannot load policy ", path, ": ", why,
           "; denying every file, network and exec call", (const char *)NULL);
    struct pd_event ev = {PD_REPORT_ERROR, "init", path, "", "", "", why};
    pd_emit(NULL, &ev, false);
}

static uintptr_t load(void)
{
    const struct pd_env *e = pd_env();
    const struct pd_image *im = NULL;
    char why[PD_MSG_MAX], policy_path[PD_PATH_MAX] = "";
    uintptr_t mine = LOADED_PASS;
    if (env_lost) {
        snprintf(why, sizeof why, "out of memory for the settings");
        mine = LOADED_CLOSED;
    } else if (e->run[0]) {
        if (e->run[0] != '/')
            snprintf(why, sizeof why, "PALDRON_RUN is not an absolute path");
        else if (!pd_run_file(PD_POLICY_FILE, policy_path, sizeof policy_path))
            snprintf(why, sizeof why, "path too long");
        else
            im = map_image(policy_path, why, sizeof why);
        mine = im ? (uintptr_t)im : LOADED_CLOSED;
    }
    uintptr_t seen = 0;
    if (!atomic_compare_exchange_strong(&loaded, &seen, mine)) {
        if (im)
            munmap((void *)(uintptr_t)im, (size_t)im->size);
        return seen; /* another thread, or a handler, was first */
    }
    if (mine == LOADED_CLOSED)
        say_closed(policy_path, why);
    return mine;
}

void pd_state_load(struct pd_state *s)
{
    uintptr_t w = atomic_load_explicit(&loaded, memory_order_acquire);
    if (!w)
        w = load();
    s->img = NULL;
    if (w == LOADED_PASS) {
        s->mode = PD_MODE_PASS;
    } else if (w == LOADED_CLOSED) {
        s->mode = PD_MODE_CLOSED;
    } else {
        s->mode = PD_MODE_ACTIVE;
        s->img = (const struct pd_image *)w;
    }
}

const struct pd_full *pd_full(const struct pd_state *s)
{
    if (s->mode != PD_MODE_ACTIVE)
        return NULL;
    struct pd_full *f = atomic_load_explicit(&full, memory_order_acquire);
    if (f)
        return f;
    size_t len = sizeof *f + pd_image_nptrs(s->img) * sizeof(char *);
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    f = m;
    f->maplen = len;
    pd_image_materialize(s->img, (char **)(void *)(f + 1), &f->policy, &f->ctx, &f->grants);
    struct pd_full *seen = NULL;
    if (!atomic_compare_exchange_strong(&full, &seen, f)) {
        munmap(m, len);
        return seen;
    }
    return f;
}
