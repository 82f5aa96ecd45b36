/* tests/fuzz/fuzz_common.h - helpers shared by the libFuzzer targets of
 * tests/fuzz (not the fuzz_net_* ones, which stand alone): the invariant
 * check, a private temp tree made once per process (removed at exit), and
 * the checks every verdict must pass. Everything is static so that a target
 * may use any subset. */
#ifndef PALDRON_FUZZ_COMMON_H
#define PALDRON_FUZZ_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* An invariant broken, said in words (after the details are printed). */
#define FAIL(what)                                                                                 \
    do {                                                                                           \
        fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, what);                \
        abort();                                                                                   \
    } while (0)

/* The fixed setup could not be made: not a finding, stop at once. */
__attribute__((noreturn, unused)) static void fz_setup_fail(const char *what)
{
    fprintf(stderr, "fuzz setup: %s: %s\n", what, strerror(errno));
    _exit(2);
}

/* A copy of the input, NUL-terminated (it may hold NUL bytes: C-string
 * consumers see it up to the first). malloc'd. */
__attribute__((unused)) static char *fz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* ---- the temp tree ------------------------------------------------------ */

static char fz_root[PD_PATH_MAX]; /* real path of /tmp/pd-fuzz-<tag>-XXXXXX */

static int fz_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void fz_rmtree(void)
{
    if (fz_root[0] && strstr(fz_root, "/pd-fuzz-"))
        nftw(fz_root, fz_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Make the tree's root once; removed when the process exits normally. */
__attribute__((unused)) static const char *fz_tree(const char *tag)
{
    char tmpl[128];
    const char *tmp = "/tmp";
    snprintf(tmpl, sizeof tmpl, "%s/pd-fuzz-%s-XXXXXX", tmp, tag);
    if (!mkdtemp(tmpl))
        fz_setup_fail("mkdtemp");
    if (!realpath(tmpl, fz_root))
        fz_setup_fail("realpath");
    atexit(fz_rmtree);
    return fz_root;
}

/* root/rel as a directory (parents made). */
__attribute__((unused)) static void fz_mkdir(const char *rel)
{
    char path[PD_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", fz_root, rel);
    for (char *s = path + strlen(fz_root) + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(path, 0755) != 0 && errno != EEXIST)
                fz_setup_fail(path);
            *s = '/';
        }
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        fz_setup_fail(path);
}

/* root/rel as a file with content (its folder must exist). */
__attribute__((unused)) static void fz_put(const char *rel, const char *content)
{
    char path[PD_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", fz_root, rel);
    FILE *f = fopen(path, "w");
    if (!f)
        fz_setup_fail(path);
    fputs(content, f);
    if (fclose(f) != 0)
        fz_setup_fail(path);
}

/* root/rel -> target ("@" at the start of target stands for the root). */
__attribute__((unused)) static void fz_link(const char *rel, const char *target)
{
    char path[PD_PATH_MAX], to[PD_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", fz_root, rel);
    if (target[0] == '@')
        snprintf(to, sizeof to, "%s%s", fz_root, target + 1);
    else
        snprintf(to, sizeof to, "%s", target);
    if (symlink(to, path) != 0)
        fz_setup_fail(path);
}

/* A workspace as the tests make them: src/, a secret, a git directory, a
 * policy file, a link out of the workspace; with home/ beside it. Returns
 * nothing: the workspace is <root>/ws, home <root>/home. */
__attribute__((unused)) static void fz_workspace(void)
{
    fz_mkdir("ws/src/lib");
    fz_mkdir("ws/.git/hooks");
    fz_mkdir("ws/build");
    fz_mkdir("home/.ssh");
    fz_mkdir("outside");
    fz_put("ws/src/main.c", "int main(void) { return 0; }\n");
    fz_put("ws/src/lib/util.py", "print('hi')\n");
    fz_put("ws/.env", "API_KEY=zq8Kp2mXv7Lr4Tn9Wc3Yb6Hd\n");
    fz_put("ws/.git/config", "[core]\n\tbare = false\n");
    fz_put("ws/.paldron.toml", "allow_network = false\n");
    fz_put("ws/cert.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    fz_put("home/.ssh/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\nx\n");
    fz_put("outside/notes.txt", "notes\n");
    fz_put("ws/.gitignore", "build/\n*.log\n/secrets/\n");
    fz_mkdir("ws/secrets");
    fz_put("ws/secrets/token.key", "k\n");
    fz_put("ws/src/lib/.env.local", "TOKEN=x\n");
    fz_link("ws/src/envlink", "../.env");
    fz_link("ws/out", "@/outside");
}

/* ---- contexts ----------------------------------------------------------- */

/* A policy from toml bound to <root>/ws (fz_workspace) with home
 * <root>/home; cwd ("" or a folder of the workspace, relative) as the
 * hook sets it. Lives for the whole process. */
struct fz_ctx {
    struct pd_policy pol;
    struct pd_ctx ctx;
};

__attribute__((unused)) static void fz_ctx_make(struct fz_ctx *f, const char *toml, const char *cwd)
{
    struct pd_error err;
    char ws[PD_PATH_MAX], home[PD_PATH_MAX];
    snprintf(ws, sizeof ws, "%s/ws", fz_root);
    snprintf(home, sizeof home, "%s/home", fz_root);
    if (pd_policy_load_string(&f->pol, toml, "fixed.toml", &err) != 0) {
        fprintf(stderr, "fuzz setup: policy: %s (line %d)\n", err.msg, err.line);
        _exit(2);
    }
    if (pd_ctx_init(&f->ctx, &f->pol, ws, home, &err) != 0) {
        fprintf(stderr, "fuzz setup: context: %s\n", err.msg);
        _exit(2);
    }
    pd_ctx_set_path_env(&f->ctx, "/usr/local/bin:/usr/bin:/bin");
    if (cwd && cwd[0])
        snprintf(f->ctx.cwd, sizeof f->ctx.cwd, "%s/%s", f->ctx.workspace, cwd);
}

/* The fixed policies the gate targets judge with: the defaults; a strict
 * one (binaries, globs, no network, protected and writable paths); one
 * with allow_hosts. */
static const char *const fz_policies[] = {
    "",
    "allow_binaries = [\"git\", \"python3\", \"cat\", \"ls\", \"sh\", \"grep\", \"@coreutils\"]\n"
    "allow_network = false\n"
    "allow_paths = [\"src/\", \"build/\"]\n"
    "deny_globs = [\"*.key\", \"secrets/\", \"/etc/shadow\"]\n"
    "protected_paths = [\"Makefile\"]\n"
    "read_paths = [\"~/datasets/\"]\n",
    "allow_network = false\n"
    "allow_hosts = [\"example.com\", \"*.github.com:443\", \"127.0.0.1:8080\"]\n"
    "deny_hosts = [\"evil.example.com\"]\n"
    "allow_secrets = [\".env\"]\n",
};
#define FZ_NPOLICIES (sizeof fz_policies / sizeof fz_policies[0])

/* ---- verdicts ----------------------------------------------------------- */

static bool fz_terminated(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

/* What every verdict must be: a deny has a reason, a key and a message; an
 * allow has no reason; every text is terminated in its buffer. */
__attribute__((unused)) static void fz_check_verdict(const struct pd_verdict *v)
{
    CHECK(fz_terminated(v->subject, sizeof v->subject));
    CHECK(fz_terminated(v->resolved, sizeof v->resolved));
    CHECK(fz_terminated(v->message, sizeof v->message));
    CHECK((int)v->op >= PD_OP_READ && (int)v->op <= PD_OP_NAME);
    if (v->deny) {
        CHECK(v->reason != NULL && v->reason[0] != '\0');
        CHECK(v->key != NULL && v->key[0] != '\0');
        CHECK(v->message[0] != '\0');
    } else {
        CHECK(v->reason == NULL);
    }
    if (v->resolved[0])
        CHECK(v->resolved[0] == '/');
}

/* Is what a verdict judged (its resolved path) a place that stays the same
 * between two calls? Not the folders other processes (and this one) change
 * under our feet: /proc, /tmp outside the fixed tree, /dev, /run, /sys. */
__attribute__((unused)) static bool fz_stable_place(const struct pd_verdict *v)
{
    static const char *const moving[] = {"/proc", "/tmp", "/var/tmp", "/dev", "/run", "/sys", NULL};
    if (!v->resolved[0] || (fz_root[0] && pd_path_under(v->resolved, fz_root)))
        return true;
    for (size_t k = 0; moving[k]; k++)
        if (pd_path_under(v->resolved, moving[k]))
            return false;
    return true;
}

/* Would the agent tool with this input walk a folder outside the fixed
 * tree (Grep and grep_files search every file below their path: a walk of
 * "/" takes seconds under ASan, and what it finds changes as other
 * processes write)? base: where relative paths start (the context's cwd,
 * else its workspace). */
__attribute__((unused)) static bool fz_walks_outside(const struct pd_ctx *c, const char *tool,
                                                     const char *json)
{
    if (strcmp(tool, "Grep") != 0 && strcmp(tool, "grep_files") != 0)
        return false;
    cJSON *in = cJSON_Parse(json);
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(in, "path");
    const char *p = cJSON_IsString(path) && path->valuestring[0] ? path->valuestring : ".";
    char out[PD_PATH_MAX];
    bool outside =
        pd_path_normalize(c->cwd[0] ? c->cwd : c->workspace, c->home, p, out, sizeof out) != 0 ||
        !pd_path_under(out, fz_root);
    cJSON_Delete(in);
    return outside;
}

/* Two verdicts of the same call are the same. */
__attribute__((unused)) static void fz_same_verdict(const struct pd_verdict *a,
                                                    const struct pd_verdict *b)
{
    CHECK(a->deny == b->deny);
    CHECK((a->reason == NULL) == (b->reason == NULL));
    if (a->reason)
        CHECK(strcmp(a->reason, b->reason) == 0);
    CHECK(strcmp(a->message, b->message) == 0);
    CHECK(strcmp(a->resolved, b->resolved) == 0);
}

#endif
