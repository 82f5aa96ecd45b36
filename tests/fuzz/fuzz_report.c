/* tests/fuzz/fuzz_report.c - libFuzzer target for the preload's report
 * records (policy/report.c), as the launcher decodes the datagrams it
 * receives. Built by tests/fuzz/CMakeLists.txt, run by tests/fuzz/run.sh
 * (corpus tests/fuzz/corpus/report: records made by pd_report_encode).
 * The input is a record for pd_report_decode; it is also cut at NUL bytes
 * into the fields of a record to encode (the first byte picks the kind and
 * the size of the buffer encoded into).
 * Invariants checked:
 *   - decode then encode: the record re-encodes, decodes to the same fields
 *     when they fit their budgets (else cut, marked "..."), and re-encoding
 *     that is stable;
 *   - encode then decode: any fields encode into any buffer without overrun,
 *     and decode back equal, or cut to a prefix that ends in "..." (argv: a
 *     prefix of the entries, only the last one cut). */
#include "tests/fuzz/fuzz_common.h"

#include "policy/report.h"

/* report.c's budgets (escaped bytes of each fixed field) */
enum { B_WORD = 64, B_REASON = 512, B_PATTERN = 1024, B_PATH = 2560, B_PROGRAM = 256 };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static struct pd_report_decoded d1, d2, d3;
static char enc1[PD_REPORT_MAX + 1], enc2[PD_REPORT_MAX + 1];

static size_t escaped(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += (*s == '\\' || *s == '\t' || *s == '\n') ? 2 : 1;
    return n;
}

static const char *field(const struct pd_report *r, int k)
{
    switch (k) {
    case 0:
        return r->kind;
    case 1:
        return r->op;
    case 2:
        return r->path;
    case 3:
        return r->resolved;
    case 4:
        return r->key;
    case 5:
        return r->pattern;
    case 6:
        return r->reason;
    default:
        return r->program;
    }
}

static const size_t budgets[8] = {B_WORD, B_WORD,    B_PATH,   B_PATH,
                                  B_WORD, B_PATTERN, B_REASON, B_PROGRAM};

/* got is want, or want cut: a prefix of it followed by "..." */
static bool same_or_cut(const char *want, const char *got)
{
    if (strcmp(want, got) == 0)
        return true;
    size_t gl = strlen(got);
    return gl >= 3 && strcmp(got + gl - 3, "...") == 0 && strncmp(want, got, gl - 3) == 0 &&
           strlen(want) > gl - 3;
}

static void check_decoded(const struct pd_report_decoded *d)
{
    const struct pd_report *r = &d->r;
    for (int k = 0; k < 8; k++) {
        const char *f = field(r, k);
        CHECK(f != NULL && f >= d->text && f <= d->text + PD_REPORT_MAX);
    }
    CHECK(r->argc <= PD_REPORT_MAX_ARGS);
    CHECK(r->argc == 0 || r->argv == d->argv);
    for (size_t k = 0; k < r->argc; k++)
        CHECK(r->argv[k] >= d->text && r->argv[k] <= d->text + PD_REPORT_MAX);
}

static void decode_encode(const uint8_t *data, size_t size)
{
    if (pd_report_decode((const char *)data, size, &d1) != 0)
        return;
    check_decoded(&d1);
    size_t n1 = pd_report_encode(&d1.r, enc1, sizeof enc1);
    CHECK(n1 > 0 && n1 <= PD_REPORT_MAX);
    CHECK(enc1[n1] == '\0' && memchr(enc1, '\n', n1) == NULL);
    CHECK(pd_report_decode(enc1, n1, &d2) == 0);
    check_decoded(&d2);
    /* every fixed field fits its budget and the record its datagram: the
     * fields come back exactly */
    bool fits = true;
    size_t total = 4 + 1 + 24; /* magic, separators and pid are counted below */
    for (int k = 0; k < 8; k++) {
        size_t e = escaped(field(&d1.r, k));
        fits = fits && e <= budgets[k];
        total += e + 1;
    }
    for (size_t k = 0; k < d1.r.argc; k++)
        total += escaped(d1.r.argv[k]) + 1;
    fits = fits && total + 3 <= PD_REPORT_MAX;
    for (int k = 0; k < 8; k++) {
        if (fits && strcmp(field(&d1.r, k), field(&d2.r, k)) != 0) {
            fprintf(stderr, "field %d: \"%s\" came back as \"%s\"\n", k, field(&d1.r, k),
                    field(&d2.r, k));
            FAIL("a record that fits round-trips");
        }
        CHECK(same_or_cut(field(&d1.r, k), field(&d2.r, k)));
    }
    CHECK(d2.r.pid == d1.r.pid);
    CHECK(d2.r.argc <= d1.r.argc);
    if (fits)
        CHECK(d2.r.argc == d1.r.argc);
    for (size_t k = 0; k < d2.r.argc; k++) {
        if (k + 1 < d2.r.argc)
            CHECK(strcmp(d1.r.argv[k], d2.r.argv[k]) == 0);
        else
            CHECK(same_or_cut(d1.r.argv[k], d2.r.argv[k]));
    }
    /* and what was cut once is stable */
    size_t n2 = pd_report_encode(&d2.r, enc2, sizeof enc2);
    CHECK(n2 == n1 && memcmp(enc1, enc2, n1) == 0);
}

static void encode_decode(const uint8_t *data, size_t size)
{
    static const char *const kinds[] = {PD_REPORT_DENY, PD_REPORT_AUDIT, PD_REPORT_COVERAGE,
                                        PD_REPORT_ERROR, PD_REPORT_BLOCKED};
    static const char *argv[PD_REPORT_MAX_ARGS + 8];
    if (size < 2)
        return;
    const uint8_t sel = data[0];
    char *text = malloc(size);
    CHECK(text != NULL);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    /* fields cut at NUL bytes: op path resolved key pattern reason program argv.. */
    const char *f[7] = {"", "", "", "", "", "", ""};
    size_t nf = 0, argc = 0;
    for (char *p = text; p < text + size - 1; p += strlen(p) + 1) {
        if (nf < 7)
            f[nf++] = p;
        else if (argc < sizeof argv / sizeof argv[0])
            argv[argc++] = p;
    }
    long pid = (long)((unsigned long)size * 2654435761u) - (sel & 1 ? 0 : 1L << 30);
    struct pd_report r = {.kind = kinds[sel % 5],
                          .op = f[0],
                          .path = f[1],
                          .resolved = f[2],
                          .key = f[3],
                          .pattern = f[4],
                          .reason = f[5],
                          .pid = pid,
                          .program = f[6],
                          .argc = argc,
                          .argv = argc ? argv : NULL};
    if (sel & 0x80)
        r.path = NULL; /* an absent field is written empty */
    /* into a buffer of exactly len bytes */
    size_t len = sel & 0x40 ? (size_t)(sel & 0x3f) * 37 : PD_REPORT_MAX;
    char *buf = malloc(len ? len : 1);
    CHECK(buf != NULL);
    size_t n = pd_report_encode(&r, buf, len);
    CHECK(n <= len && n <= PD_REPORT_MAX);
    if (n > 0) {
        if (n < len)
            CHECK(buf[n] == '\0');
        CHECK(memchr(buf, '\n', n) == NULL && memchr(buf, '\0', n) == NULL);
        if (pd_report_decode(buf, n, &d3) != 0) {
            fprintf(stderr, "the record \"%.*s\" does not decode\n", (int)n, buf);
            FAIL("an encoded record decodes");
        }
        check_decoded(&d3);
        CHECK(strcmp(d3.r.kind, r.kind) == 0);
        CHECK(d3.r.pid == r.pid);
        for (int k = 1; k < 8; k++) {
            const char *want = field(&r, k);
            CHECK(same_or_cut(want ? want : "", field(&d3.r, k)));
        }
        CHECK(d3.r.argc <= argc && d3.r.argc <= PD_REPORT_MAX_ARGS);
        for (size_t k = 0; k < d3.r.argc; k++) {
            if (k + 1 < d3.r.argc)
                CHECK(strcmp(argv[k], d3.r.argv[k]) == 0);
            else
                CHECK(same_or_cut(argv[k], d3.r.argv[k]));
        }
    }
    free(buf);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decode_encode(data, size);
    encode_decode(data, size);
    return 0;
}
