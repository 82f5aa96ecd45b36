/* tests/unit/test_policy_path.c - the path helpers: pd_path_clean and
 * pd_path_under from tables, pd_path_normalize on real temp trees with
 * relative, absolute, chained, directory and looping symlinks. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"
#include "test_policy_fixture.h"

/* ---- pd_path_clean ------------------------------------------------------ */

struct clean_case {
    const char *in, *out;
};

static const struct clean_case clean_cases[] = {
    {"a/./b/../c", "a/c"},
    {"/../x", "/x"},
    {"../x", "../x"},
    {"", "."},
    {"a/", "a"},
    {"//a//b", "/a/b"},
    {"/", "/"},
    {"//", "/"},
    {".", "."},
    {"./", "."},
    {"..", ".."},
    {"../..", "../.."},
    {"../../a", "../../a"},
    {"a/..", "."},
    {"a/../..", ".."},
    {"a/b/../../../c", "../c"},
    {"x/../../y", "../y"},
    {"/a/b/../../..", "/"},
    {"/..", "/"},
    {"/.", "/"},
    {"/a/./b/.", "/a/b"},
    {"./a", "a"},
    {"./a/./b/", "a/b"},
    {"a//b///c", "a/b/c"},
    {"/a/b/c/../../d", "/a/d"},
    {"a/b/./../c/", "a/c"},
    {"...", "..."},
    {"a/.../b", "a/.../b"},
    {"..a/b", "..a/b"},
    {"a/..b", "a/..b"},
    {".env", ".env"},
    {"src/../.env", ".env"},
    {"~/.ssh/id_rsa", "~/.ssh/id_rsa"},
    {"/tmp/x/", "/tmp/x"},
};

Test(path_clean, table)
{
    for (size_t k = 0; k < sizeof clean_cases / sizeof clean_cases[0]; k++) {
        char out[PD_PATH_MAX];
        memset(out, 'Z', sizeof out);
        pd_path_clean(clean_cases[k].in, out, sizeof out);
        cr_expect_str_eq(out, clean_cases[k].out,
                         "pd_path_clean(\"%s\"): expected \"%s\", got \"%s\"", clean_cases[k].in,
                         clean_cases[k].out, out);
    }
}

/* Cleaning is idempotent. */
Test(path_clean, idempotent)
{
    for (size_t k = 0; k < sizeof clean_cases / sizeof clean_cases[0]; k++) {
        char once[PD_PATH_MAX], twice[PD_PATH_MAX];
        pd_path_clean(clean_cases[k].in, once, sizeof once);
        pd_path_clean(once, twice, sizeof twice);
        cr_expect_str_eq(twice, once, "clean(clean(\"%s\"))", clean_cases[k].in);
    }
}

/* A small buffer is filled and terminated, never overrun. */
Test(path_clean, small_buffer)
{
    char out[8];
    memset(out, 'Z', sizeof out);
    pd_path_clean("/abcdefghijklmnop/q", out, 5);
    cr_expect_lt(strlen(out), 5);
    cr_expect_eq(out[5], 'Z', "wrote past outlen");
    cr_expect_eq(out[6], 'Z');
    memset(out, 'Z', sizeof out);
    pd_path_clean("../../../../..", out, 4);
    cr_expect_lt(strlen(out), 4);
    cr_expect_eq(out[4], 'Z', "wrote past outlen");
}

/* ---- pd_path_under ------------------------------------------------------ */

struct under_case {
    const char *abs, *dir, *want; /* want NULL: not under */
};

static const struct under_case under_cases[] = {
    {"/a/b", "/a/b", ""},
    {"/a/b/c", "/a/b", "c"},
    {"/a/b/c/d", "/a/b", "c/d"},
    {"/a/bc", "/a/b", NULL},
    {"/a/b.c", "/a/b", NULL},
    {"/a", "/a/b", NULL},
    {"/", "/a", NULL},
    {"/x", "/", "x"},
    {"/x/y", "/", "x/y"},
    {"/", "/", ""},
    {"/ab", "/a", NULL},
    {"/a/b", "/a", "b"},
    {"/tmp/ws/.env", "/tmp/ws", ".env"},
    {"/tmp/ws2/x", "/tmp/ws", NULL},
    {"/tmp/w", "/tmp/ws", NULL},
};

Test(path_under, table)
{
    for (size_t k = 0; k < sizeof under_cases / sizeof under_cases[0]; k++) {
        const struct under_case *c = &under_cases[k];
        const char *got = pd_path_under(c->abs, c->dir);
        if (!c->want) {
            cr_expect_null(got, "pd_path_under(\"%s\", \"%s\"): expected NULL, got \"%s\"", c->abs,
                           c->dir, TP_S(got));
        } else {
            cr_expect(got && strcmp(got, c->want) == 0,
                      "pd_path_under(\"%s\", \"%s\"): expected \"%s\", got %s%s%s", c->abs, c->dir,
                      c->want, got ? "\"" : "", TP_S(got), got ? "\"" : "");
        }
    }
}

/* The remainder points into abs (no copy). */
Test(path_under, points_into_abs)
{
    const char *abs = "/srv/ws/src/a.c";
    const char *r = pd_path_under(abs, "/srv/ws");
    cr_assert_not_null(r);
    cr_expect_eq(r, abs + 8);
}

/* ---- pd_path_normalize ---------------------------------------------------- */

/*
 * ws/
 * ├── .env                 "secret"
 * ├── src/
 * │   ├── main.go
 * │   ├── link   -> ../.env
 * │   └── dlink  -> ../a   (directory link)
 * ├── a/b/c/file
 * ├── linkdir -> a/b       (relative directory link)
 * ├── abslink -> <out>     (absolute link to a directory outside ws)
 * ├── chain1 -> chain2 -> chain3 -> a/b/c/file
 * ├── rootlink -> /
 * ├── loop1 -> loop2 -> loop1
 * ├── self -> self
 * ├── dangling -> nowhere/x
 * ├── deep/d2/up -> ../../.env
 * └── file                 (regular file used as a directory)
 * out/inside
 */
static char ws[256], outd[256];

static void tree_init(void)
{
    tp_mkdtemp(ws, sizeof ws, "path-ws");
    tp_mkdtemp(outd, sizeof outd, "path-out");
    tp_put(ws, ".env", "secret", 0644);
    tp_put(ws, "src/main.go", "package main", 0644);
    tp_link(ws, "src/link", "../.env");
    tp_link(ws, "src/dlink", "../a");
    tp_put(ws, "a/b/c/file", "x", 0644);
    tp_link(ws, "linkdir", "a/b");
    tp_link(ws, "abslink", outd);
    tp_link(ws, "chain1", "chain2");
    tp_link(ws, "chain2", "chain3");
    tp_link(ws, "chain3", "a/b/c/file");
    tp_link(ws, "rootlink", "/");
    tp_link(ws, "loop1", "loop2");
    tp_link(ws, "loop2", "loop1");
    tp_link(ws, "self", "self");
    tp_link(ws, "dangling", "nowhere/x");
    tp_mkdir(ws, "deep/d2");
    tp_link(ws, "deep/d2/up", "../../.env");
    tp_put(ws, "file", "plain", 0644);
    tp_put(outd, "inside", "out", 0644);
}

static void tree_fini(void)
{
    tp_rmtree(ws);
    tp_rmtree(outd);
}

TestSuite(path_normalize, .init = tree_init, .fini = tree_fini);

/* path -> expected, where "@" at the start of an expectation stands for the
 * workspace, "%" for the outside directory, "/h" is the home used. */
struct norm_case {
    const char *base; /* NULL: the workspace; "@..." relative to it */
    const char *path;
    const char *want;
};

static const struct norm_case norm_cases[] = {
    /* home */
    {NULL, "~", "/h/u"},
    {NULL, "~/", "/h/u"},
    {NULL, "~/x", "/h/u/x"},
    {NULL, "~/x/../y", "/h/u/y"},
    {NULL, "~x", "@/~x"},
    /* relative to base */
    {NULL, "a.txt", "@/a.txt"},
    {NULL, "new/dir/x", "@/new/dir/x"},
    {NULL, ".", "@"},
    {NULL, "./", "@"},
    {NULL, "src/", "@/src"},
    {NULL, "src/./main.go", "@/src/main.go"},
    {NULL, "src/../a", "@/a"},
    {NULL, "nope/../a", "@/a"},
    {"@/src", "main.go", "@/src/main.go"},
    {"@/src", "../a/b", "@/a/b"},
    {"@/src", "../../outside", "^/outside"},
    /* absolute */
    {NULL, "/a/../b", "/b"},
    {NULL, "/..", "/"},
    {NULL, "//usr//lib/", "/usr/lib"},
    {"/not/used", "/x/y", "/x/y"},
    /* symlinks */
    {NULL, "src/link", "@/.env"},
    {"@/src", "link", "@/.env"},
    {NULL, "src/dlink", "@/a"},
    {NULL, "src/dlink/b/c/file", "@/a/b/c/file"},
    {NULL, "linkdir", "@/a/b"},
    {NULL, "linkdir/c/file", "@/a/b/c/file"},
    {NULL, "linkdir/..", "@/a"},
    {NULL, "linkdir/../..", "@"},
    {NULL, "linkdir/../b/c", "@/a/b/c"},
    {NULL, "abslink", "%"},
    {NULL, "abslink/inside", "%/inside"},
    {NULL, "abslink/new/file", "%/new/file"},
    {NULL, "chain1", "@/a/b/c/file"},
    {NULL, "rootlink/etc/hosts", "/etc/hosts"},
    {NULL, "rootlink/..", "/"},
    {NULL, "deep/d2/up", "@/.env"},
    {NULL, "dangling", "@/nowhere/x"},
    {NULL, "dangling/more", "@/nowhere/x/more"},
    /* non-existing tails stay lexical */
    {NULL, "file/x", "@/file/x"},
    {NULL, "missing/../src/main.go", "@/src/main.go"},
};

static void expand(const char *tmpl, char *out, size_t len)
{
    if (tmpl[0] == '@')
        snprintf(out, len, "%s%s", ws, tmpl + 1);
    else if (tmpl[0] == '%')
        snprintf(out, len, "%s%s", outd, tmpl + 1);
    else if (tmpl[0] == '^') {
        /* the parent of the workspace */
        char parent[PD_PATH_MAX];
        snprintf(parent, sizeof parent, "%s", ws);
        *strrchr(parent, '/') = '\0';
        snprintf(out, len, "%s%s", parent, tmpl + 1);
    } else
        snprintf(out, len, "%s", tmpl);
}

Test(path_normalize, table)
{
    for (size_t k = 0; k < sizeof norm_cases / sizeof norm_cases[0]; k++) {
        const struct norm_case *c = &norm_cases[k];
        char base[PD_PATH_MAX], want[PD_PATH_MAX], out[PD_PATH_MAX];
        expand(c->base ? c->base : "@", base, sizeof base);
        expand(c->want, want, sizeof want);
        out[0] = '\0';
        errno = 0;
        int rc = pd_path_normalize(base, "/h/u", c->path, out, sizeof out);
        cr_expect_eq(rc, 0, "pd_path_normalize(base=%s, \"%s\"): rc %d errno %s", base, c->path, rc,
                     strerror(errno));
        if (rc == 0)
            cr_expect_str_eq(out, want,
                             "pd_path_normalize(base=%s, \"%s\"): expected \"%s\", got \"%s\"",
                             base, c->path, want, out);
    }
}

/* ".." out of a missing component returns to the part that exists, so a
 * link met after it is followed again: "missing/../src/link" names the same
 * file as "src/link" (a program that cleans the path lexically first, as
 * Python's os.path.realpath does, opens .env). */
Test(path_normalize, link_after_missing_component_and_dotdot)
{
    static const char *const cases[][2] = {
        {"missing/../src/link", "/.env"},
        {"missing/../linkdir/..", "/a"},
        {"x/y/../../chain1", "/a/b/c/file"},
        {"missing/../abslink/inside", NULL}, /* NULL: the outside directory */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char out[PD_PATH_MAX] = "", want[PD_PATH_MAX];
        if (cases[k][1])
            snprintf(want, sizeof want, "%s%s", ws, cases[k][1]);
        else
            snprintf(want, sizeof want, "%s/inside", outd);
        cr_expect_eq(pd_path_normalize(ws, "", cases[k][0], out, sizeof out), 0);
        cr_expect_str_eq(out, want, "pd_path_normalize(ws, \"%s\"): expected \"%s\", got \"%s\"",
                         cases[k][0], want, out);
    }
}

/* Absolute input and relative input give the same answer. */
Test(path_normalize, absolute_equals_relative)
{
    static const char *const rels[] = {"src/link", "linkdir/..", "chain1", "src/main.go", NULL};
    for (size_t k = 0; rels[k]; k++) {
        char abs_in[PD_PATH_MAX], a[PD_PATH_MAX], r[PD_PATH_MAX];
        tp_join(abs_in, sizeof abs_in, ws, rels[k]);
        cr_assert_eq(pd_path_normalize("/", "", abs_in, a, sizeof a), 0);
        cr_assert_eq(pd_path_normalize(ws, "", rels[k], r, sizeof r), 0);
        cr_expect_str_eq(a, r, "%s absolute vs relative", rels[k]);
    }
}

/* The result agrees with realpath(3) wherever the whole path exists. */
Test(path_normalize, agrees_with_realpath)
{
    static const char *const rels[] = {"src/link", "src/dlink", "linkdir",    "linkdir/..",
                                       "chain1",   "abslink",   "deep/d2/up", "src/../a/b/c/file",
                                       NULL};
    for (size_t k = 0; rels[k]; k++) {
        char in[PD_PATH_MAX], real[PATH_MAX], out[PD_PATH_MAX];
        tp_join(in, sizeof in, ws, rels[k]);
        cr_assert_not_null(realpath(in, real), "realpath %s", in);
        cr_assert_eq(pd_path_normalize(ws, "", rels[k], out, sizeof out), 0);
        cr_expect_str_eq(out, real, "%s", rels[k]);
    }
}

struct norm_err {
    const char *base; /* "@" = workspace */
    const char *home;
    const char *path;
    int err;
};

Test(path_normalize, errors)
{
    static const struct norm_err cases[] = {
        {"@", "", "loop1", ELOOP}, {"@", "", "loop2/x", ELOOP},
        {"@", "", "self", ELOOP},  {"@", "", "src/../self/x", ELOOP},
        {"@", "", "", EINVAL},     {"relative/base", "", "x", EINVAL},
        {"", "", "x", EINVAL},     {NULL, "", "x", EINVAL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct norm_err *c = &cases[k];
        const char *base = c->base && strcmp(c->base, "@") == 0 ? ws : c->base;
        char out[PD_PATH_MAX] = "";
        errno = 0;
        int rc = pd_path_normalize(base, c->home, c->path, out, sizeof out);
        int e = errno;
        cr_expect_eq(rc, -1, "pd_path_normalize(base=%s, \"%s\"): expected -1, got %d (\"%s\")",
                     TP_S(base), c->path, rc, out);
        if (rc == -1)
            cr_expect_eq(e, c->err, "pd_path_normalize(base=%s, \"%s\"): expected errno %s, got %s",
                         TP_S(base), c->path, strerror(c->err), strerror(e));
    }
}

/* A relative base is refused even for "~/" when home is unknown, but an
 * absolute path never needs the base. */
Test(path_normalize, base_only_needed_for_relative_paths)
{
    char out[PD_PATH_MAX];
    cr_expect_eq(pd_path_normalize("relative", "", "/abs/x", out, sizeof out), 0);
    cr_expect_str_eq(out, "/abs/x");
    cr_expect_eq(pd_path_normalize(NULL, "/h/u", "~/x", out, sizeof out), 0);
    cr_expect_str_eq(out, "/h/u/x");
}

Test(path_normalize, too_long)
{
    char out[16];
    errno = 0;
    cr_expect_eq(pd_path_normalize("/", "", "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaa/bbbbbbbbbbbbbbbbb", out,
                                   sizeof out),
                 -1);
    cr_expect_eq(errno, ENAMETOOLONG);

    static char huge[3 * PD_PATH_MAX];
    memset(huge, 'a', sizeof huge - 1);
    huge[0] = '/';
    huge[sizeof huge - 1] = '\0';
    char big[PD_PATH_MAX];
    errno = 0;
    cr_expect_eq(pd_path_normalize("/", "", huge, big, sizeof big), -1);
    cr_expect_eq(errno, ENAMETOOLONG);
}

/* Many components of ".." cannot climb above "/". */
Test(path_normalize, dotdot_stops_at_root)
{
    char out[PD_PATH_MAX];
    cr_assert_eq(
        pd_path_normalize(ws, "", "../../../../../../../../../../../../..", out, sizeof out), 0);
    cr_expect_str_eq(out, "/");
    cr_assert_eq(
        pd_path_normalize(ws, "", "../../../../../../../../../../../../../etc/x", out, sizeof out),
        0);
    cr_expect_str_eq(out, "/etc/x");
}

/* ---- pd_path_normalize_name ------------------------------------------------ */

/* A call on the name itself: the directory resolved, the last component as
 * written, so a link is the link (src/link is not .env), a loop is no error
 * (rm loop1), and a link in the directory part is still followed. */
static const struct norm_case name_cases[] = {
    {NULL, "src/link", "@/src/link"},
    {"@/src", "link", "@/src/link"},
    {NULL, "loop1", "@/loop1"},
    {NULL, "self", "@/self"},
    {NULL, "dangling", "@/dangling"},
    {NULL, "abslink", "@/abslink"},
    {NULL, "chain1", "@/chain1"},
    {NULL, "rootlink", "@/rootlink"},
    {NULL, "src/dlink/", "@/src/dlink"}, /* trailing slashes dropped */
    {NULL, "linkdir//", "@/linkdir"},
    /* the directory part is resolved */
    {NULL, "linkdir/c", "@/a/b/c"},
    {NULL, "src/dlink/b", "@/a/b"},
    {NULL, "abslink/inside", "%/inside"},
    {NULL, "abslink/new", "%/new"},
    {NULL, "deep/d2/up", "@/deep/d2/up"},
    {NULL, "missing/../src/link", "@/src/link"},
    {"@/src", "../src/link", "@/src/link"},
    /* no name of its own: resolved whole */
    {NULL, "linkdir/..", "@/a"},
    {NULL, "linkdir/.", "@/a/b"},
    {NULL, ".", "@"},
    {NULL, "/", "/"},
    {NULL, "//", "/"},
    /* plain names, relative and absolute, existing or not */
    {NULL, "a.txt", "@/a.txt"},
    {NULL, "new/dir/x", "@/new/dir/x"},
    {NULL, "/x", "/x"},
    {NULL, "/usr/../x", "/x"},
    {NULL, "~/x", "/h/u/x"},
    {NULL, "~", "@/~"}, /* a file called "~": the kernel expands nothing */
};

Test(path_normalize, name_table)
{
    for (size_t k = 0; k < sizeof name_cases / sizeof name_cases[0]; k++) {
        const struct norm_case *c = &name_cases[k];
        char base[PD_PATH_MAX], want[PD_PATH_MAX], out[PD_PATH_MAX];
        expand(c->base ? c->base : "@", base, sizeof base);
        expand(c->want, want, sizeof want);
        out[0] = '\0';
        errno = 0;
        int rc = pd_path_normalize_name(base, "/h/u", c->path, out, sizeof out);
        cr_expect_eq(rc, 0, "pd_path_normalize_name(base=%s, \"%s\"): rc %d errno %s", base,
                     c->path, rc, strerror(errno));
        if (rc == 0)
            cr_expect_str_eq(out, want,
                             "pd_path_normalize_name(base=%s, \"%s\"): expected \"%s\", got \"%s\"",
                             base, c->path, want, out);
    }
}

/* Where the last component is no link, the name is the followed path. */
Test(path_normalize, name_agrees_where_no_link_ends_the_path)
{
    static const char *const rels[] = {"src/main.go", "linkdir/c/file", "src/dlink/b", "a/b/c",
                                       "file",        "nope/x",         NULL};
    for (size_t k = 0; rels[k]; k++) {
        char a[PD_PATH_MAX], b[PD_PATH_MAX];
        cr_assert_eq(pd_path_normalize(ws, "", rels[k], a, sizeof a), 0);
        cr_assert_eq(pd_path_normalize_name(ws, "", rels[k], b, sizeof b), 0);
        cr_expect_str_eq(a, b, "%s", rels[k]);
    }
}

Test(path_normalize, name_errors)
{
    char out[PD_PATH_MAX];
    static const struct {
        const char *base, *path;
        int err;
    } cases[] = {
        {"@", "loop1/x", ELOOP}, /* a loop in the directory part still is one */
        {"@", "self/x", ELOOP},  {"@", "", EINVAL},        {"rel", "x", EINVAL},
        {NULL, "x", EINVAL},     {"@", "loop2/..", ELOOP},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *base = cases[k].base && strcmp(cases[k].base, "@") == 0 ? ws : cases[k].base;
        errno = 0;
        int rc = pd_path_normalize_name(base, "", cases[k].path, out, sizeof out);
        int e = errno;
        cr_expect_eq(rc, -1, "name(base=%s, \"%s\"): expected -1", TP_S(base), cases[k].path);
        cr_expect_eq(e, cases[k].err, "name(base=%s, \"%s\"): errno %s, expected %s", TP_S(base),
                     cases[k].path, strerror(e), strerror(cases[k].err));
    }
    char small[8];
    errno = 0;
    cr_expect_eq(pd_path_normalize_name("/", "", "/tmp/a-long-name", small, sizeof small), -1);
    cr_expect_eq(errno, ENAMETOOLONG);
}
