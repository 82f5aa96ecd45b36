/* preload/init.c - start-up of the preload in a process image: capture the
 * settings from the environment (at load time, before the program can
 * change it), then on the first gated call load the compiled policy that
 * the launcher wrote into PALDRON_RUN. Fail closed: with PALDRON_RUN set
 * and no usable policy, every gated call is denied and the reason is
 * printed once. Without PALDRON_RUN nothing is gated (pass-through). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy/report.h"
#include "preload/channel.h"
#include "preload/guard.h"
#include "preload/match.h"
#include "preload/state.h"
#include "preload/symtab.h"

#define PD_POLICY_MAX_BYTES (4 * 1024 * 1024)

extern char **environ;

__thread int pd_guard_depth __attribute__((tls_model("initial-exec")));

static struct pd_env env_settings;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static char **env_source; /* the envp handed to the constructor */

static struct pd_state state;
static pthread_once_t state_once = PTHREAD_ONCE_INIT;

static int prog_argc;
static char **prog_argv;
static const char *prog_name = "?";

static const char *lookup(char **envp, const char *name)
{
    size_t n = strlen(name);
    for (char **e = envp; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static void capture_env(void)
{
    struct pd_env *e = &env_settings;
    char **envp = env_source ? env_source : environ;
    const char *run = lookup(envp, PD_ENV_RUN);
    const char *lib = lookup(envp, PD_ENV_PRELOAD);
    const char *audit = lookup(envp, PD_ENV_AUDIT);
    const char *debug = lookup(envp, PD_ENV_DEBUG);
    snprintf(e->run, sizeof e->run, "%s", run ? run : "");
    e->audit = audit && strcmp(audit, "1") == 0;
    e->debug = debug && strcmp(debug, "1") == 0;
    if (lib && lib[0] == '/') {
        snprintf(e->lib, sizeof e->lib, "%s", lib);
    } else {
        /* not told: this library's own file */
        Dl_info info;
        char real[PD_PATH_MAX];
        if (dladdr((void *)&capture_env, &info) && info.dli_fname && realpath(info.dli_fname, real))
            snprintf(e->lib, sizeof e->lib, "%s", real);
    }
    snprintf(e->run_kv, sizeof e->run_kv, "%s=%s", PD_ENV_RUN, e->run);
    snprintf(e->lib_kv, sizeof e->lib_kv, "%s=%s", PD_ENV_PRELOAD, e->lib);
}

const struct pd_env *pd_env(void)
{
    pthread_once(&env_once, capture_env);
    return &env_settings;
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
    env_source = envp;
    pd_env();
    env_source = NULL;
    /* Load the policy now, so that no later call - an exec in a child that
     * shares its parent's memory, a signal handler - is the first and has
     * to allocate. Binding the real functions stays lazy (symtab.c). */
    int g = pd_guard_enter();
    pd_state();
    pd_guard_leave(g);
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

/* Read a whole small file with raw system calls (no wrapper, no stdio). */
static char *read_file(const char *path, char *why, size_t whylen)
{
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        return NULL;
    }
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) != 0) {
        snprintf(why, whylen, "%s", strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "not a regular file");
    } else if (st.st_size > PD_POLICY_MAX_BYTES) {
        snprintf(why, whylen, "larger than %d bytes", PD_POLICY_MAX_BYTES);
    } else if (!(buf = malloc((size_t)st.st_size + 1))) {
        snprintf(why, whylen, "out of memory");
    } else {
        size_t n = 0, want = (size_t)st.st_size;
        while (n < want) {
            ssize_t r = read(fd, buf + n, want - n);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                snprintf(why, whylen, "%s", r < 0 ? strerror(errno) : "file shrank while read");
                free(buf);
                buf = NULL;
                break;
            }
            n += (size_t)r;
        }
        if (buf)
            buf[n] = '\0';
    }
    close(fd);
    return buf;
}

static void load_policy(struct pd_state *s, const struct pd_env *e)
{
    char err[PD_MSG_MAX];
    if (e->run[0] != '/') {
        snprintf(s->why, sizeof s->why, "PALDRON_RUN is not an absolute path");
        return;
    }
    if ((size_t)snprintf(s->policy_path, sizeof s->policy_path, "%s/%s", e->run, PD_POLICY_FILE) >=
        sizeof s->policy_path) {
        snprintf(s->why, sizeof s->why, "path too long");
        return;
    }
    char *text = read_file(s->policy_path, s->why, sizeof s->why);
    if (!text)
        return;
    int rc = pd_compiled_load_grants(text, &s->policy, &s->ctx, &s->grants, err, sizeof err);
    free(text);
    if (rc != 0) {
        snprintf(s->why, sizeof s->why, "%s", err);
        return;
    }
    s->match = pd_match_build(&s->ctx);
    if (!s->match) {
        snprintf(s->why, sizeof s->why, "out of memory");
        pd_ctx_free(&s->ctx);
        pd_policy_free(&s->policy);
        pd_kernel_grants_free(&s->grants);
        return;
    }
    s->mode = PD_MODE_ACTIVE;
}

static void init_state(void)
{
    struct pd_state *s = &state;
    const struct pd_env *e = pd_env();
    s->mode = PD_MODE_PASS;
    if (!e->run[0])
        return;
    s->mode = PD_MODE_CLOSED;
    if ((size_t)snprintf(s->sock_path, sizeof s->sock_path, "%s/%s", e->run, PD_REPORT_SOCK) >=
        sizeof s->sock_path)
        s->sock_path[0] = '\0';
    ssize_t n = readlink("/proc/self/exe", s->exe, sizeof s->exe - 1);
    s->exe[n > 0 ? n : 0] = '\0';
    load_policy(s, e);
    if (s->mode == PD_MODE_CLOSED) {
        pd_say("paldron: preload: cannot load policy ",
               s->policy_path[0] ? s->policy_path : PD_POLICY_FILE, ": ", s->why,
               "; denying every file, network and exec call", (const char *)NULL);
        struct pd_event ev = {PD_REPORT_ERROR, "init", s->policy_path, "", "", "", s->why};
        pd_emit(s, &ev, false);
    }
}

const struct pd_state *pd_state(void)
{
    pthread_once(&state_once, init_state);
    return &state;
}
