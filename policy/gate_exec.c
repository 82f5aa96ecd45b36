/* policy/gate_exec.c - the exec gate: patterns on the target, then
 * allow_binaries by identity with the loader, script, helper and companion
 * rules of policy/gate_exec.h. Reads the file system (stat, realpath, the first line
 * of a script); allocates nothing, so the preload may call it anywhere. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "policy/gate_exec.h"
#include "policy/report.h"
#include "policy/toml/toml_lex.h"

#define SHEBANG_MAX     256 /* bytes of a "#!" line that are read */
#define SCRIPT_DEPTH    4   /* interpreters that are themselves scripts */
#define PD_EXEC_DEPTH_E "interpreter nesting too deep"

static const char *const helper_dirs[] = {"/usr/lib",           "/usr/libexec", "/usr/local/lib",
                                          "/usr/local/libexec", "/lib",         NULL};

static const char *const companions[] = {"as", "ld", "ld.bfd", "ld.gold", "ld.lld", NULL};

/* Compiler drivers, also with a target prefix (x86_64-linux-gnu-gcc-12). */
static const char *const drivers[] = {"cc",      "c++",       "gcc*",      "g++*",    "clang*",
                                      "cpp",     "cpp-*",     "*-cpp",     "*-cpp-*", "*-cc",
                                      "*-c++",   "*-gcc",     "*-gcc-*",   "*-g++",   "*-g++-*",
                                      "*-clang", "*-clang-*", "*-clang++", NULL};

/* Helper trees and the drivers that own them: a program in a tree starts
 * only from its driver (allowed) or from another program of the same tree
 * (collect2 starting lto-wrapper, git-core's git starting git-remote-http).
 * A component may be a glob (llvm-*). */
static const char *const git_drivers[] = {"git", NULL};
static const char *const git_trees[] = {"/usr/lib/git-core", "/usr/libexec/git-core", NULL};
static const char *const cc_trees[] = {"/usr/lib/gcc", "/usr/libexec/gcc", "/usr/lib/gcc-cross",
                                       "/usr/lib/llvm-*", NULL};
static const struct {
    const char *const *trees;
    const char *const *drivers;
} scopes[] = {{git_trees, git_drivers}, {cc_trees, drivers}};
#define NSCOPES (sizeof scopes / sizeof scopes[0])

/* The dynamic loader by name: it maps whatever program its arguments name. */
static const char *const loader_names[] = {"ld-linux*", "ld.so",     "ld.so.*", "ld-*.so",
                                           "ld-*.so.*", "ld64.so.*", NULL};

/* ld.so's options that take a value (glibc's rtld.c); any other word ends
 * the options and names the program. */
static const char *const loader_valued[] = {
    "--library-path",         "--inhibit-rpath",     "--audit", "--preload", "--argv0",
    "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask", NULL};
static const char *const loader_flags[] = {
    "--list",    "--verify", "--inhibit-cache", "--list-tunables", "--list-diagnostics", "--help",
    "--version", NULL};

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static bool in_list(const char *const *list, const char *name)
{
    for (size_t k = 0; list[k]; k++)
        if (strcmp(list[k], name) == 0)
            return true;
    return false;
}

static bool matches_any(const char *const *pats, const char *name)
{
    for (size_t k = 0; pats[k]; k++)
        if (pd_glob_component(pats[k], strlen(pats[k]), name, strlen(name), false))
            return true;
    return false;
}

bool pd_exec_is_driver(const char *name)
{
    return matches_any(drivers, name);
}

bool pd_exec_is_loader(const char *path)
{
    char real[PD_PATH_MAX];
    if (matches_any(loader_names, base_name(path)))
        return true;
    return pd_realpath(path, real) && matches_any(loader_names, base_name(real));
}

static bool in_roots(const struct pd_ctx *c, const char *real)
{
    for (size_t k = 0; k < c->nroots; k++)
        if (pd_path_under(real, c->roots[k]))
            return true;
    return false;
}

bool pd_exec_is_helper(const char *abs)
{
    for (size_t k = 0; helper_dirs[k]; k++) {
        const char *rest = pd_path_under(abs, helper_dirs[k]);
        if (rest && rest[0])
            return true;
    }
    return false;
}

/* Does abs lie strictly beneath tree (whose components may be globs)? */
static bool under_tree(const char *abs, const char *tree)
{
    const char *a = abs, *t = tree;
    while (*t) {
        if (*a != '/' || *t != '/')
            return false;
        a++, t++;
        size_t al = strcspn(a, "/"), tl = strcspn(t, "/");
        if (!pd_glob_component(t, tl, a, al, false))
            return false;
        a += al, t += tl;
    }
    return a[0] == '/' && a[1];
}

/* The scope whose trees hold path (or its real path), or -1. */
static int scope_of(const char *path, const char *real)
{
    for (size_t k = 0; k < NSCOPES; k++)
        for (size_t j = 0; scopes[k].trees[j]; j++)
            if (under_tree(path, scopes[k].trees[j]) ||
                (real && under_tree(real, scopes[k].trees[j])))
                return (int)k;
    return -1;
}

const char *const *pd_exec_helper_trees(const char *name)
{
    for (size_t k = 0; k < NSCOPES; k++)
        if (matches_any(scopes[k].drivers, name))
            return scopes[k].trees;
    return NULL;
}

static void real_or_copy(const char *path, char *out, size_t len)
{
    char tmp[PD_PATH_MAX];
    if (pd_realpath(path, tmp))
        snprintf(out, len, "%s", tmp);
    else
        snprintf(out, len, "%s", path);
}

bool pd_exec_program_allowed(const struct pd_ctx *c, const char *exe)
{
    if (c->policy->allow_binaries.n == 0)
        return true;
    return pd_binary_entry_of(c, exe) != NULL;
}

/* May caller_exe start a program of scope k? Its driver (allowed), or a
 * program of the same trees. */
static bool scope_caller(const struct pd_ctx *c, int k, const char *caller_exe)
{
    char real[PD_PATH_MAX];
    real_or_copy(caller_exe, real, sizeof real);
    if (scope_of(caller_exe, real) == k)
        return true;
    return (matches_any(scopes[k].drivers, base_name(caller_exe)) ||
            matches_any(scopes[k].drivers, base_name(real))) &&
           pd_exec_program_allowed(c, caller_exe);
}

/* (g) Is real (what will run) a program in the run's go work directory,
 * started by the allowed go tool or by another program of that directory?
 * go test and go run build their binary there and the go tool execs it
 * directly; a go test binary may re-exec itself (os.Args[0]). Anything
 * else (sh, python, a program built elsewhere) is judged as usual: a file
 * in a writable root, denied. */
static bool go_helper(const struct pd_ctx *c, const char *real, const char *caller_exe)
{
    const char *rest = c->go_tmp[0] ? pd_path_under(real, c->go_tmp) : NULL;
    if (!rest || !rest[0])
        return false;
    char caller[PD_PATH_MAX];
    real_or_copy(caller_exe, caller, sizeof caller);
    rest = pd_path_under(caller, c->go_tmp);
    if (rest && rest[0])
        return true;
    return (strcmp(base_name(caller_exe), "go") == 0 || strcmp(base_name(caller), "go") == 0) &&
           pd_exec_program_allowed(c, caller_exe);
}

enum shebang { SHEBANG_NONE, SHEBANG_PATH, SHEBANG_ENV };

/* The interpreter of a "#!" script: the path on its first line (as the
 * kernel reads it: relative to the working directory when it has no
 * leading '/'), or for "#!/usr/bin/env NAME" NAME, with env's path in
 * env (may be NULL). */
static enum shebang read_shebang(const char *file, char *interp, size_t len, char *env,
                                 size_t envlen)
{
    char line[SHEBANG_MAX + 1];
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return SHEBANG_NONE;
    ssize_t n = pread(fd, line, SHEBANG_MAX, 0);
    int saved = errno;
    close(fd);
    errno = saved;
    if (n < 2 || line[0] != '#' || line[1] != '!')
        return SHEBANG_NONE;
    line[n] = '\0';
    char *nl = strchr(line, '\n');
    if (nl)
        *nl = '\0';
    /* words of the line: interpreter, then its argument(s) */
    char *save = NULL;
    char *word = strtok_r(line + 2, " \t", &save);
    if (!word)
        return SHEBANG_NONE;
    snprintf(interp, len, "%s", word);
    if (env && envlen)
        snprintf(env, envlen, "%s", word);
    if (strcmp(base_name(word), "env") != 0)
        return SHEBANG_PATH;
    /* env [-S] [-options] [NAME=value ...] NAME */
    while ((word = strtok_r(NULL, " \t", &save))) {
        if (word[0] == '-' || strchr(word, '='))
            continue;
        snprintf(interp, len, "%s", word);
        return SHEBANG_ENV;
    }
    return SHEBANG_PATH; /* env alone: env is the program */
}

int pd_exec_interpreter(const struct pd_ctx *c, const char *script, const char *base, char *out,
                        size_t outlen, char *env, size_t envlen)
{
    char interp[PD_PATH_MAX], joined[2 * PD_PATH_MAX + 2];
    if (env && envlen)
        env[0] = '\0';
    enum shebang kind = read_shebang(script, interp, sizeof interp, env, envlen);
    if (kind == SHEBANG_NONE)
        return 1;
    if (kind == SHEBANG_ENV)
        return pd_resolve_program(c, interp, NULL, out, outlen) == 0 ? 0 : -1;
    if (env && envlen)
        env[0] = '\0';
    /* the kernel opens the interpreter as a path: no PATH search, a
     * relative one against the working directory of the exec */
    if (interp[0] == '/')
        snprintf(joined, sizeof joined, "%s", interp);
    else
        snprintf(joined, sizeof joined, "%s/%s", base ? base : c->workspace, interp);
    pd_path_clean(joined, out, outlen);
    struct stat st;
    if (stat(out, &st) != 0 || !S_ISREG(st.st_mode) || access(out, X_OK) != 0)
        return -1;
    return 0;
}

static void exec_deny(struct pd_verdict *v, const struct pd_ctx *c, const char *path,
                      const char *why)
{
    const struct pd_strv *ab = &c->policy->allow_binaries;
    char list[PD_MSG_MAX / 2];
    pd_strv_join(ab, list, sizeof list);
    v->deny = true;
    v->reason = PD_REASON_BINARY;
    v->key = "allow_binaries";
    v->pattern = NULL;
    snprintf(v->message, sizeof v->message, "%s (%s%s%s) [allow_binaries: %s]", path,
             PD_REASON_BINARY, why ? "; " : "", why ? why : "", list);
}

/* Rules a, c, d and b for one program; invoked is the absolute invocation
 * path, base the working directory of the exec. Returns NULL when allowed,
 * else a short explanation. */
static const char *judge(const struct pd_ctx *c, const char *invoked, const char *base,
                         const char *caller_exe, int depth, char *why, size_t whylen)
{
    char real[PD_PATH_MAX];
    real_or_copy(invoked, real, sizeof real);
    struct pd_verdict bv;
    bool missing;
    if (pd_exec_is_loader(invoked)) /* never a helper; pd_gate_exec judges its program */
        return "the dynamic loader runs whatever program its arguments name";
    pd_gate_binary(c, invoked, NULL, &bv, &missing);
    if (!bv.deny)
        return NULL; /* (a), or a program that vanished: the exec fails */
    if (caller_exe && go_helper(c, real, caller_exe))
        return NULL; /* (g), though the work directory is writable */
    bool writable = in_roots(c, real);
    const char *name = base_name(invoked);
    if (!writable && caller_exe) {
        /* (c) helpers, scoped to the driver that owns their tree */
        int k = scope_of(invoked, real);
        if (k >= 0 && scope_caller(c, k, caller_exe))
            return NULL;
        /* (d) companions of a compiler */
        char on_path[PD_PATH_MAX], dir[PD_PATH_MAX];
        snprintf(dir, sizeof dir, "%.*s", (int)(name - invoked), invoked);
        bool listed_place = strcmp(dir, "/usr/bin/") == 0 ||
                            (pd_resolve_program(c, name, NULL, on_path, sizeof on_path) == 0 &&
                             strcmp(on_path, invoked) == 0);
        if (in_list(companions, name) && listed_place && scope_caller(c, 1, caller_exe))
            return NULL;
    }
    /* (b) scripts: the interpreter decides */
    char interp[PD_PATH_MAX];
    int rc = pd_exec_interpreter(c, real, base, interp, sizeof interp, NULL, 0);
    if (rc <= 0) {
        if (depth >= SCRIPT_DEPTH)
            return PD_EXEC_DEPTH_E;
        if (rc < 0) {
            snprintf(why, whylen, "its \"#!\" interpreter cannot be resolved");
            return why;
        }
        const char *sub = judge(c, interp, base, caller_exe, depth + 1, why, whylen);
        if (!sub)
            return NULL;
        if (sub != why)
            snprintf(why, whylen, "interpreter %s is not allowed", interp);
        return why;
    }
    if (writable && strcmp(name, base_name(real)) != 0)
        snprintf(why, whylen, "resolves to %s inside a writable root", real);
    else if (writable)
        snprintf(why, whylen, "lies inside a writable root");
    else
        return "";
    return why;
}

/* The program ld.so is asked to run: the first word after its options. */
static const char *loader_program(const char *const argv[])
{
    if (!argv || !argv[0])
        return NULL;
    for (size_t k = 1; argv[k]; k++) {
        if (in_list(loader_valued, argv[k])) {
            if (!argv[++k])
                return NULL;
        } else if (!in_list(loader_flags, argv[k])) {
            return argv[k];
        }
    }
    return NULL;
}

/* Rule h: the launcher's own binary as "connect HOST PORT" (real: the
 * file that will run, links resolved). */
static bool connect_helper(const struct pd_ctx *c, const char *real, const char *const argv[])
{
    return c->connect_helper[0] && strcmp(real, c->connect_helper) == 0 && argv && argv[0] &&
           argv[1] && strcmp(argv[1], "connect") == 0 && argv[2] && argv[3] && !argv[4];
}

void pd_gate_exec(const struct pd_ctx *c, const char *path, const char *base,
                  const char *const argv[], const char *caller_exe, struct pd_verdict *v)
{
    char invoked[PD_PATH_MAX], why[PD_PATH_MAX + 64];
    const char *b = base ? base : c->workspace;
    pd_verdict_allow(v);
    v->op = PD_OP_EXEC;
    snprintf(v->subject, sizeof v->subject, "%s", path);
    v->resolved[0] = '\0';
    if (pd_resolve_program(c, path, b, invoked, sizeof invoked) != 0)
        return;
    pd_gate_path(c, PD_OP_EXEC, b, invoked, v);
    snprintf(v->subject, sizeof v->subject, "%s", path);
    if (v->deny)
        return;
    real_or_copy(invoked, v->resolved, sizeof v->resolved);
    if (c->policy->allow_binaries.n == 0 || connect_helper(c, v->resolved, argv))
        return;
    why[0] = '\0';
    const char *no;
    const char *prog = pd_exec_is_loader(invoked) ? loader_program(argv) : NULL;
    if (prog && pd_binary_entry_of(c, invoked)) {
        no = NULL; /* the loader itself is listed by name */
    } else if (prog && strchr(prog, '/')) {
        /* ld.so PROGRAM runs PROGRAM: judged as that exec (a name without
         * '/' is looked up by the loader on its library path: denied) */
        char target[PD_PATH_MAX];
        struct pd_verdict tv;
        if (pd_resolve_program(c, prog, b, target, sizeof target) != 0) {
            no = "the dynamic loader's program cannot be resolved";
        } else {
            pd_gate_path(c, PD_OP_EXEC, b, target, &tv);
            if (tv.deny) {
                *v = tv;
                snprintf(v->subject, sizeof v->subject, "%s", path);
                return;
            }
            no = judge(c, target, b, caller_exe, 0, why, sizeof why);
            if (no) {
                snprintf(why, sizeof why, "the dynamic loader would run %s, not allowed", prog);
                no = why;
            }
        }
    } else if (pd_exec_is_loader(invoked) && !pd_binary_entry_of(c, invoked)) {
        no = "the dynamic loader runs a program named by its arguments";
    } else {
        no = judge(c, invoked, b, caller_exe, 0, why, sizeof why);
    }
    if (no)
        exec_deny(v, c, path, no[0] ? no : NULL);
}

bool pd_gate_exec_fd(const struct pd_ctx *c, int fd, const char *base, const char *const argv[],
                     const char *caller_exe, struct pd_verdict *v)
{
    char link[64], target[PD_PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    struct stat fst, pst;
    bool named = n > 0 && fstat(fd, &fst) == 0;
    if (named) {
        target[n] = '\0';
        /* a memfd ("/memfd:x (deleted)"), an unlinked file, a file whose
         * name now leads elsewhere: no file on disk is what will run */
        named = target[0] == '/' && strncmp(target, "/memfd:", 7) != 0 && stat(target, &pst) == 0 &&
                pst.st_dev == fst.st_dev && pst.st_ino == fst.st_ino;
    }
    if (named) {
        pd_gate_exec(c, target, base, argv, caller_exe, v);
        return true;
    }
    pd_verdict_allow(v);
    v->op = PD_OP_EXEC;
    snprintf(v->subject, sizeof v->subject, "%s", link);
    snprintf(v->resolved, sizeof v->resolved, "%s", n > 0 ? target : link);
    if (c->policy->allow_binaries.n > 0)
        exec_deny(v, c, link,
                  "the descriptor names no file on disk (a memfd or a deleted or replaced "
                  "file): its identity cannot be checked");
    return false;
}

/* ---- will the preload follow? ---- */

#define MAX_PHDRS 512

#if defined(__x86_64__)
#define PD_ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define PD_ELF_MACHINE EM_AARCH64
#elif defined(__riscv)
#define PD_ELF_MACHINE EM_RISCV
#endif

static int open_ro(const char *path)
{
    return open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
}

/* 1 dynamic, 0 static, -1 not ELF / unreadable, -2 foreign class or machine */
static int elf_dynamic(int fd)
{
    Elf64_Ehdr eh;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
        return -1;
    if (eh.e_ident[EI_CLASS] != ELFCLASS64)
        return -2;
#ifdef PD_ELF_MACHINE
    if (eh.e_machine != PD_ELF_MACHINE)
        return -2;
#endif
    if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > MAX_PHDRS)
        return 0;
    for (size_t k = 0; k < eh.e_phnum; k++) {
        Elf64_Phdr ph;
        off_t at = (off_t)(eh.e_phoff + k * sizeof ph);
        if (pread(fd, &ph, sizeof ph, at) != (ssize_t)sizeof ph)
            return -1;
        if (ph.p_type == PT_INTERP)
            return 1;
    }
    return 0;
}

static const char *privileged(const char *path, bool no_new_privs)
{
    if (no_new_privs)
        return NULL; /* exec grants nothing: the loader is not in secure mode */
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    if ((st.st_mode & S_ISUID) || ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP)))
        return PD_REPORT_SETUID;
    if (getxattr(path, "security.capability", NULL, 0) > 0)
        return PD_REPORT_FCAPS;
    return NULL;
}

static const char *unmonitored(const char *path, bool nnp, int depth)
{
    const char *why = privileged(path, nnp);
    if (why)
        return why;
    int fd = open_ro(path);
    if (fd < 0)
        return NULL; /* the exec fails too */
    char head[256];
    ssize_t n = pread(fd, head, sizeof head - 1, 0);
    int kind = elf_dynamic(fd);
    close(fd);
    if (kind == 0)
        return PD_REPORT_STATIC;
    if (kind == -2)
        return PD_REPORT_FOREIGN;
    if (kind == -1 && n > 2 && head[0] == '#' && head[1] == '!' && depth < SCRIPT_DEPTH) {
        head[n] = '\0';
        char *p = head + 2;
        p += strspn(p, " \t");
        size_t len = strcspn(p, " \t\n");
        p[len] = '\0';
        if (p[0] == '/')
            return unmonitored(p, nnp, depth + 1);
    }
    return NULL;
}

const char *pd_exec_unmonitored(const char *path, bool no_new_privs)
{
    return unmonitored(path, no_new_privs, 0);
}
