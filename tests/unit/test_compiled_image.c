/* tests/unit/test_compiled_image.c - the compiled policy as a binary image
 * (policy/compiled_image.h): pd_image_build / pd_image_check /
 * pd_image_materialize keep every policy key, the context and the kernel
 * grants; pd_image_write makes a new file only; pd_image_check refuses
 * every broken image with its own message; the pattern index, the resolved
 * allow_binaries and the host view say what the header promises; the
 * accessors, pd_image_why_text, pd_image_nptrs, pd_image_hash and
 * pd_image_schema. */
#include "test_policy_fixture.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "policy/compiled_image.h"
#include "policy/gate_exec.h"
#include "policy/kernel_grants.h"
#include "policy/report.h"

/* The bytes the checksum covers (policy/compiled_image.c): every byte after
 * the checksum field. */
#define HASHED_FROM (offsetof(struct pd_image, checksum) + sizeof(uint64_t))

#define E_HEADER    "not a compiled policy (bad header)"
#define E_TRUNCATED "truncated or incomplete compiled policy"
#define E_VERSION   "compiled policy of another version"
#define E_CHECKSUM  "corrupt compiled policy (checksum)"
#define E_OFFSETS   "corrupt compiled policy (offsets)"

static char ws[PD_PATH_MAX], home[PD_PATH_MAX], out[PD_PATH_MAX];
static struct pd_policy pol;
static struct pd_ctx ctx;
static bool loaded;

static void setup(void)
{
    tp_mkdtemp(ws, sizeof ws, "img-ws");
    tp_mkdtemp(home, sizeof home, "img-home");
    tp_mkdtemp(out, sizeof out, "img-out");
}

static void teardown(void)
{
    if (loaded) {
        pd_ctx_free(&ctx);
        pd_policy_free(&pol);
        loaded = false;
    }
    tp_rmtree(ws);
    tp_rmtree(home);
    tp_rmtree(out);
}

/* pol and ctx from toml, the workspace ws, home_dir (NULL: none). */
static void load(const char *toml, const char *home_dir)
{
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(&pol, toml, "t.toml", &err), 0, "%s", err.msg);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, home_dir, &err), 0, "%s", err.msg);
    loaded = true;
}

/* A built image, checked. */
struct image {
    void *mem;
    size_t len;
    const struct pd_image *im;
};

static struct image build(const struct pd_ctx *c, const struct pd_kernel_grants *g,
                          const struct pd_image_host *host)
{
    struct image m = {NULL, 0, NULL};
    cr_assert_eq(pd_image_build(c, g, host, &m.mem, &m.len), 0, "pd_image_build: %s",
                 strerror(errno));
    cr_assert_not_null(m.mem);
    cr_assert_geq(m.len, sizeof(struct pd_image));
    cr_assert_eq((uintptr_t)m.mem % 8, 0, "the image must be 8-byte aligned");
    const char *why = pd_image_check(m.mem, m.len);
    cr_assert_null(why, "a freshly built image is refused: %s", why);
    m.im = m.mem;
    cr_assert_eq(m.im->size, m.len);
    return m;
}

static char guard;

/* Materialize m into p, c, g (g may be NULL); the pointer array, with one
 * guard entry after the pd_image_nptrs that pd_image_materialize may use. */
static char **materialize(const struct image *m, struct pd_policy *p, struct pd_ctx *c,
                          struct pd_kernel_grants *g)
{
    size_t n = pd_image_nptrs(m->im);
    char **ptrs = calloc(n + 1, sizeof *ptrs);
    cr_assert_not_null(ptrs);
    ptrs[n] = &guard;
    pd_image_materialize(m->im, ptrs, p, c, g);
    cr_assert_eq(ptrs[n], &guard, "pd_image_materialize wrote past its %zu pointers", n);
    return ptrs;
}

/* A copy of m's bytes with extra zero bytes after them (malloc: aligned). */
static char *copy_of(const struct image *m, size_t extra)
{
    char *b = calloc(1, m->len + extra);
    cr_assert_not_null(b);
    memcpy(b, m->mem, m->len);
    return b;
}

/* Recompute the checksum of len bytes at b, as the writer does. */
static void rehash(char *b, size_t len)
{
    uint64_t sum = pd_image_hash(b + HASHED_FROM, len - HASHED_FROM);
    memcpy(b + offsetof(struct pd_image, checksum), &sum, sizeof sum);
}

static bool in_image(const struct image *m, const char *s)
{
    return s >= (const char *)m->mem && s < (const char *)m->mem + m->len;
}

static bool map_has(const uint32_t *map, unsigned char c)
{
    return (map[c >> 5] >> (c & 31)) & 1u;
}

static void push(struct pd_strv *l, const char *s)
{
    l->v = realloc(l->v, (l->n + 1) * sizeof *l->v);
    cr_assert_not_null(l->v);
    l->v[l->n] = strdup(s);
    cr_assert_not_null(l->v[l->n]);
    l->n++;
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
    FILE *in = fopen(from, "rb");
    cr_assert_not_null(in, "%s: %s", from, strerror(errno));
    FILE *o = fopen(to, "wb");
    cr_assert_not_null(o, "%s: %s", to, strerror(errno));
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        cr_assert_eq(fwrite(buf, 1, n, o), n);
    fclose(in);
    cr_assert_eq(fclose(o), 0);
    cr_assert_eq(chmod(to, mode), 0, "chmod %s: %s", to, strerror(errno));
}

/* The whole file at path, malloc'd (aligned), *len bytes. */
static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    cr_assert_not_null(b);
    size_t got;
    while ((got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            b = realloc(b, cap);
            cr_assert_not_null(b);
        }
    }
    fclose(f);
    *len = n;
    return b;
}

/* ---- the policy keys ---------------------------------------------------- */

static void expect_same_strv(const char *key, const struct pd_strv *a, const struct pd_strv *b)
{
    cr_expect_eq(b->n, a->n, "%s: %zu entries, %zu after the round trip", key, a->n, b->n);
    for (size_t k = 0; k < a->n && k < b->n; k++)
        cr_expect_str_eq(b->v[k], a->v[k], "%s[%zu]", key, k);
}

/* Every key of policy/policy_keys.def, the two _set flags and the dump. */
static void expect_same_policy(const struct pd_policy *a, const struct pd_policy *b)
{
#define PD_KEY_STRV(name, doc) expect_same_strv(#name, &a->name, &b->name);
#define PD_KEY_BOOL(name, def, doc)                                                                \
    cr_expect_eq(b->name, a->name, "%s: %d, %d after the round trip", #name, a->name, b->name);
#define PD_KEY_INT(name, def, lo, hi, doc)                                                         \
    cr_expect_eq(b->name, a->name, "%s: %lld, %lld after the round trip", #name, a->name, b->name);
#define PD_KEY_FLOAT(name, def, doc)                                                               \
    cr_expect(b->name == a->name, "%s: %.17g, %.17g after the round trip", #name, a->name, b->name);
#define PD_KEY_ENUM(name, ctype, def, parse, doc)                                                  \
    cr_expect_eq((int)b->name, (int)a->name, "%s: %d, %d after the round trip", #name,             \
                 (int)a->name, (int)b->name);
#include "policy/policy_keys.def"
    cr_expect_eq(b->protected_paths_set, a->protected_paths_set);
    cr_expect_eq(b->timeout_sec_set, a->timeout_sec_set);
    char *da = pd_policy_dump(a), *db = pd_policy_dump(b);
    cr_assert_not_null(da);
    cr_assert_not_null(db);
    cr_expect_str_eq(db, da);
    free(da);
    free(db);
}

/* Every list set, every bool true, every number away from its default. */
static const char toml_on[] = "allow_paths = [\"src/\", \"/opt/build\"]\n"
                              "read_paths = [\"/usr/share\", \"/etc\"]\n"
                              "deny_globs = [\"*.log\", \"we\\\\ird\\nname\"]\n"
                              "allow_network = true\n"
                              "allow_binaries = [\"sh\", \"no-such-program-pd\"]\n"
                              "require_os_isolation = true\n"
                              "namespaces = true\n"
                              "require_namespaces = true\n"
                              "deny_hosts = [\"bad.example.com\", \"[::1]:8080\"]\n"
                              "allow_unix_sockets = [\"/run/pd-test.sock\"]\n"
                              "timeout_sec = 7\n"
                              "max_processes = 99\n"
                              "max_memory_mb = \"unlimited\"\n"
                              "max_open_files = 77\n"
                              "cpu_time_sec = 66\n"
                              "max_file_size_mb = 55\n"
                              "jev_verdict = true\n"
                              "jev_threshold = 0.25\n"
                              "jev_on_error = \"allow\"\n"
                              "protected_paths = [\"Makefile\", \"/opt/cfg/**\"]\n"
                              "unprotect_paths = [\".vscode/**\"]\n"
                              "allow_secrets = [\".npmrc\"]\n"
                              "output_scan = true\n"
                              "output_patterns = [\"TOKEN: tok_[a-z]+\"]\n"
                              "output_scan_ignore = [\"aws-access-key\"]\n"
                              "keep_background = true\n"
                              "strict = true\n"
                              "env_pass = [\"FOO*\"]\n"
                              "hook_route = true\n"
                              "env_drop = [\"BAR\"]\n";

/* Every list empty, every bool false, other numbers. */
static const char toml_off[] = "allow_network = false\n"
                               "require_os_isolation = false\n"
                               "namespaces = false\n"
                               "require_namespaces = false\n"
                               "timeout_sec = 604800\n"
                               "max_processes = 1\n"
                               "max_memory_mb = 16777216\n"
                               "max_open_files = 1048576\n"
                               "cpu_time_sec = 1\n"
                               "max_file_size_mb = 2\n"
                               "jev_verdict = false\n"
                               "jev_threshold = 1.0\n"
                               "jev_on_error = \"deny\"\n"
                               "output_scan = false\n"
                               "keep_background = false\n"
                               "strict = false\n"
                               "hook_route = false\n";

Test(compiled_image, round_trip_keeps_every_policy_key, .init = setup, .fini = teardown)
{
    load(toml_on, home);
    /* the loader refuses allow_hosts with allow_network = true (and
     * allow_hosts_without_namespace without allow_hosts): set by hand, the
     * image carries what it is given */
    pol.allow_hosts.v = calloc(2, sizeof *pol.allow_hosts.v);
    cr_assert_not_null(pol.allow_hosts.v);
    pol.allow_hosts.v[0] = strdup("pypi.org");
    pol.allow_hosts.v[1] = strdup("*.example.com:8443");
    cr_assert(pol.allow_hosts.v[0] && pol.allow_hosts.v[1]);
    pol.allow_hosts.n = 2;
    pol.allow_hosts_without_namespace = true;
    /* the fixture sets every key: a key the image drops cannot pass */
#define PD_KEY_STRV(name, doc)             cr_assert_gt(pol.name.n, 0, "fixture: %s is empty", #name);
#define PD_KEY_BOOL(name, def, doc)        cr_assert(pol.name, "fixture: %s is false", #name);
#define PD_KEY_INT(name, def, lo, hi, doc) cr_assert_neq(pol.name, 0, "fixture: %s", #name);
#define PD_KEY_FLOAT(name, def, doc)       cr_assert(pol.name != 0.0, "fixture: %s", #name);
#define PD_KEY_ENUM(name, ctype, def, parse, doc)
#include "policy/policy_keys.def"
    cr_assert(pol.protected_paths_set);
    cr_assert(pol.timeout_sec_set);
    struct image m = build(&ctx, NULL, NULL);
    struct pd_policy p2;
    struct pd_ctx c2;
    char **ptrs = materialize(&m, &p2, &c2, NULL);
    expect_same_policy(&pol, &p2);
    /* one of each kind, spelled out */
    cr_expect_eq(p2.deny_globs.n, 2);
    cr_expect_str_eq(p2.deny_globs.v[1], "we\\ird\nname");
    cr_expect(p2.allow_network);
    cr_expect(p2.require_namespaces);
    cr_expect_eq(p2.timeout_sec, 7);
    cr_expect_eq(p2.max_memory_mb, PD_MEMORY_UNLIMITED);
    cr_expect(p2.jev_threshold > 0.2499 && p2.jev_threshold < 0.2501);
    cr_expect_eq(p2.jev_on_error, PD_ON_ERROR_ALLOW);
    cr_expect_str_eq(p2.allow_hosts.v[1], "*.example.com:8443");
    cr_expect_str_eq(p2.deny_hosts.v[1], "[::1]:8080");
    cr_expect(p2.allow_hosts_without_namespace);
    cr_expect(p2.protected_paths_set);
    cr_expect(p2.timeout_sec_set);
    cr_expect_eq(c2.policy, &p2);
    free(ptrs);
    free(m.mem);
}

Test(compiled_image, round_trip_keeps_the_opposite_values, .init = setup, .fini = teardown)
{
    load(toml_off, NULL);
#define PD_KEY_STRV(name, doc)             cr_assert_eq(pol.name.n, 0, "fixture: %s is set", #name);
#define PD_KEY_BOOL(name, def, doc)        cr_assert_not(pol.name, "fixture: %s is true", #name);
#define PD_KEY_INT(name, def, lo, hi, doc) cr_assert_neq(pol.name, 0, "fixture: %s", #name);
#define PD_KEY_FLOAT(name, def, doc)       cr_assert(pol.name != 0.0, "fixture: %s", #name);
#define PD_KEY_ENUM(name, ctype, def, parse, doc)
#include "policy/policy_keys.def"
    cr_assert_not(pol.protected_paths_set);
    struct image m = build(&ctx, NULL, NULL);
    struct pd_policy p2;
    struct pd_ctx c2;
    char **ptrs = materialize(&m, &p2, &c2, NULL);
    expect_same_policy(&pol, &p2);
    cr_expect_eq(p2.jev_on_error, PD_ON_ERROR_DENY);
    cr_expect_eq(p2.timeout_sec, 604800);
    cr_expect_eq(p2.max_file_size_mb, 2);
    cr_expect(p2.jev_threshold == 1.0);
    cr_expect_not(p2.protected_paths_set);
    free(ptrs);
    free(m.mem);
}

Test(compiled_image, the_defaults_survive, .init = setup, .fini = teardown)
{
    pd_policy_defaults(&pol);
    struct pd_error err;
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, home, &err), 0, "%s", err.msg);
    loaded = true;
    struct image m = build(&ctx, NULL, NULL);
    struct pd_policy p2;
    struct pd_ctx c2;
    char **ptrs = materialize(&m, &p2, &c2, NULL);
    expect_same_policy(&pol, &p2);
    free(ptrs);
    free(m.mem);
}

Test(compiled_image, the_policy_file_is_kept_or_absent, .init = setup, .fini = teardown)
{
    load("", NULL);
    cr_assert_null(pol.file);
    struct image m = build(&ctx, NULL, NULL);
    cr_expect_eq(m.im->file, PD_IMAGE_NONE);
    struct pd_policy p2;
    struct pd_ctx c2;
    char **ptrs = materialize(&m, &p2, &c2, NULL);
    cr_expect_null(p2.file);
    free(ptrs);
    free(m.mem);

    pol.file = strdup("/etc/paldron/a policy.toml"); /* freed by pd_policy_free */
    m = build(&ctx, NULL, NULL);
    cr_expect_neq(m.im->file, PD_IMAGE_NONE);
    cr_expect_str_eq(pd_image_str(m.im, m.im->file), "/etc/paldron/a policy.toml");
    ptrs = materialize(&m, &p2, &c2, NULL);
    cr_assert_not_null(p2.file);
    cr_expect_str_eq(p2.file, "/etc/paldron/a policy.toml");
    free(ptrs);
    free(m.mem);
}

/* ---- the context -------------------------------------------------------- */

static void expect_same_list(const char *what, char *const *a, size_t na, char *const *b, size_t nb)
{
    cr_expect_eq(nb, na, "%s: %zu entries, %zu after the round trip", what, na, nb);
    for (size_t k = 0; k < na && k < nb; k++)
        cr_expect_str_eq(b[k], a[k], "%s[%zu]", what, k);
}

Test(compiled_image, round_trip_keeps_the_context, .init = setup, .fini = teardown)
{
    load("allow_paths = [\"src\", \"/opt/build\"]\nread_paths = [\"/usr/share\", \"/srv\"]\n",
         home);
    cr_assert_eq(pd_ctx_add_root(&ctx, "/dev/shm"), 0);
    cr_assert_eq(pd_ctx_add_root(&ctx, home), 0);
    cr_assert_eq(ctx.npolicy_roots, 2);
    cr_assert_eq(ctx.nroots, 4);
    pd_ctx_set_path_env(&ctx, "/usr/bin:/bin:/opt/a b/bin");
    int w = snprintf(ctx.go_tmp, sizeof ctx.go_tmp, "%s/go-build", home);
    cr_assert(w > 0 && (size_t)w < sizeof ctx.go_tmp);
    snprintf(ctx.temp_home, sizeof ctx.temp_home, "%s", home);
    ctx.private_net = true;
    ctx.git_dirs_known = true;
    cr_assert_eq(pd_ctx_add_git_dir(&ctx, "/ws/a b/.git"), 0);
    cr_assert_eq(pd_ctx_add_git_dir(&ctx, "/ws/.git/modules/sub"), 0);

    struct image m = build(&ctx, NULL, NULL);
    cr_expect_eq(m.im->npolicy_roots, 2);
    cr_expect(m.im->flags & PD_IMAGE_PRIVATE_NET);
    cr_expect(m.im->flags & PD_IMAGE_GIT_DIRS_KNOWN);
    cr_expect_str_eq(pd_image_str(m.im, m.im->workspace), ctx.workspace);
    cr_expect_str_eq(pd_image_str(m.im, m.im->home), ctx.home);
    cr_expect_str_eq(pd_image_str(m.im, m.im->path_env), "/usr/bin:/bin:/opt/a b/bin");
    cr_expect_str_eq(pd_image_str(m.im, m.im->go_tmp), ctx.go_tmp);
    cr_expect_str_eq(pd_image_str(m.im, m.im->temp_home), home);

    struct pd_policy p2;
    struct pd_ctx c2;
    char **ptrs = materialize(&m, &p2, &c2, NULL);
    cr_expect_eq(c2.policy, &p2);
    cr_expect_str_eq(c2.workspace, ctx.workspace);
    cr_expect_str_eq(c2.home, home);
    cr_expect_str_eq(c2.path_env, "/usr/bin:/bin:/opt/a b/bin");
    cr_expect_str_eq(c2.go_tmp, ctx.go_tmp);
    cr_expect_str_eq(c2.temp_home, home);
    expect_same_list("roots", ctx.roots, ctx.nroots, c2.roots, c2.nroots);
    cr_expect_eq(c2.npolicy_roots, 2);
    expect_same_list("read_roots", ctx.read_roots, ctx.nread_roots, c2.read_roots, c2.nread_roots);
    cr_expect_eq(c2.nread_roots, 2);
    expect_same_list("git_dirs", ctx.git_dirs, ctx.ngit_dirs, c2.git_dirs, c2.ngit_dirs);
    cr_expect_eq(c2.ngit_dirs, 2);
    cr_expect(c2.private_net);
    cr_expect(c2.git_dirs_known);
    /* the strings are the image's own, not copies */
    cr_expect(in_image(&m, c2.roots[0]));
    cr_expect(in_image(&m, c2.git_dirs[1]));
    cr_expect(in_image(&m, p2.read_paths.v[0]));
    /* the gate decides alike on both */
    static const char *const paths[] = {"src/a.c",      "top.txt",    ".env",
                                        "/opt/build/x", "/dev/shm/s", "/ws/a b/.git/config"};
    for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++)
        for (int op = PD_OP_READ; op <= PD_OP_NAME; op++) {
            struct pd_verdict a, b;
            pd_gate_path(&ctx, (enum pd_op)op, NULL, paths[k], &a);
            pd_gate_path(&c2, (enum pd_op)op, NULL, paths[k], &b);
            cr_expect_eq(a.deny, b.deny, "%s %s differs after the round trip", paths[k],
                         pd_op_name((enum pd_op)op));
        }
    free(ptrs);
    free(m.mem);

    /* and the other way: flags off, strings and lists empty */
    ctx.private_net = false;
    ctx.git_dirs_known = false;
    ctx.go_tmp[0] = '\0';
    ctx.temp_home[0] = '\0';
    m = build(&ctx, NULL, NULL);
    cr_expect_eq(m.im->flags & (PD_IMAGE_PRIVATE_NET | PD_IMAGE_GIT_DIRS_KNOWN), 0);
    ptrs = materialize(&m, &p2, &c2, NULL);
    cr_expect_not(c2.private_net);
    cr_expect_not(c2.git_dirs_known);
    cr_expect_str_empty(c2.go_tmp);
    cr_expect_str_empty(c2.temp_home);
    free(ptrs);
    free(m.mem);

    pd_ctx_free(&ctx);
    struct pd_error err;
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, NULL, &err), 0, "%s", err.msg);
    m = build(&ctx, NULL, NULL);
    ptrs = materialize(&m, &p2, &c2, NULL);
    cr_expect_str_empty(c2.home);
    cr_expect_eq(c2.ngit_dirs, 0);
    cr_expect_eq(c2.nroots, 2);
    free(ptrs);
    free(m.mem);
}

/* ---- the kernel grants --------------------------------------------------- */

static struct pd_kernel_grants sample_grants(bool no_exec_writes)
{
    struct pd_kernel_grants g;
    memset(&g, 0, sizeof g);
    g.on = true;
    g.no_exec_writes = no_exec_writes;
    push(&g.exec, "/usr");
    push(&g.exec, "/ws/bin/tool");
    push(&g.read, "/ws");
    push(&g.read, "/proc");
    push(&g.read, "/usr/share/x\ny");
    push(&g.write, "/ws/src");
    push(&g.dev, "/dev/null");
    push(&g.dev, "/dev/pts");
    push(&g.readonly, "/ws/.git/config");
    return g;
}

static void expect_same_grants(const struct pd_kernel_grants *a, const struct pd_kernel_grants *b)
{
    cr_expect_eq(b->on, a->on);
    cr_expect_eq(b->no_exec_writes, a->no_exec_writes);
    expect_same_list("exec", a->exec.v, a->exec.n, b->exec.v, b->exec.n);
    expect_same_list("read", a->read.v, a->read.n, b->read.v, b->read.n);
    expect_same_list("write", a->write.v, a->write.n, b->write.v, b->write.n);
    expect_same_list("dev", a->dev.v, a->dev.n, b->dev.v, b->dev.n);
    expect_same_list("readonly", a->readonly.v, a->readonly.n, b->readonly.v, b->readonly.n);
}

Test(compiled_image, round_trip_keeps_the_kernel_grants, .init = setup, .fini = teardown)
{
    load("", NULL);
    for (int nx = 0; nx < 2; nx++) {
        struct pd_kernel_grants g = sample_grants(nx == 1), back;
        struct image m = build(&ctx, &g, NULL);
        cr_expect(m.im->flags & PD_IMAGE_KERNEL);
        cr_expect_eq(!!(m.im->flags & PD_IMAGE_NO_EXEC_WRITES), nx == 1);
        struct pd_policy p2;
        struct pd_ctx c2;
        memset(&back, 0xa5, sizeof back);
        char **ptrs = materialize(&m, &p2, &c2, &back);
        expect_same_grants(&g, &back);
        cr_expect(back.on);
        cr_expect_eq(back.no_exec_writes, nx == 1);
        cr_expect_eq(back.read.n, 3);
        cr_expect_str_eq(back.read.v[2], "/usr/share/x\ny");
        cr_expect(in_image(&m, back.exec.v[0]));
        /* the grants decide alike */
        cr_expect_eq(pd_kernel_grants_allow(&back, PD_OP_EXEC, "/ws/src/app"),
                     pd_kernel_grants_allow(&g, PD_OP_EXEC, "/ws/src/app"));
        cr_expect_str_eq(pd_kernel_grants_readonly(&back, "/ws/.git/config"), "/ws/.git/config");
        free(ptrs);
        /* without g, the policy and context are still filled */
        ptrs = materialize(&m, &p2, &c2, NULL);
        cr_expect_str_eq(c2.workspace, ctx.workspace);
        cr_expect_eq(c2.nroots, ctx.nroots);
        free(ptrs);
        free(m.mem);
        pd_kernel_grants_free(&g);
    }
}

Test(compiled_image, no_grants_means_the_kernel_layers_are_off, .init = setup, .fini = teardown)
{
    load("", NULL);
    struct pd_kernel_grants back;
    struct pd_policy p2;
    struct pd_ctx c2;
    struct image m = build(&ctx, NULL, NULL);
    cr_expect_eq(m.im->flags & (PD_IMAGE_KERNEL | PD_IMAGE_NO_EXEC_WRITES), 0);
    memset(&back, 0xa5, sizeof back);
    char **ptrs = materialize(&m, &p2, &c2, &back);
    cr_expect_not(back.on);
    cr_expect_not(back.no_exec_writes);
    cr_expect_eq(back.exec.n + back.read.n + back.write.n + back.dev.n + back.readonly.n, 0);
    cr_expect(pd_kernel_grants_allow(&back, PD_OP_WRITE, "/anywhere"));
    free(ptrs);
    free(m.mem);

    /* grants that are off write nothing either, whatever their lists */
    struct pd_kernel_grants g = sample_grants(true);
    g.on = false;
    m = build(&ctx, &g, NULL);
    cr_expect_eq(m.im->flags & (PD_IMAGE_KERNEL | PD_IMAGE_NO_EXEC_WRITES), 0);
    ptrs = materialize(&m, &p2, &c2, &back);
    cr_expect_not(back.on);
    cr_expect_not(back.no_exec_writes);
    cr_expect_eq(back.exec.n + back.read.n + back.write.n + back.dev.n + back.readonly.n, 0);
    free(ptrs);
    free(m.mem);
    pd_kernel_grants_free(&g);
}

/* ---- pd_image_nptrs, pd_image_list, pd_image_str --------------------------- */

static size_t policy_list_entries(const struct pd_policy *p)
{
    size_t n = 0;
#define PD_KEY_STRV(name, doc) n += p->name.n;
#define PD_KEY_BOOL(name, def, doc)
#define PD_KEY_INT(name, def, lo, hi, doc)
#define PD_KEY_FLOAT(name, def, doc)
#define PD_KEY_ENUM(name, ctype, def, parse, doc)
#include "policy/policy_keys.def"
    return n;
}

Test(compiled_image, nptrs_is_the_sum_of_the_lists, .init = setup, .fini = teardown)
{
    load(toml_on, home);
    cr_assert_eq(pd_ctx_add_root(&ctx, home), 0);
    cr_assert_eq(pd_ctx_add_git_dir(&ctx, "/ws/.git"), 0);
    struct pd_kernel_grants g = sample_grants(false);
    size_t ctx_lists = ctx.nroots + ctx.nread_roots + ctx.ngit_dirs;
    size_t grant_lists = g.exec.n + g.read.n + g.write.n + g.dev.n + g.readonly.n;
    size_t want = ctx_lists + grant_lists + policy_list_entries(&pol);

    struct image m = build(&ctx, &g, NULL);
    cr_expect_eq(pd_image_nptrs(m.im), want);
    size_t sum = 0;
    for (int l = 0; l < PD_IL_COUNT; l++) {
        size_t n;
        (void)pd_image_list(m.im, (enum pd_image_list)l, &n);
        sum += n;
    }
    cr_expect_eq(sum, want);
    free(m.mem);

    m = build(&ctx, NULL, NULL);
    cr_expect_eq(pd_image_nptrs(m.im), ctx_lists + policy_list_entries(&pol));
    free(m.mem);

    /* the defaults: the workspace as the one root */
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    loaded = false;
    load("", NULL);
    m = build(&ctx, NULL, NULL);
    cr_expect_eq(pd_image_nptrs(m.im), ctx.nroots + policy_list_entries(&pol));
    cr_expect_eq(ctx.nroots, 1);
    free(m.mem);
    pd_kernel_grants_free(&g);
}

Test(compiled_image, list_and_str_read_the_image, .init = setup, .fini = teardown)
{
    load(toml_on, home);
    struct pd_kernel_grants g = sample_grants(false);
    struct image m = build(&ctx, &g, NULL);
    cr_expect_str_eq(pd_image_str(m.im, PD_IMAGE_NONE), "");
    cr_expect_str_eq(pd_image_str(m.im, 0), "", "offset 0 is the empty string");
    size_t n;
    const uint32_t *v = pd_image_list(m.im, PD_IL_ROOTS, &n);
    cr_assert_eq(n, ctx.nroots);
    for (size_t k = 0; k < n; k++) {
        cr_expect_str_eq(pd_image_str(m.im, v[k]), ctx.roots[k]);
        cr_expect(in_image(&m, pd_image_str(m.im, v[k])));
    }
    v = pd_image_list(m.im, PD_IL_READ_ROOTS, &n);
    cr_assert_eq(n, ctx.nread_roots);
    for (size_t k = 0; k < n; k++)
        cr_expect_str_eq(pd_image_str(m.im, v[k]), ctx.read_roots[k]);
    v = pd_image_list(m.im, PD_IL_deny_globs, &n);
    cr_assert_eq(n, 2);
    cr_expect_str_eq(pd_image_str(m.im, v[0]), "*.log");
    cr_expect_str_eq(pd_image_str(m.im, v[1]), "we\\ird\nname");
    v = pd_image_list(m.im, PD_IL_env_drop, &n);
    cr_assert_eq(n, 1);
    cr_expect_str_eq(pd_image_str(m.im, v[0]), "BAR");
    v = pd_image_list(m.im, PD_IL_KERNEL_DEV, &n);
    cr_assert_eq(n, 2);
    cr_expect_str_eq(pd_image_str(m.im, v[1]), "/dev/pts");
    v = pd_image_list(m.im, PD_IL_KERNEL_READONLY, &n);
    cr_assert_eq(n, 1);
    cr_expect_str_eq(pd_image_str(m.im, v[0]), "/ws/.git/config");
    (void)pd_image_list(m.im, PD_IL_GIT_DIRS, &n);
    cr_expect_eq(n, 0);
    free(m.mem);
    pd_kernel_grants_free(&g);
}

/* ---- pd_image_write -------------------------------------------------------- */

Test(compiled_image, write_creates_the_file_with_the_mode, .init = setup, .fini = teardown)
{
    load("deny_globs = [\"*.log\"]\n", home);
    umask(022);
    static const mode_t modes[] = {0400, 0640};
    for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++) {
        char path[PD_PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/policy-%zu.compiled", out, k);
        cr_assert_eq(pd_image_write(&ctx, NULL, NULL, path, modes[k]), 0, "%s: %s", path,
                     strerror(errno));
        struct stat st;
        cr_assert_eq(stat(path, &st), 0);
        cr_expect(S_ISREG(st.st_mode));
        cr_expect_eq(st.st_mode & 07777, modes[k], "mode %o, want %o", st.st_mode & 07777,
                     modes[k]);
        size_t len;
        char *b = read_all(path, &len);
        const char *why = pd_image_check(b, len);
        cr_expect_null(why, "%s", why);
        struct image m = build(&ctx, NULL, NULL);
        cr_expect_eq(len, m.len);
        cr_expect(len == m.len && memcmp(b, m.mem, len) == 0, "the file is not the built image");
        free(m.mem);
        free(b);
    }
}

Test(compiled_image, write_refuses_an_existing_file, .init = setup, .fini = teardown)
{
    load("", NULL);
    tp_put(out, "policy.compiled", "keep me\n", 0644);
    char path[PD_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/policy.compiled", out);
    errno = 0;
    cr_expect_eq(pd_image_write(&ctx, NULL, NULL, path, 0400), -1);
    cr_expect_eq(errno, EEXIST);
    size_t len;
    char *b = read_all(path, &len);
    cr_expect(len == 8 && memcmp(b, "keep me\n", 8) == 0, "the existing file was changed");
    free(b);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_expect_eq(st.st_mode & 07777, 0644);

    /* nor through a symbolic link, even one that leads nowhere */
    char target[PD_PATH_MAX + 64];
    snprintf(target, sizeof target, "%s/elsewhere", out);
    tp_link(out, "link.compiled", target);
    snprintf(path, sizeof path, "%s/link.compiled", out);
    errno = 0;
    cr_expect_eq(pd_image_write(&ctx, NULL, NULL, path, 0400), -1);
    cr_expect_eq(errno, EEXIST);
    cr_expect_neq(access(target, F_OK), 0, "the link's target was created");
}

Test(compiled_image, write_leaves_no_file_on_failure, .init = setup, .fini = teardown)
{
    load("", NULL);
    char path[PD_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/no-such-dir/policy.compiled", out);
    errno = 0;
    cr_expect_eq(pd_image_write(&ctx, NULL, NULL, path, 0400), -1);
    cr_expect_eq(errno, ENOENT);

    /* a write that fails half way: the file size limit stops it */
    snprintf(path, sizeof path, "%s/policy.compiled", out);
    struct rlimit old, small;
    cr_assert_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    small = old;
    small.rlim_cur = 64;
    signal(SIGXFSZ, SIG_IGN);
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
    errno = 0;
    int rc = pd_image_write(&ctx, NULL, NULL, path, 0400);
    int err = errno;
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_DFL);
    cr_expect_eq(rc, -1);
    cr_expect_eq(err, EFBIG, "errno %d (%s)", err, strerror(err));
    cr_expect_neq(access(path, F_OK), 0, "a partial image was left behind");
    cr_expect_eq(errno, ENOENT);
    /* and with the limit lifted, the same path is written */
    cr_expect_eq(pd_image_write(&ctx, NULL, NULL, path, 0400), 0, "%s", strerror(errno));
    cr_expect_eq(access(path, F_OK), 0);
}

/* ---- pd_image_check -------------------------------------------------------- */

Test(compiled_image, check_refuses_a_bad_header, .init = setup, .fini = teardown)
{
    static const char text[] = "not a policy\n";
    cr_expect_str_eq(TP_S(pd_image_check(text, sizeof text - 1)), E_HEADER);
    cr_expect_str_eq(TP_S(pd_image_check(text, 0)), E_HEADER);
    /* too short to hold the magic's head */
    static const char head[] = PD_IMAGE_MAGIC_HEAD;
    cr_expect_str_eq(TP_S(pd_image_check(head, sizeof head - 2)), E_HEADER);
    /* garbage of an image's size */
    load("", NULL);
    struct image m = build(&ctx, NULL, NULL);
    char *b = copy_of(&m, 0);
    for (size_t k = 0; k < m.len; k++)
        b[k] = (char)(k * 131 + 7);
    cr_expect_str_eq(TP_S(pd_image_check(b, m.len)), E_HEADER);
    /* an image whose first byte is off */
    memcpy(b, m.mem, m.len);
    b[0] = 'P';
    cr_expect_str_eq(TP_S(pd_image_check(b, m.len)), E_HEADER);
    free(b);
    free(m.mem);
}

Test(compiled_image, check_refuses_a_truncated_image, .init = setup, .fini = teardown)
{
    load("deny_globs = [\"*.log\"]\n", home);
    struct image m = build(&ctx, NULL, NULL);
    /* every length from the magic's head to one byte short */
    for (size_t len = strlen(PD_IMAGE_MAGIC_HEAD); len < m.len; len++) {
        const char *why = pd_image_check(m.mem, len);
        cr_assert_str_eq(TP_S(why), E_TRUNCATED, "%zu of %zu bytes", len, m.len);
    }
    /* a header that says more than there is */
    char *b = copy_of(&m, 8);
    uint64_t size = m.len + 8;
    memcpy(b + offsetof(struct pd_image, size), &size, sizeof size);
    cr_expect_str_eq(TP_S(pd_image_check(b, m.len)), E_TRUNCATED);
    /* the old text format, as short as it was */
    static const char old[] = "paldron-compiled 1\nworkspace /x\nend\n";
    cr_expect_str_eq(TP_S(pd_image_check(old, sizeof old - 1)), E_TRUNCATED);
    free(b);
    free(m.mem);
}

Test(compiled_image, check_refuses_another_version, .init = setup, .fini = teardown)
{
    load("", NULL);
    struct image m = build(&ctx, NULL, NULL);
    struct pd_image *h;
    char *b = copy_of(&m, 0);
    /* the control: recomputing the checksum alone changes nothing */
    rehash(b, m.len);
    cr_expect_null(pd_image_check(b, m.len));

    /* "paldron-compiled 3\n" */
    size_t digit = strlen(PD_IMAGE_MAGIC_HEAD);
    cr_assert_eq(b[digit], '2');
    b[digit] = '3';
    rehash(b, m.len);
    cr_expect_str_eq(TP_S(pd_image_check(b, m.len)), E_VERSION);

    /* another build's policy keys */
    memcpy(b, m.mem, m.len);
    h = (struct pd_image *)(void *)b;
    h->schema ^= 1;
    rehash(b, m.len);
    cr_expect_str_eq(TP_S(pd_image_check(b, m.len)), E_VERSION);

    /* another byte order */
    memcpy(b, m.mem, m.len);
    h->byte_order = 0x04030201u;
    rehash(b, m.len);
    cr_expect_str_eq(TP_S(pd_image_check(b, m.len)), E_VERSION);

    /* another header layout */
    memcpy(b, m.mem, m.len);
    h->header_size -= 8;
    rehash(b, m.len);
    cr_expect_str_eq(TP_S(pd_image_check(b, m.len)), E_VERSION);
    free(b);

    /* the old text format, padded to a header's size */
    char *old = calloc(1, sizeof(struct pd_image) + 64);
    cr_assert_not_null(old);
    strcpy(old, "paldron-compiled 1\nworkspace /x\nend\n");
    cr_expect_str_eq(TP_S(pd_image_check(old, sizeof(struct pd_image) + 64)), E_VERSION);
    free(old);
    free(m.mem);
}

Test(compiled_image, check_refuses_any_changed_byte, .init = setup, .fini = teardown)
{
    load("deny_globs = [\"*.log\"]\nallow_binaries = [\"sh\"]\n", home);
    pd_ctx_set_path_env(&ctx, "/usr/bin:/bin");
    struct image m = build(&ctx, NULL, NULL);
    char *b = copy_of(&m, 0);
    size_t schema_at = offsetof(struct pd_image, schema);
    for (size_t k = HASHED_FROM; k < m.len; k++) {
        b[k] ^= 0x10;
        const char *why = pd_image_check(b, m.len);
        const char *want =
            k >= schema_at && k < schema_at + sizeof(uint64_t) ? E_VERSION : E_CHECKSUM;
        cr_assert_str_eq(TP_S(why), want, "byte %zu of %zu flipped", k, m.len);
        b[k] ^= 0x10;
    }
    cr_expect_null(pd_image_check(b, m.len));
    /* the checksum itself */
    b[offsetof(struct pd_image, checksum)] ^= 0x01;
    cr_expect_str_eq(TP_S(pd_image_check(b, m.len)), E_CHECKSUM);
    free(b);
    free(m.mem);
}

/* Edit what of a copy of m, recompute its checksum, check it. */
static const char *edited(const struct image *m, int what)
{
    char *b = copy_of(m, 0);
    struct pd_image *h = (struct pd_image *)(void *)b;
    const uint32_t len = (uint32_t)m->len;
    switch (what) {
    case 0: /* nothing: the control */
        break;
    case 1:
        h->strings.off = len;
        break;
    case 2:
        h->strings.n = 0;
        break;
    case 3:
        h->strings.n += 8;
        break;
    case 4:
        h->lists[PD_IL_ROOTS].off = 2;
        break;
    case 5:
        h->lists[PD_IL_ROOTS].off = (uint32_t)sizeof(struct pd_image) - 4;
        break;
    case 6:
        h->lists[PD_IL_ROOTS].n = UINT32_MAX;
        break;
    case 7: { /* a root's string past the string area */
        uint32_t off = h->strings.n;
        memcpy(b + h->lists[PD_IL_ROOTS].off, &off, sizeof off);
        break;
    }
    case 8:
        h->lists[PD_IL_deny_globs].off = len + 4;
        break;
    case 9:
        h->workspace = 0; /* "": not absolute */
        break;
    case 10:
        h->home = h->strings.n + 5;
        break;
    case 11:
        h->file = h->strings.n;
        break;
    case 12:
        h->npolicy_roots = h->lists[PD_IL_ROOTS].n + 1;
        break;
    case 13:
        h->read_set.pats.off = len;
        break;
    case 14:
        h->read_set.nlead = h->read_set.pats.n + 1;
        break;
    case 15: { /* a pattern of an unknown kind */
        struct pd_image_pat *p = (struct pd_image_pat *)(void *)(b + h->protect_set.pats.off);
        p[0].kind = PD_PAT_KEY + 1;
        break;
    }
    case 16: { /* a pattern whose text runs past its end */
        struct pd_image_pat *p = (struct pd_image_pat *)(void *)(b + h->read_set.pats.off);
        p[0].len = h->strings.n;
        break;
    }
    case 17:
        h->bins.off += 4;
        break;
    case 18: { /* a bin of an unknown why */
        struct pd_image_bin *v = (struct pd_image_bin *)(void *)(b + h->bins.off);
        v[0].why_nnp = PD_WHY_FCAPS + 1;
        break;
    }
    case 19: {
        struct pd_image_bin *v = (struct pd_image_bin *)(void *)(b + h->bins.off);
        v[0].path = h->strings.n;
        break;
    }
    case 20:
        h->host_devs.n = UINT32_MAX;
        break;
    case 21:
        h->root_ids.off = len + 8;
        break;
    case 22: /* the size no longer the length */
        h->size -= 8;
        break;
    }
    rehash(b, m->len);
    const char *why = pd_image_check(b, m->len);
    free(b);
    return why;
}

Test(compiled_image, check_refuses_corrupt_offsets, .init = setup, .fini = teardown)
{
    load("deny_globs = [\"*.log\"]\nallow_binaries = [\"sh\"]\n", home);
    pd_ctx_set_path_env(&ctx, "/usr/bin:/bin");
    pol.file = strdup("/p.toml"); /* freed by pd_policy_free */
    struct image m = build(&ctx, NULL, NULL);
    cr_assert_gt(m.im->bins.n, 0, "sh is not resolved: the bin cases test nothing");
    cr_assert_gt(m.im->read_set.pats.n, 0);
    cr_assert_gt(m.im->protect_set.pats.n, 0);
    cr_assert_gt(m.im->lists[PD_IL_deny_globs].n, 0);
    cr_expect_null(edited(&m, 0), "the control edit");
    for (int what = 1; what <= 22; what++)
        cr_expect_str_eq(TP_S(edited(&m, what)), E_OFFSETS, "edit %d", what);
    /* trailing bytes after the image */
    char *b = copy_of(&m, 8);
    cr_expect_str_eq(TP_S(pd_image_check(b, m.len + 8)), E_OFFSETS);
    free(b);
    free(m.mem);
}

/* ---- the pattern index ----------------------------------------------------- */

static bool is_lead(const struct pd_image_pat *p)
{
    return p->kind == PD_PAT_ABS || p->kind == PD_PAT_REL;
}

/* nlead counts the ABS and REL patterns, and they come first. */
static void expect_leads_first(const struct pd_image *im, const struct pd_image_set *s,
                               const char *name)
{
    const struct pd_image_pat *v = pd_image_pats(im, s);
    size_t leads = 0;
    for (size_t k = 0; k < s->pats.n; k++) {
        leads += is_lead(&v[k]);
        cr_expect_eq(is_lead(&v[k]), k < s->nlead, "%s: pattern %zu (kind %u) and nlead %u", name,
                     k, v[k].kind, s->nlead);
        if (v[k].kind == PD_PAT_ABS || v[k].kind == PD_PAT_REL || v[k].kind == PD_PAT_KEY) {
            cr_expect_eq(strlen(pd_image_str(im, v[k].text)), v[k].len, "%s: pattern %zu", name, k);
            cr_expect_gt(v[k].len, 0);
        }
        if (is_lead(&v[k])) {
            unsigned char c = (unsigned char)pd_image_str(im, v[k].text)[0];
            if (c >= 'A' && c <= 'Z')
                c = (unsigned char)(c - 'A' + 'a');
            cr_expect(map_has(v[k].kind == PD_PAT_ABS ? s->absmap : s->relmap, c),
                      "%s: the first character of '%s' is not in its map", name,
                      pd_image_str(im, v[k].text));
        }
    }
    cr_expect_eq(leads, s->nlead, "%s", name);
}

static const struct pd_image_pat *find_pat(const struct pd_image *im, const struct pd_image_set *s,
                                           unsigned kind, const char *text)
{
    const struct pd_image_pat *v = pd_image_pats(im, s);
    for (size_t k = 0; k < s->pats.n; k++)
        if (v[k].kind == kind && strcmp(pd_image_str(im, v[k].text), text) == 0)
            return &v[k];
    return NULL;
}

static size_t count_kind(const struct pd_image *im, const struct pd_image_set *s, unsigned kind)
{
    const struct pd_image_pat *v = pd_image_pats(im, s);
    size_t n = 0;
    for (size_t k = 0; k < s->pats.n; k++)
        n += v[k].kind == kind;
    return n;
}

static size_t count_tilde(const char *const *list)
{
    size_t n = 0;
    for (size_t k = 0; list[k]; k++)
        n += list[k][0] == '~' && list[k][1] == '/';
    return n;
}

static size_t count_list(const char *const *list)
{
    size_t n = 0;
    while (list[n])
        n++;
    return n;
}

Test(compiled_image, the_pattern_index_leads_with_abs_and_rel, .init = setup, .fini = teardown)
{
    load("deny_globs = [\"*.tmp\", \"/ABS/x/*.log\", \"build/out\", \"~/.secret/**\", \"**\", "
         "\"Zed*\"]\nprotected_paths = [\"Makefile\", \"/opt/cfg/**\"]\n",
         NULL);
    cr_assert_str_empty(ctx.home);
    struct image m = build(&ctx, NULL, NULL);
    const struct pd_image *im = m.im;
    const struct pd_image_set *rs = &im->read_set, *ps = &im->protect_set;
    /* deny_globs and the built-in secrets; protected_paths and the built-ins */
    cr_expect_eq(rs->pats.n, 6 + count_list(pd_builtin_secrets));
    cr_expect_eq(ps->pats.n, 2 + count_list(pd_builtin_protected));
    expect_leads_first(im, rs, "read_set");
    expect_leads_first(im, ps, "protect_set");
    cr_expect_gt(rs->nlead, 2);
    cr_expect_lt(rs->nlead, rs->pats.n);
    const struct pd_image_pat *v = pd_image_pats(im, rs);
    /* the lead patterns keep their order: deny_globs' before the built-ins' */
    cr_expect_eq(v[0].kind, PD_PAT_ABS);
    cr_expect_str_eq(pd_image_str(im, v[0].text), "ABS/x");
    cr_expect_eq(v[0].len, 5);
    cr_expect_eq(v[1].kind, PD_PAT_REL);
    cr_expect_str_eq(pd_image_str(im, v[1].text), "build/out");
    cr_expect_not_null(find_pat(im, rs, PD_PAT_ABS, "etc/shadow"));
    /* the maps hold the folded first characters, of their kind only */
    cr_expect(map_has(rs->absmap, 'a'));
    cr_expect_not(map_has(rs->absmap, 'A'));
    cr_expect(map_has(rs->absmap, 'e'));
    cr_expect(map_has(rs->relmap, 'b'));
    cr_expect_not(map_has(rs->relmap, 'a'));
    cr_expect_not(map_has(rs->absmap, 'b'));
    cr_expect_not(map_has(rs->absmap, 'z'));
    /* without a home, every "~/" pattern is PD_PAT_NEVER */
    cr_expect_eq(count_kind(im, rs, PD_PAT_NEVER), 1 + count_tilde(pd_builtin_secrets));
    /* "**" can only be asked */
    cr_expect_eq(count_kind(im, rs, PD_PAT_ALWAYS), 1);
    cr_expect_eq(rs->always, 1);
    /* component patterns and their filters */
    cr_expect_eq(rs->keys, 1);
    const struct pd_image_pat *p = find_pat(im, rs, PD_PAT_KEY, "Zed*");
    cr_assert_not_null(p);
    cr_expect_eq(p->first, 'z');
    cr_expect_eq(p->last, 0);
    cr_expect(map_has(rs->firstmap, 'z'));
    p = find_pat(im, rs, PD_PAT_KEY, "*.tmp");
    cr_assert_not_null(p);
    cr_expect_eq(p->first, 0);
    cr_expect_eq(p->last, 'p');
    cr_expect(map_has(rs->lastmap, 'p'));
    /* protected: the ABS pattern leads, before "Makefile" and the built-ins */
    const struct pd_image_pat *w = pd_image_pats(im, ps);
    cr_expect_eq(w[0].kind, PD_PAT_ABS);
    cr_expect_str_eq(pd_image_str(im, w[0].text), "opt/cfg");
    cr_expect(map_has(ps->absmap, 'o'));
    cr_expect_not_null(find_pat(im, ps, PD_PAT_REL, ".git/hooks"));
    cr_expect(map_has(ps->relmap, '.'));
    p = find_pat(im, ps, PD_PAT_KEY, "Makefile");
    cr_assert_not_null(p);
    cr_expect_eq(p->first, 'm');
    cr_expect_eq(p->last, 'e');
    free(m.mem);
}

Test(compiled_image, tilde_patterns_lead_with_the_home, .init = setup, .fini = teardown)
{
    load("deny_globs = [\"~/.secret/**\"]\n", home);
    struct image m = build(&ctx, NULL, NULL);
    const struct pd_image_set *rs = &m.im->read_set;
    cr_expect_eq(count_kind(m.im, rs, PD_PAT_NEVER), 0);
    char want[PD_PATH_MAX + 16];
    snprintf(want, sizeof want, "%s/.secret", home + 1);
    const struct pd_image_pat *v = pd_image_pats(m.im, rs);
    cr_expect_eq(v[0].kind, PD_PAT_ABS);
    cr_expect_str_eq(pd_image_str(m.im, v[0].text), want);
    cr_expect_not_null(find_pat(m.im, rs, PD_PAT_ABS, want));
    snprintf(want, sizeof want, "%s/.ssh", home + 1);
    cr_expect_not_null(find_pat(m.im, rs, PD_PAT_ABS, want), "~/.ssh/** is not %s", want);
    cr_expect(map_has(rs->absmap, (unsigned char)home[1]));
    expect_leads_first(m.im, rs, "read_set");
    free(m.mem);
}

Test(compiled_image, key_filters_say_what_a_component_needs, .init = setup, .fini = teardown)
{
    load("", NULL);
    struct image m = build(&ctx, NULL, NULL);
    /* the built-ins alone: every component pattern has a filter */
    cr_expect_eq(m.im->read_set.unfiltered, 0);
    cr_expect_eq(m.im->read_set.always, 0);
    cr_expect_eq(m.im->read_set.keys, 1);
    cr_expect_not(map_has(m.im->read_set.firstmap, 'q'));
    cr_expect_not(map_has(m.im->read_set.lastmap, 'q'));
    free(m.mem);
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    loaded = false;
    load("deny_globs = [\"*\", \"*.QQ\", \"Qa*\"]\n", NULL);
    m = build(&ctx, NULL, NULL);
    cr_expect_eq(m.im->read_set.unfiltered, 1, "\"*\" has no filter");
    cr_expect(map_has(m.im->read_set.lastmap, 'q'));
    cr_expect(map_has(m.im->read_set.firstmap, 'q'));
    cr_expect_eq(m.im->read_set.always, 0);
    free(m.mem);
}

/* ---- allow_binaries, resolved ---------------------------------------------- */

static const struct pd_image_bin *find_bin(const struct pd_image *im, const struct stat *st)
{
    size_t n;
    const struct pd_image_bin *v = pd_image_bins(im, &n);
    for (size_t k = 0; k < n; k++)
        if (v[k].dev == (uint64_t)st->st_dev && v[k].ino == (uint64_t)st->st_ino)
            return &v[k];
    return NULL;
}

static void expect_bin_is(const struct pd_image *im, const struct pd_image_bin *b, const char *path)
{
    char real[PD_PATH_MAX];
    struct stat st;
    cr_assert_not_null(realpath(path, real));
    cr_assert_eq(stat(real, &st), 0);
    cr_expect_eq(b->dev, (uint64_t)st.st_dev);
    cr_expect_eq(b->ino, (uint64_t)st.st_ino);
    cr_expect_eq(b->size, (uint64_t)st.st_size);
    cr_expect_eq(b->mode, (uint32_t)st.st_mode);
    cr_expect_eq(b->ctime_sec, (int64_t)st.st_ctim.tv_sec);
    cr_expect_eq(b->ctime_nsec, (int64_t)st.st_ctim.tv_nsec);
    cr_expect_str_eq(pd_image_str(im, b->path), real);
    const char *why = pd_exec_unmonitored(real, false), *nnp = pd_exec_unmonitored(real, true);
    cr_expect(tp_streq(pd_image_why_text(b->why), why), "%s: why %u, want %s", real, b->why,
              TP_S(why));
    cr_expect(tp_streq(pd_image_why_text(b->why_nnp), nnp), "%s: why_nnp %u, want %s", real,
              b->why_nnp, TP_S(nnp));
}

Test(compiled_image, allow_binaries_are_resolved_by_identity, .init = setup, .fini = teardown)
{
    load("allow_binaries = [\"sh\"]\n", NULL);
    pd_ctx_set_path_env(&ctx, "/usr/bin:/bin");
    struct image m = build(&ctx, NULL, NULL);
    size_t n;
    const struct pd_image_bin *v = pd_image_bins(m.im, &n);
    cr_assert_eq(n, 1);
    struct stat st;
    cr_assert_eq(stat("/usr/bin/sh", &st), 0);
    cr_expect_eq(v[0].dev, (uint64_t)st.st_dev);
    cr_expect_eq(v[0].ino, (uint64_t)st.st_ino);
    expect_bin_is(m.im, &v[0], "/usr/bin/sh");
    free(m.mem);

    /* no allow_binaries: none */
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    loaded = false;
    load("", NULL);
    pd_ctx_set_path_env(&ctx, "/usr/bin:/bin");
    m = build(&ctx, NULL, NULL);
    (void)pd_image_bins(m.im, &n);
    cr_expect_eq(n, 0);
    free(m.mem);
}

Test(compiled_image, allow_binaries_lists_only_what_identity_allows, .init = setup,
     .fini = teardown)
{
    char tool[PD_PATH_MAX + 64], script[PD_PATH_MAX + 64], denied[PD_PATH_MAX + 64],
        suid[PD_PATH_MAX + 64], wtool[PD_PATH_MAX + 64];
    snprintf(tool, sizeof tool, "%s/tool", out);
    snprintf(script, sizeof script, "%s/script.sh", out);
    snprintf(denied, sizeof denied, "%s/denied-tool", out);
    snprintf(suid, sizeof suid, "%s/suid-tool", out);
    snprintf(wtool, sizeof wtool, "%s/bin/tool", ws);
    copy_file("/usr/bin/true", tool, 0755);
    copy_file("/usr/bin/true", denied, 0755);
    tp_need_native("/usr/bin/true");
    copy_file("/usr/bin/true", suid, 04755);
    tp_mkdir(ws, "bin");
    copy_file("/usr/bin/true", wtool, 0755);
    tp_put(out, "script.sh", "#!/bin/sh\nexit 0\n", 0755);
    char toml[8 * PD_PATH_MAX];
    snprintf(toml, sizeof toml,
             "deny_globs = [\"denied-tool\"]\n"
             "allow_binaries = [\"sh\", \"/usr/bin/sh\", \"bin/tool\", \"%s\", \"%s\", \"%s\", "
             "\"%s\", \"no-such-program-pd\"]\n",
             tool, script, denied, suid);
    load(toml, NULL);
    pd_ctx_set_path_env(&ctx, "/usr/bin:/bin");
    struct image m = build(&ctx, NULL, NULL);
    size_t n;
    const struct pd_image_bin *v = pd_image_bins(m.im, &n);
    /* sh (named twice, listed once), the tool outside the roots, the
     * set-uid one; in the order allow_binaries names them */
    cr_assert_eq(n, 3);
    expect_bin_is(m.im, &v[0], "/usr/bin/sh");
    expect_bin_is(m.im, &v[1], tool);
    expect_bin_is(m.im, &v[2], suid);
    cr_expect_eq(v[2].why, PD_WHY_SETUID);
    cr_expect_eq(v[2].why_nnp, PD_WHY_NONE);
    /* not the copy in the workspace (a writable root), not the script,
     * not the file deny_globs names */
    struct stat st;
    cr_assert_eq(stat(wtool, &st), 0);
    cr_expect_null(find_bin(m.im, &st), "a binary inside a writable root is listed");
    cr_assert_eq(stat(script, &st), 0);
    cr_expect_null(find_bin(m.im, &st), "a script is listed");
    cr_assert_eq(stat(denied, &st), 0);
    cr_expect_null(find_bin(m.im, &st), "a binary deny_globs names is listed");
    free(m.mem);

    /* the same tool is not listed once its folder is a writable root */
    cr_assert_eq(pd_ctx_add_root(&ctx, out), 0);
    m = build(&ctx, NULL, NULL);
    cr_assert_eq(stat(tool, &st), 0);
    cr_expect_null(find_bin(m.im, &st), "a binary inside a writable root is listed");
    (void)pd_image_bins(m.im, &n);
    cr_expect_eq(n, 1);
    free(m.mem);
}

/* ---- the host view --------------------------------------------------------- */

Test(compiled_image, the_host_view_and_the_root_ids, .init = setup, .fini = teardown)
{
    load("", NULL);
    cr_assert_eq(pd_ctx_add_root(&ctx, out), 0);
    cr_assert_eq(pd_ctx_add_root(&ctx, "/nonexistent-pd-image-root"), 0);
    tp_put(ws, "file.txt", "x\n", 0644);
    char file[PD_PATH_MAX + 16];
    snprintf(file, sizeof file, "%s/file.txt", ws);
    cr_assert_eq(pd_ctx_add_root(&ctx, file), 0);
    cr_assert_eq(ctx.nroots, 4);
    static const uint64_t devs[] = {11, 22, 0x100000001ull};
    struct pd_image_host host = {4026531840ull, devs, 3};
    struct image m = build(&ctx, NULL, &host);
    cr_expect_eq(m.im->host_mnt_ns, 4026531840ull);
    size_t n;
    const uint64_t *d = pd_image_host_devs(m.im, &n);
    cr_assert_eq(n, 3);
    for (size_t k = 0; k < 3; k++)
        cr_expect_eq(d[k], devs[k]);
    /* the roots that are folders, in order: the workspace and out */
    const struct pd_image_id *ids = pd_image_root_ids(m.im, &n);
    cr_assert_eq(n, 2);
    const char *dirs[] = {ws, out};
    for (size_t k = 0; k < 2; k++) {
        struct stat st;
        cr_assert_eq(stat(dirs[k], &st), 0);
        cr_expect_eq(ids[k].dev, (uint64_t)st.st_dev, "%s", dirs[k]);
        cr_expect_eq(ids[k].ino, (uint64_t)st.st_ino, "%s", dirs[k]);
    }
    free(m.mem);

    /* a host view without devices still has the root ids */
    struct pd_image_host bare = {7, NULL, 0};
    m = build(&ctx, NULL, &bare);
    cr_expect_eq(m.im->host_mnt_ns, 7);
    (void)pd_image_host_devs(m.im, &n);
    cr_expect_eq(n, 0);
    (void)pd_image_root_ids(m.im, &n);
    cr_expect_eq(n, 2);
    free(m.mem);

    /* no host view: NULL, or a namespace of 0 */
    struct pd_image_host none = {0, devs, 3};
    const struct pd_image_host *views[] = {NULL, &none};
    for (size_t k = 0; k < 2; k++) {
        m = build(&ctx, NULL, views[k]);
        cr_expect_eq(m.im->host_mnt_ns, 0);
        (void)pd_image_host_devs(m.im, &n);
        cr_expect_eq(n, 0);
        (void)pd_image_root_ids(m.im, &n);
        cr_expect_eq(n, 0);
        free(m.mem);
    }
}

/* ---- why, hash, schema ------------------------------------------------------- */

Test(compiled_image, why_text_names_each_code)
{
    cr_expect_null(pd_image_why_text(PD_WHY_NONE));
    cr_expect_str_eq(TP_S(pd_image_why_text(PD_WHY_STATIC)), PD_REPORT_STATIC);
    cr_expect_str_eq(TP_S(pd_image_why_text(PD_WHY_FOREIGN)), PD_REPORT_FOREIGN);
    cr_expect_str_eq(TP_S(pd_image_why_text(PD_WHY_SETUID)), PD_REPORT_SETUID);
    cr_expect_str_eq(TP_S(pd_image_why_text(PD_WHY_FCAPS)), PD_REPORT_FCAPS);
    cr_expect_null(pd_image_why_text((unsigned)PD_WHY_FCAPS + 1));
    cr_expect_null(pd_image_why_text(255));
}

Test(compiled_image, hash_sees_every_byte_and_the_length)
{
    unsigned char buf[37];
    for (size_t k = 0; k < sizeof buf; k++)
        buf[k] = (unsigned char)(k * 7 + 1);
    uint64_t h = pd_image_hash(buf, sizeof buf);
    cr_expect_eq(pd_image_hash(buf, sizeof buf), h, "the hash is a function of the bytes");
    unsigned char copy[sizeof buf];
    memcpy(copy, buf, sizeof buf);
    cr_expect_eq(pd_image_hash(copy, sizeof copy), h);
    for (size_t k = 0; k < sizeof buf; k++)
        for (int bit = 0; bit < 8; bit++) {
            buf[k] ^= (unsigned char)(1u << bit);
            cr_expect_neq(pd_image_hash(buf, sizeof buf), h, "byte %zu bit %d", k, bit);
            buf[k] ^= (unsigned char)(1u << bit);
        }
    /* the length counts, even over zero bytes */
    unsigned char zeros[16] = {0};
    cr_expect_neq(pd_image_hash(zeros, 8), pd_image_hash(zeros, 16));
    cr_expect_neq(pd_image_hash(zeros, 0), pd_image_hash(zeros, 1));
    cr_expect_neq(pd_image_hash(buf, 36), h);
    cr_expect_eq(pd_image_hash(zeros, 0), pd_image_hash(buf, 0));
}

Test(compiled_image, the_checksum_and_the_schema_are_the_headers, .init = setup, .fini = teardown)
{
    load("deny_globs = [\"*.log\"]\n", home);
    struct image m = build(&ctx, NULL, NULL);
    cr_expect_eq(m.im->checksum,
                 pd_image_hash((const char *)m.mem + HASHED_FROM, m.len - HASHED_FROM));
    cr_expect_eq(pd_image_schema(), pd_image_schema());
    cr_expect_eq(m.im->schema, pd_image_schema());
    cr_expect_neq(pd_image_schema(), 0);
    cr_expect_eq(memcmp(m.im->magic, PD_IMAGE_MAGIC, sizeof PD_IMAGE_MAGIC), 0);
    cr_expect_eq(m.im->byte_order, PD_IMAGE_BYTE_ORDER);
    cr_expect_eq(m.im->header_size, sizeof(struct pd_image));
    free(m.mem);
}
