/* policy/presets.c - allow_binaries presets ("@python", "@build", ...): the
 * programs a tool starts besides itself, so that a policy can allow pip,
 * man, cmake or gcc without finding out by trial which helpers they run
 * (uname under pip, groff and preconv under man). A preset is expanded when
 * the policy is loaded, in place and in order, so every gate, the compiled
 * policy and the dump see plain names only. The lists are documented in
 * docs/policy.md ("allow_binaries presets"); keep both in step.
 *
 * Entries a machine lacks are harmless: a bare name that PATH does not find
 * names no file and allows nothing. The helpers that live in a driver's own
 * tree (gcc's cc1 and collect2, git-core's programs) need no entry: the
 * exec gate allows them from their driver (policy/gate_exec.c). */
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"
#include "policy/toml/toml_lex.h"

static const char *const coreutils[] = {
    "[",      "b2sum",   "base32",    "base64",    "basename",  "basenc",    "cat",
    "chgrp",  "chmod",   "chown",     "cksum",     "comm",      "cp",        "csplit",
    "cut",    "date",    "dd",        "df",        "dir",       "dircolors", "dirname",
    "du",     "echo",    "env",       "expand",    "expr",      "factor",    "false",
    "fmt",    "fold",    "groups",    "head",      "hostid",    "id",        "install",
    "join",   "link",    "ln",        "logname",   "ls",        "md5sum",    "mkdir",
    "mkfifo", "mknod",   "mktemp",    "mv",        "nice",      "nl",        "nohup",
    "nproc",  "numfmt",  "od",        "paste",     "pathchk",   "pr",        "printenv",
    "printf", "ptx",     "pwd",       "readlink",  "realpath",  "rm",        "rmdir",
    "seq",    "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "shred",
    "shuf",   "sleep",   "sort",      "split",     "stat",      "stdbuf",    "sum",
    "sync",   "tac",     "tail",      "tee",       "test",      "timeout",   "touch",
    "tr",     "true",    "truncate",  "tsort",     "tty",       "uname",     "unexpand",
    "uniq",   "unlink",  "users",     "vdir",      "wc",        "who",       "whoami",
    "yes",    NULL};

/* The interpreter, its tools, and what the standard library and pip start:
 * platform.processor() runs `uname -p`, ctypes.util.find_library runs
 * /sbin/ldconfig by path (on Debian a script around ldconfig.real) and
 * objdump, and
 * subprocess with shell=True runs sh. */
static const char *const python[] = {"python3",
                                     "python",
                                     "pip",
                                     "pip3",
                                     "pydoc3",
                                     "uname",
                                     "ldconfig",
                                     "/sbin/ldconfig",
                                     "/sbin/ldconfig.real",
                                     "objdump",
                                     "sh",
                                     NULL};

/* make and cmake run their recipes and probes through sh; cmake asks uname
 * for the system; configure scripts use the text tools. Compilers'
 * companions (as, ld) and their tree (cc1, collect2) are allowed by the
 * exec gate from the driver. */
static const char *const build[] = {
    "make",     "gmake",   "cmake",   "ctest",   "cpack",   "ninja",   "ninja-build", "cc",
    "c++",      "cpp",     "gcc",     "g++",     "clang",   "clang++", "ar",          "ranlib",
    "nm",       "objdump", "objcopy", "strip",   "readelf", "as",      "ld",          "pkg-config",
    "pkgconf",  "uname",   "sh",      "bash",    "sed",     "grep",    "awk",         "gawk",
    "mawk",     "m4",      "tr",      "cat",     "rm",      "mkdir",   "cp",          "mv",
    "ln",       "touch",   "chmod",   "install", "echo",    "test",    "[",           "true",
    "false",    "expr",    "sort",    "uniq",    "wc",      "head",    "tail",        "dirname",
    "basename", "env",     "printf",  "cmp",     "diff",    "find",    "xargs",       NULL};

/* git runs its pager, its editor hooks' shell, ssh for remotes and gpg for
 * signatures; git-core's own programs are allowed from git. */
static const char *const git[] = {"git", "sh",    "less",    "pager", "ssh",
                                  "gpg", "gpgsm", "git-lfs", NULL};

/* npm runs package scripts through sh; node and npm ask uname. (node-gyp
 * builds also need @python and @build.) */
static const char *const node[] = {"node", "nodejs", "npm", "npx", "corepack", "sh", "uname", NULL};

/* man-db's man formats through groff's pipeline and shows through a pager. */
static const char *const man[] = {"man",  "groff", "nroff",  "troff", "grotty", "preconv", "tbl",
                                  "eqn",  "neqn",  "pic",    "refer", "soelim", "zsoelim", "col",
                                  "less", "more",  "pager",  "gzip",  "zcat",   "bzip2",   "xz",
                                  "cat",  "sh",    "locale", NULL};

static const struct {
    const char *name;
    const char *const *programs;
} presets[] = {{"@build", build}, {"@coreutils", coreutils}, {"@git", git},
               {"@man", man},     {"@node", node},           {"@python", python}};

#define NPRESETS (sizeof presets / sizeof presets[0])

const char *const *pd_preset_programs(const char *name)
{
    for (size_t k = 0; k < NPRESETS; k++)
        if (strcmp(presets[k].name, name) == 0)
            return presets[k].programs;
    return NULL;
}

void pd_preset_names(char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t k = 0; k < NPRESETS && n < len; k++)
        n += (size_t)snprintf(out + n, len - n, "%s%s", k ? ", " : "", presets[k].name);
}

static bool listed(const struct pd_strv *s, const char *name)
{
    for (size_t k = 0; k < s->n; k++)
        if (strcmp(s->v[k], name) == 0)
            return true;
    return false;
}

int pd_presets_expand(struct pd_strv *list, char *msg, size_t msglen)
{
    struct pd_strv out = {0};
    for (size_t k = 0; k < list->n; k++) {
        const char *x = list->v[k];
        if (x[0] != '@') {
            if (!listed(&out, x) && pd_strv_push(&out, x) != 0)
                goto nomem;
            continue;
        }
        const char *const *programs = pd_preset_programs(x);
        if (!programs) {
            char known[256];
            pd_preset_names(known, sizeof known);
            snprintf(msg, msglen, "unknown preset '%s' (known presets: %s)", x, known);
            pd_strv_free(&out);
            return -1;
        }
        for (size_t j = 0; programs[j]; j++)
            if (!listed(&out, programs[j]) && pd_strv_push(&out, programs[j]) != 0)
                goto nomem;
    }
    pd_strv_free(list);
    *list = out;
    return 0;
nomem:
    snprintf(msg, msglen, "out of memory");
    pd_strv_free(&out);
    return -1;
}
