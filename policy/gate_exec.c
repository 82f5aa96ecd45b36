/* policy/gate_exec.c - the exec gate: patterns on the target, then
 * allow_binaries with the script, helper and companion rules of
 * policy/gate_exec.h. Reads the file system (stat, realpath, the first line
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

#define SHEBANG_MAX     256 /* bytes of a "#!" line that are read */
#define SCRIPT_DEPTH    4   /* interpreters that are themselves scripts */
#define PD_EXEC_DEPTH_E "interpreter nesting too deep"

static const char *const helper_dirs[] = {"/usr/lib",           "/usr/libexec", "/usr/local/lib",
                                          "/usr/local/libexec", "/lib",         NULL};

static const char *const companions[] = {"as", "ld", "ld.bfd", "ld.gold", "ld.lld", NULL};

/* Compiler drivers, also with a target prefix (x86_64-linux-gnu-gcc-12). */
static const char *const drivers[] = {"cc",      "c++",     "gcc*",      "g++*",      "clang*",
                                      "*-cc",    "*-c++",   "*-gcc",     "*-gcc-*",   "*-g++",
                                      "*-g++-*", "*-clang", "*-clang-*", "*-clang++", NULL};

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

static bool is_driver(const char *name)
{
    for (size_t k = 0; drivers[k]; k++)
        if (pd_glob_component(drivers[k], strlen(drivers[k]), name, strlen(name), false))
            return true;
    return false;
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

static void real_or_copy(const char *path, char *out, size_t len)
{
    char tmp[PD_PATH_MAX];
    if (realpath(path, tmp))
        snprintf(out, len, "%s", tmp);
    else
        snprintf(out, len, "%s", path);
}

bool pd_exec_program_allowed(const struct pd_ctx *c, const char *exe)
{
    const struct pd_strv *ab = &c->policy->allow_binaries;
    if (ab->n == 0)
        return true;
    struct pd_verdict v;
    bool missing;
    pd_gate_binary(c, exe, NULL, &v, &missing);
    if (!v.deny && !missing)
        return true;
    char real[PD_PATH_MAX], cand[PD_PATH_MAX], cand_real[PD_PATH_MAX];
    real_or_copy(exe, real, sizeof real);
    if (in_roots(c, real))
        return false;
    for (size_t k = 0; k < ab->n; k++) {
        const char *e = ab->v[k];
        if (strchr(e, '/')) {
            if (pd_path_normalize(c->workspace, c->home, e, cand_real, sizeof cand_real) == 0 &&
                strcmp(cand_real, real) == 0)
                return true;
        } else if (pd_resolve_program(c, e, NULL, cand, sizeof cand) == 0) {
            real_or_copy(cand, cand_real, sizeof cand_real);
            if (strcmp(cand_real, real) == 0)
                return true;
        }
    }
    return false;
}

/* The interpreter of a "#!" script: its path, or for "#!/usr/bin/env NAME"
 * NAME. Returns false when file is not a script. */
static bool read_shebang(const char *file, char *interp, size_t len)
{
    char line[SHEBANG_MAX + 1];
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return false;
    ssize_t n = pread(fd, line, SHEBANG_MAX, 0);
    int saved = errno;
    close(fd);
    errno = saved;
    if (n < 2 || line[0] != '#' || line[1] != '!')
        return false;
    line[n] = '\0';
    char *nl = strchr(line, '\n');
    if (nl)
        *nl = '\0';
    /* words of the line: interpreter, then its argument(s) */
    char *save = NULL;
    char *word = strtok_r(line + 2, " \t", &save);
    if (!word)
        return false;
    if (strcmp(base_name(word), "env") != 0) {
        snprintf(interp, len, "%s", word);
        return true;
    }
    /* env [-S] [-options] [NAME=value ...] NAME */
    while ((word = strtok_r(NULL, " \t", &save))) {
        if (word[0] == '-' || strchr(word, '='))
            continue;
        snprintf(interp, len, "%s", word);
        return true;
    }
    snprintf(interp, len, "%s", "env");
    return true;
}

static void exec_deny(struct pd_verdict *v, const struct pd_ctx *c, const char *path,
                      const char *why)
{
    const struct pd_strv *ab = &c->policy->allow_binaries;
    char list[PD_MSG_MAX / 2] = "";
    size_t n = 0;
    for (size_t k = 0; k < ab->n && n < sizeof list; k++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", ab->v[k]);
    v->deny = true;
    v->reason = PD_REASON_BINARY;
    v->key = "allow_binaries";
    v->pattern = NULL;
    snprintf(v->message, sizeof v->message, "%s (%s%s%s) [allow_binaries: %s]", path,
             PD_REASON_BINARY, why ? "; " : "", why ? why : "", list);
}

/* Rules a, c, d and b for one program; invoked is the absolute invocation
 * path. Returns NULL when allowed, else a short explanation. */
static const char *judge(const struct pd_ctx *c, const char *invoked, const char *caller_exe,
                         int depth, char *why, size_t whylen)
{
    char real[PD_PATH_MAX];
    real_or_copy(invoked, real, sizeof real);
    struct pd_verdict bv;
    bool missing;
    pd_gate_binary(c, invoked, NULL, &bv, &missing);
    if (!bv.deny)
        return NULL; /* (a), or a program that vanished: the exec fails */
    bool writable = in_roots(c, real);
    const char *name = base_name(invoked);
    if (!writable && caller_exe) {
        /* (c) helpers */
        if ((pd_exec_is_helper(invoked) || pd_exec_is_helper(real)) &&
            (pd_exec_is_helper(caller_exe) || pd_exec_program_allowed(c, caller_exe)))
            return NULL;
        /* (d) companions of a compiler */
        char on_path[PD_PATH_MAX], dir[PD_PATH_MAX];
        snprintf(dir, sizeof dir, "%.*s", (int)(name - invoked), invoked);
        bool listed_place = strcmp(dir, "/usr/bin/") == 0 ||
                            (pd_resolve_program(c, name, NULL, on_path, sizeof on_path) == 0 &&
                             strcmp(on_path, invoked) == 0);
        if (in_list(companions, name) && listed_place &&
            (pd_exec_is_helper(caller_exe) ||
             (is_driver(base_name(caller_exe)) && pd_exec_program_allowed(c, caller_exe))))
            return NULL;
    }
    /* (b) scripts: the interpreter decides */
    char interp[PD_PATH_MAX], interp_inv[PD_PATH_MAX];
    if (read_shebang(real, interp, sizeof interp)) {
        if (depth >= SCRIPT_DEPTH)
            return PD_EXEC_DEPTH_E;
        if (pd_resolve_program(c, interp, "/", interp_inv, sizeof interp_inv) != 0)
            return NULL; /* no such interpreter: the exec fails with ENOENT */
        const char *sub = judge(c, interp_inv, caller_exe, depth + 1, why, whylen);
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

void pd_gate_exec(const struct pd_ctx *c, const char *path, const char *base,
                  const char *caller_exe, struct pd_verdict *v)
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
    if (c->policy->allow_binaries.n == 0)
        return;
    why[0] = '\0';
    const char *no = judge(c, invoked, caller_exe, 0, why, sizeof why);
    if (no)
        exec_deny(v, c, path, no[0] ? no : NULL);
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
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG))
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
