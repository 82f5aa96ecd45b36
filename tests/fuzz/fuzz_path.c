/* tests/fuzz/fuzz_path.c - libFuzzer target for the path normaliser
 * (policy/path.c): pd_path_clean on the input, and pd_path_normalize /
 * pd_path_normalize_name of it joined to a base in a fixed temp tree (made
 * once: folders, files, relative and absolute links, a link to "..", a
 * dangling link, a loop; never written to). Built by
 * tests/fuzz/CMakeLists.txt, run by tests/fuzz/run.sh (corpus
 * tests/fuzz/corpus/path).
 * The input's first byte picks the base and the output buffer of the clean
 * call; the rest, up to a NUL, is the path.
 * Invariants checked:
 *   - a cleaned path is clean: no empty, "." or inner ".." component, no
 *     trailing '/', absolute stays absolute, cleaning it again gives the same;
 *     into a short buffer it is cut, never overrun, always terminated;
 *   - a normalised path is absolute and clean (cleaning it changes nothing),
 *     the same twice, and normalising it again gives it back (links in the
 *     part that exists are resolved already);
 *   - below a folder that does not exist, normalising is cleaning;
 *   - the name form is the normalised folder plus the last component. */
#include "tests/fuzz/fuzz_common.h"

static char base_ws[PD_PATH_MAX], base_deep[PD_PATH_MAX], base_missing[PD_PATH_MAX],
    home[PD_PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *root = fz_tree("path");
    fz_workspace();
    fz_mkdir("ws/a/b/c");
    fz_put("ws/a/b/file", "x\n");
    fz_link("ws/a/up", "..");
    fz_link("ws/a/self", ".");
    fz_link("ws/a/abs", "@/ws/a/b");
    fz_link("ws/a/root", "/");
    fz_link("ws/a/dangling", "nothere/x");
    fz_link("ws/a/loop1", "loop2");
    fz_link("ws/a/loop2", "loop1");
    fz_link("ws/a/chain", "abs/c/../file");
    fz_link("ws/a/filedir", "b/file/sub");
    fz_link("ws/a/dots", "../a/./b//c/");
    fz_link("home/ws", "@/ws");
    snprintf(base_ws, sizeof base_ws, "%s/ws", root);
    snprintf(base_deep, sizeof base_deep, "%s/ws/a/b/c", root);
    snprintf(base_missing, sizeof base_missing, "%s/ws/missing/deeper", root);
    snprintf(home, sizeof home, "%s/home", root);
    return 0;
}

/* Is p clean as pd_path_clean writes it? */
static bool is_clean(const char *p)
{
    if (!p[0])
        return false;
    if (strcmp(p, ".") == 0 || strcmp(p, "/") == 0)
        return true;
    bool abs = p[0] == '/';
    const char *s = abs ? p + 1 : p;
    bool leading = true; /* a relative path may start with ".." components */
    for (;;) {
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == 0)
            return false; /* "//" or a trailing '/' */
        if (len == 1 && s[0] == '.')
            return false;
        bool dotdot = len == 2 && s[0] == '.' && s[1] == '.';
        if (dotdot && (abs || !leading))
            return false;
        if (!dotdot)
            leading = false;
        if (!e)
            return true;
        s = e + 1;
    }
}

static void check_clean(const char *path, size_t small)
{
    char out[PD_PATH_MAX], again[PD_PATH_MAX];
    pd_path_clean(path, out, sizeof out);
    CHECK(fz_terminated(out, sizeof out));
    if (strlen(path) < sizeof out) { /* nothing was cut */
        if (!is_clean(out)) {
            fprintf(stderr, "pd_path_clean(\"%s\") = \"%s\"\n", path, out);
            FAIL("a cleaned path is clean");
        }
        CHECK((path[0] == '/') == (out[0] == '/'));
        pd_path_clean(out, again, sizeof again);
        CHECK(strcmp(out, again) == 0);
    }
    /* a short buffer of exactly small bytes (ASan sees any overrun) */
    char *buf = malloc(small ? small : 1);
    CHECK(buf != NULL);
    pd_path_clean(path, buf, small);
    if (small) {
        CHECK(memchr(buf, '\0', small) != NULL);
        CHECK(strlen(buf) < small);
    }
    free(buf);
}

static void check_normalize(const char *base, const char *path)
{
    char out[PD_PATH_MAX], again[PD_PATH_MAX], clean[PD_PATH_MAX];
    memset(out, 0x5a, sizeof out);
    errno = 0;
    if (pd_path_normalize(base, home, path, out, sizeof out) != 0) {
        CHECK(errno == ENAMETOOLONG || errno == ELOOP || errno == EINVAL);
        CHECK(errno != EINVAL || !path[0]);
        /* the same failure again */
        int e = errno;
        CHECK(pd_path_normalize(base, home, path, again, sizeof again) != 0 && errno == e);
        return;
    }
    CHECK(fz_terminated(out, sizeof out));
    CHECK(out[0] == '/');
    pd_path_clean(out, clean, sizeof clean);
    if (strcmp(clean, out) != 0) {
        fprintf(stderr, "normalize(%s, \"%s\") = \"%s\", not clean (\"%s\")\n", base, path, out,
                clean);
        FAIL("a normalised path is clean");
    }
    CHECK(pd_path_normalize(base, home, path, again, sizeof again) == 0);
    CHECK(strcmp(out, again) == 0);
    /* idempotent: what exists in it is resolved already. Only inside the
     * fixed tree (elsewhere, /proc/self/... changes under our feet). */
    if (pd_path_under(out, fz_root)) {
        if (pd_path_normalize("/", home, out, again, sizeof again) != 0) {
            fprintf(stderr, "normalize(%s, \"%s\") = \"%s\", which fails (%s)\n", base, path, out,
                    strerror(errno));
            FAIL("a normalised path normalises");
        }
        if (strcmp(out, again) != 0) {
            fprintf(stderr, "normalize(%s, \"%s\") = \"%s\", then \"%s\"\n", base, path, out,
                    again);
            FAIL("normalising is idempotent");
        }
    }
    /* the output buffer is honoured: one byte less than needed fails */
    size_t n = strlen(out);
    char *tight = malloc(n);
    CHECK(tight != NULL);
    CHECK(pd_path_normalize(base, home, path, tight, n) != 0 && errno == ENAMETOOLONG);
    free(tight);

    /* the name form: the folder normalised, the last component as written */
    char name[PD_PATH_MAX];
    if (pd_path_normalize_name(base, home, path, name, sizeof name) == 0) {
        CHECK(name[0] == '/');
        size_t end = strlen(path);
        while (end > 1 && path[end - 1] == '/')
            end--;
        size_t start = end;
        while (start > 0 && path[start - 1] != '/')
            start--;
        size_t len = end - start;
        bool dots = (len == 1 && path[start] == '.') ||
                    (len == 2 && path[start] == '.' && path[start + 1] == '.');
        if (len == 0 || dots) {
            CHECK(strcmp(name, out) == 0);
        } else {
            const char *slash = strrchr(name, '/');
            CHECK(slash != NULL);
            CHECK(strlen(slash + 1) == len && memcmp(slash + 1, path + start, len) == 0);
        }
    }
}

/* Below a folder that does not exist, nothing is resolved: normalising is
 * cleaning base/path (for a relative path without ".."). */
static void check_missing(const char *path)
{
    if (path[0] == '/' || path[0] == '~' || !path[0])
        return;
    for (const char *s = path; (s = strstr(s, "..")) != NULL; s++)
        if ((s == path || s[-1] == '/') && (s[2] == '/' || s[2] == '\0'))
            return;
    char joined[2 * PD_PATH_MAX], clean[PD_PATH_MAX], out[PD_PATH_MAX];
    if ((size_t)snprintf(joined, sizeof joined, "%s/%s", base_missing, path) >= PD_PATH_MAX)
        return;
    if (pd_path_normalize(base_missing, home, path, out, sizeof out) != 0)
        return;
    pd_path_clean(joined, clean, sizeof clean);
    if (strcmp(out, clean) != 0) {
        fprintf(stderr, "normalize(missing, \"%s\") = \"%s\", clean \"%s\"\n", path, out, clean);
        FAIL("below a missing folder normalising is cleaning");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t sel = data[0];
    char *path = fz_cstr(data + 1, size - 1);
    const char *const bases[] = {base_ws, base_deep, base_missing, "/", fz_root};
    check_clean(path, (size_t)(sel >> 3) % 24);
    check_normalize(bases[sel % 5], path);
    check_missing(path);
    free(path);
    return 0;
}
