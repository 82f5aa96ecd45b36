/* bench/outscan_bench.c - throughput of the output scanner (launcher/outscan/outscan.h)
 * on deterministic mixed text (source code, logs, base64 blobs, hex dumps, a
 * few planted secrets) with 50 known secret values loaded. Figures are printed
 * as absolute MB/s (10^6 bytes per second) and as ratios against baselines
 * measured in the same run on the same buffer: memchr for an absent byte (a
 * pure read pass) and memcpy (read + write, what releasing the output costs).
 * Each is timed by wall clock and by thread CPU time; on a busy machine the
 * CPU-time figures are the stable ones.
 *
 * usage: outscan_bench [--mb N] [--runs N (at most 64)] [--values N]
 * build by hand: gcc -O2 -std=c17 -D_GNU_SOURCE -I. -o outscan_bench \
 *                    bench/outscan_bench.c launcher/outscan/outscan*.c */
#include "launcher/outscan/outscan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    rng_state = x;
    return x;
}

static size_t rnd_below(size_t n)
{
    return (size_t)(rnd() % n);
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

struct stamp {
    double wall, cpu;
};

static struct stamp stamp_now(void)
{
    struct stamp s = {clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_THREAD_CPUTIME_ID)};
    return s;
}

struct best {
    double wall, cpu;
};

#define BEST_INIT                                                                                  \
    {                                                                                              \
        1e9, 1e9                                                                                   \
    }

static void keep_best(struct best *b, struct stamp from, struct stamp to)
{
    if (to.wall - from.wall < b->wall)
        b->wall = to.wall - from.wall;
    if (to.cpu - from.cpu < b->cpu)
        b->cpu = to.cpu - from.cpu;
}

struct text {
    char *p;
    size_t n, cap;
};

static void put(struct text *t, const char *s, size_t n)
{
    if (t->n + n > t->cap)
        n = t->cap - t->n;
    memcpy(t->p + t->n, s, n);
    t->n += n;
}

static void puts_(struct text *t, const char *s)
{
    put(t, s, strlen(s));
}

static const char alnum_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
static const char b64_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void rand_alnum(char *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = alnum_chars[rnd_below(62)];
    out[n] = '\0';
}

static void b64_encode(const unsigned char *p, size_t n, char *o)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        o[k++] = b64_chars[(v >> 18) & 63];
        o[k++] = b64_chars[(v >> 12) & 63];
        o[k++] = i + 1 < n ? b64_chars[(v >> 6) & 63] : '=';
        o[k++] = i + 2 < n ? b64_chars[v & 63] : '=';
    }
    o[k] = '\0';
}

static const char *const words[] = {
    "static", "const",  "return", "struct", "buffer", "length", "index",  "value",  "parse",
    "config", "result", "error",  "handle", "client", "server", "stream", "token",  "cache",
    "policy", "scan",   "output", "record", "header", "module", "thread", "socket", "path",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

static void gen_code(struct text *t)
{
    char line[256];
    const char *a = words[rnd_below(NWORDS)], *b = words[rnd_below(NWORDS)];
    switch (rnd_below(5)) {
    case 0:
        snprintf(line, sizeof(line), "static int %s_%s(const char *%s, size_t n)\n{\n", a, b, a);
        break;
    case 1:
        snprintf(line, sizeof(line), "    if (%s->%s == NULL || n > %zu)\n        return -1;\n", a,
                 b, rnd_below(4096));
        break;
    case 2:
        snprintf(line, sizeof(line), "    /* %s the %s before the %s is released */\n", a, b,
                 words[rnd_below(NWORDS)]);
        break;
    case 3:
        snprintf(line, sizeof(line), "    for (size_t i = 0; i < %s_len; i++) %s[i] = %s(i);\n", a,
                 b, words[rnd_below(NWORDS)]);
        break;
    default:
        snprintf(line, sizeof(line), "import { %s%s } from \"./%s/%s.js\"; // sk- eyJ AKIA\n", a, b,
                 a, b);
        break;
    }
    puts_(t, line);
}

static void gen_log(struct text *t)
{
    static const char *const lv[] = {"INFO", "DEBUG", "WARN", "ERROR"};
    char id[17], line[320];
    rand_alnum(id, 16);
    snprintf(
        line, sizeof(line),
        "2024-%02zu-%02zuT%02zu:%02zu:%02zu.%03zuZ %s [%s] GET https://api.example.com/v1/%s/%s"
        "?page=%zu status=%zu took=%zums user=%s@example.com\n",
        rnd_below(12) + 1, rnd_below(28) + 1, rnd_below(24), rnd_below(60), rnd_below(60),
        rnd_below(1000), lv[rnd_below(4)], id, words[rnd_below(NWORDS)], words[rnd_below(NWORDS)],
        rnd_below(100), 200 + rnd_below(300), rnd_below(900), words[rnd_below(NWORDS)]);
    puts_(t, line);
}

static void gen_b64(struct text *t)
{
    unsigned char raw[57];
    char enc[80];
    size_t lines = 4 + rnd_below(40);
    for (size_t l = 0; l < lines; l++) {
        for (size_t i = 0; i < sizeof(raw); i++)
            raw[i] = (unsigned char)rnd();
        b64_encode(raw, sizeof(raw), enc);
        puts_(t, enc);
        puts_(t, "\n");
    }
}

static void gen_hex(struct text *t)
{
    size_t lines = 4 + rnd_below(40);
    char line[128];
    for (size_t l = 0; l < lines; l++) {
        int o = snprintf(line, sizeof(line), "%08zx: ", (t->n & 0xfffffff0u));
        unsigned char b[16];
        for (int i = 0; i < 16; i++) {
            b[i] = (unsigned char)rnd();
            o += snprintf(line + o, sizeof(line) - (size_t)o, "%02x%s", b[i], i % 2 ? " " : "");
        }
        line[o++] = ' ';
        for (int i = 0; i < 16; i++)
            line[o++] = b[i] >= 0x20 && b[i] < 0x7f ? (char)b[i] : '.';
        line[o++] = '\n';
        put(t, line, (size_t)o);
    }
}

#define NVAL_MAX 1000

struct values {
    char v[NVAL_MAX][72];
    size_t n;
};

static void make_values(struct values *vs, size_t n)
{
    vs->n = n;
    for (size_t i = 0; i < n; i++) {
        char body[64];
        switch (i % 4) {
        case 0:
            rand_alnum(body, 40);
            snprintf(vs->v[i], sizeof(vs->v[i]), "sk-proj-%s", body);
            break;
        case 1:
            for (int k = 0; k < 40; k++)
                body[k] = "0123456789abcdef"[rnd_below(16)];
            body[40] = '\0';
            snprintf(vs->v[i], sizeof(vs->v[i]), "%s", body);
            break;
        case 2:
            for (int k = 0; k < 40; k++)
                body[k] = b64_chars[rnd_below(64)];
            body[40] = '\0';
            snprintf(vs->v[i], sizeof(vs->v[i]), "%s", body);
            break;
        default:
            rand_alnum(body, 16 + rnd_below(24));
            snprintf(vs->v[i], sizeof(vs->v[i]), "pw-%s", body);
            break;
        }
    }
}

/* A secret every ~256 KiB: a known value raw, in base64 or in hex, or a format token. */
static size_t plant(struct text *t, const struct values *vs)
{
    const char *v = vs->v[rnd_below(vs->n)];
    char buf[256];
    switch (rnd_below(4)) {
    case 0:
        snprintf(buf, sizeof(buf), "export TOKEN=%s\n", v);
        break;
    case 1: {
        char enc[128];
        b64_encode((const unsigned char *)v, strlen(v), enc);
        snprintf(buf, sizeof(buf), "auth: %s\n", enc);
        break;
    }
    case 2: {
        size_t o = 0;
        for (size_t i = 0; v[i] != '\0'; i++)
            o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%02x", (unsigned char)v[i]);
        snprintf(buf + o, sizeof(buf) - o, "\n");
        break;
    }
    default: {
        char id[17];
        rand_alnum(id, 16);
        for (char *c = id; *c; c++)
            if (*c >= 'a' && *c <= 'z')
                *c = (char)(*c - 'a' + 'A');
        snprintf(buf, sizeof(buf), "aws_access_key_id = AKIA%s\n", id);
        break;
    }
    }
    puts_(t, buf);
    return 1;
}

static size_t generate(struct text *t, const struct values *vs)
{
    size_t planted = 0, next_plant = 1 << 18;
    while (t->n < t->cap) {
        size_t kind = rnd_below(10);
        if (kind < 4)
            gen_code(t);
        else if (kind < 7)
            gen_log(t);
        else if (kind < 9)
            gen_b64(t);
        else
            gen_hex(t);
        if (t->n >= next_plant && t->n + 256 < t->cap) {
            planted += plant(t, vs);
            next_plant += 1 << 18;
        }
    }
    return planted;
}

static volatile size_t sink;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    size_t mb = 100, runs = 5, nvalues = 50;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--mb") == 0)
            mb = (size_t)strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--runs") == 0)
            runs = (size_t)strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--values") == 0)
            nvalues = (size_t)strtoul(argv[i + 1], NULL, 10);
    }
    if (mb == 0 || runs == 0 || nvalues == 0 || nvalues > NVAL_MAX) {
        fprintf(stderr, "usage: outscan_bench [--mb N] [--runs N] [--values 1..%d]\n", NVAL_MAX);
        return 1;
    }
    struct text t = {NULL, 0, mb * 1000 * 1000};
    t.p = malloc(t.cap);
    char *dst = malloc(t.cap);
    static struct values vs;
    if (t.p == NULL || dst == NULL)
        return 1;
    make_values(&vs, nvalues);
    size_t planted = generate(&t, &vs);
    memset(dst, 0, t.cap);

    struct pd_outscan *scan = pd_outscan_new();
    if (scan == NULL)
        return 1;
    for (size_t i = 0; i < vs.n; i++) {
        char label[48];
        snprintf(label, sizeof(label), "env BENCH_%zu_KEY", i);
        if (pd_outscan_add_value(scan, vs.v[i], strlen(vs.v[i]), label) != 1)
            return 1;
    }
    double c0 = now();
    size_t needles = pd_outscan_needle_count(scan);
    double compile_ms = (now() - c0) * 1e3;

    /* Each figure is the best of the runs, by wall clock and by this thread's CPU
     * time (which leaves out time spent descheduled on a busy machine). */
    struct best memchr_t = BEST_INIT, memcpy_t = BEST_INIT, scan_t = BEST_INIT;
    double scan_walls[64];
    if (runs > 64)
        runs = 64;
    size_t findings = 0;
    for (size_t r = 0; r < runs; r++) {
        struct stamp a = stamp_now();
        sink = (size_t)(uintptr_t)memchr(t.p, '\x01', t.n);
        struct stamp b = stamp_now();
        memcpy(dst, t.p, t.n);
        sink += (unsigned char)dst[t.n / 2];
        struct stamp c = stamp_now();
        struct pd_outscan_result res;
        int n = pd_outscan_scan(scan, t.p, t.n, &res);
        struct stamp d = stamp_now();
        if (n < 0)
            return 1;
        findings = (size_t)n;
        pd_outscan_result_free(&res);
        keep_best(&memchr_t, a, b);
        keep_best(&memcpy_t, b, c);
        keep_best(&scan_t, c, d);
        scan_walls[r] = d.wall - c.wall;
    }
    qsort(scan_walls, runs, sizeof(scan_walls[0]), cmp_double);
    double median_scan = scan_walls[runs / 2];

    /* 1 MiB: the latency of judging one typical capture */
    const size_t mib = (size_t)1 << 20;
    size_t iters = 200;
    struct best mib_t = BEST_INIT;
    double total_mib = 0;
    for (size_t r = 0; r < iters && t.n >= mib; r++) {
        const char *slice = t.p + (r * 7919 * 64) % (t.n - mib);
        struct pd_outscan_result res;
        struct stamp a = stamp_now();
        int n = pd_outscan_scan(scan, slice, mib, &res);
        struct stamp b = stamp_now();
        if (n < 0)
            return 1;
        pd_outscan_result_free(&res);
        total_mib += b.wall - a.wall;
        keep_best(&mib_t, a, b);
    }

    double mbytes = (double)t.n / 1e6;
    printf("outscan_bench: %.0f MB mixed text, %zu known values -> %zu needles (compiled in "
           "%.2f ms), %zu planted secrets, %zu findings, best of %zu runs\n",
           mbytes, vs.n, needles, compile_ms, planted, findings, runs);
    printf("                 wall clock     cpu time\n");
    printf("  scan     %8.0f MB/s  %8.0f MB/s  (wall median %.0f MB/s)\n", mbytes / scan_t.wall,
           mbytes / scan_t.cpu, mbytes / median_scan);
    printf("  memchr   %8.0f MB/s  %8.0f MB/s  (baseline: one read pass)\n", mbytes / memchr_t.wall,
           mbytes / memchr_t.cpu);
    printf("  memcpy   %8.0f MB/s  %8.0f MB/s  (baseline: read + write)\n", mbytes / memcpy_t.wall,
           mbytes / memcpy_t.cpu);
    printf("  ratio    scan/memchr = %.3f (cpu %.3f)   scan/memcpy = %.3f (cpu %.3f)\n",
           memchr_t.wall / scan_t.wall, memchr_t.cpu / scan_t.cpu, memcpy_t.wall / scan_t.wall,
           memcpy_t.cpu / scan_t.cpu);
    printf("  1 MiB    mean %.3f ms  best %.3f ms  best cpu %.3f ms  (%zu scans; best = %.2f x "
           "memcpy of 1 MiB)\n",
           total_mib / (double)iters * 1e3, mib_t.wall * 1e3, mib_t.cpu * 1e3, iters,
           mib_t.wall / (memcpy_t.wall * (double)mib / (double)t.n));
    pd_outscan_free(scan);
    free(t.p);
    free(dst);
    return 0;
}
