/* tests/fuzz/fuzz_glob.c - libFuzzer target for the glob matcher
 * (policy/glob.c). The input is a pattern, a NUL, a path (relative to the
 * workspace /w, or absolute: then it lies outside), optionally a NUL and a
 * flags byte (bit 0: fold case, bit 1: no home). Built by
 * tests/fuzz/CMakeLists.txt, run by tests/fuzz/run.sh (corpus
 * tests/fuzz/corpus/glob, dictionary tests/fuzz/glob.dict).
 * Invariants checked: pd_glob_check's message is set exactly when it
 * refuses; pd_glob_match gives the same answer twice and is blind to what
 * it documents it ignores ("." components, repeated and trailing slashes of
 * the path); a match covers everything below the path; the path's own
 * text, every special byte escaped, is a pattern that matches it (also
 * folding case) and passes pd_glob_check; pd_glob_component matches a
 * component against itself escaped and against "*". */
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static bool match(const char *pat, const char *path, const char *home, bool fold)
{
    char abs[PD_PATH_MAX + 8];
    if (path[0] == '/')
        return pd_glob_match(pat, NULL, path, home, fold);
    snprintf(abs, sizeof abs, "/w%s%s", path[0] ? "/" : "", path);
    return pd_glob_match(pat, path, abs, home, fold);
}

/* path with "." components and doubled slashes put in, same meaning */
static void noisy(const char *path, char *out, size_t len)
{
    size_t n = 0;
    const char *s = path;
    if (*s == '/')
        out[n++] = *s++;
    if (n + 3 < len) {
        memcpy(out + n, "./", 2);
        n += 2;
    }
    for (; *s && n + 4 < len; s++) {
        out[n++] = *s;
        if (*s == '/') {
            memcpy(out + n, "./", 2);
            n += 2;
        }
    }
    out[n++] = '/';
    out[n] = '\0';
}

/* The path's components, every special byte escaped; false when the path
 * has a component that escaping cannot express (".." or "." or empty: the
 * matcher skips "." and ".." is refused) or too many. */
static bool literal(const char *path, char *out, size_t len)
{
    size_t n = 0, parts = 0;
    const char *s = path;
    if (*s == '/')
        out[n++] = *s++;
    if (!*s)
        return false;
    for (;;) {
        const char *e = strchr(s, '/');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if (l == 0 || (l == 1 && s[0] == '.') || (l == 2 && s[0] == '.' && s[1] == '.'))
            return false;
        if (++parts > 200)
            return false;
        for (size_t k = 0; k < l; k++) {
            if (n + 3 >= len)
                return false;
            if (strchr("*?[]\\~!", s[k]))
                out[n++] = '\\';
            out[n++] = s[k];
        }
        if (!e)
            break;
        if (n + 2 >= len)
            return false;
        out[n++] = '/';
        s = e + 1;
    }
    out[n] = '\0';
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fz_cstr(data, size);
    const char *pat = buf;
    size_t pl = strlen(pat);
    const char *path = pl < size ? buf + pl + 1 : "";
    size_t tl = strlen(path);
    uint8_t flags = pl + 1 + tl + 1 < size ? (uint8_t)path[tl + 1] : 0;
    const bool fold = flags & 1;
    const char *home = flags & 2 ? "" : "/home/u";
    if (strlen(path) >= PD_PATH_MAX - 16) {
        free(buf);
        return 0;
    }

    char msg[256];
    msg[0] = '\0';
    int ok = pd_glob_check(pat, msg, sizeof msg);
    CHECK(ok == 0 || ok == -1);
    CHECK((ok == -1) == (msg[0] != '\0'));
    CHECK(fz_terminated(msg, sizeof msg));

    bool m = match(pat, path, home, fold);
    CHECK(m == match(pat, path, home, fold));
    if (path[0]) {
        char alt[2 * PD_PATH_MAX];
        noisy(path, alt, sizeof alt);
        if (strlen(alt) < PD_PATH_MAX - 16 && match(pat, alt, home, fold) != m) {
            fprintf(stderr, "pattern \"%s\": \"%s\" %s, \"%s\" %s\n", pat, path,
                    m ? "matches" : "does not", alt, m ? "does not" : "matches");
            FAIL("the same path matches alike");
        }
        /* a match covers what is below */
        if (m) {
            char below[PD_PATH_MAX + 16];
            snprintf(below, sizeof below, "%s%sx/y", path,
                     path[strlen(path) - 1] == '/' ? "" : "/");
            CHECK(match(pat, below, home, fold));
        }
    }

    /* the path as a literal pattern matches it */
    char lit[2 * PD_PATH_MAX];
    if (path[0] != '/' && literal(path, lit, sizeof lit)) {
        CHECK(pd_glob_check(lit, msg, sizeof msg) == 0);
        if (!match(lit, path, home, false) || !match(lit, path, home, true)) {
            fprintf(stderr, "the literal pattern \"%s\" does not match \"%s\"\n", lit, path);
            FAIL("a path matches itself escaped");
        }
    }

    /* one component against itself */
    const char *comp = pl ? pat : "x";
    size_t cl = strcspn(comp, "/");
    if (cl) {
        char esc[2 * 4096 + 2];
        size_t n = 0;
        for (size_t k = 0; k < cl && n + 2 < sizeof esc; k++) {
            if (strchr("*?[]\\", comp[k]))
                esc[n++] = '\\';
            esc[n++] = comp[k];
        }
        CHECK(pd_glob_component(esc, n, comp, cl, false));
        CHECK(pd_glob_component(esc, n, comp, cl, true));
        CHECK(pd_glob_component("*", 1, comp, cl, fold));
        /* the component as a pattern, against the path's first component */
        size_t sl = strcspn(path, "/");
        CHECK(pd_glob_component(comp, cl, path, sl, fold) ==
              pd_glob_component(comp, cl, path, sl, fold));
    }
    free(buf);
    return 0;
}
