/* policy/load.c - load and validate a policy file.
 *
 * The file is cut into logical entries by pd_toml_split (multi-line arrays
 * joined, comments dropped), and handed to inih through ini_parse_stream with
 * a reader that yields one short "key=@N" line per entry: inih never sees a
 * value, so Debian's 200-byte line buffer cannot cut one short. The handler
 * parses entry N's value, checks type and range, and keeps the first error
 * with the entry's real source line. */
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/hosts.h"
#include "policy/toml/toml_lex.h"

#define PD_POLICY_MAX_BYTES (1024 * 1024)

enum {
#define PD_KEY_STRV(name, doc)                    PD_KEYIDX_##name,
#define PD_KEY_BOOL(name, def, doc)               PD_KEYIDX_##name,
#define PD_KEY_INT(name, def, lo, hi, doc)        PD_KEYIDX_##name,
#define PD_KEY_FLOAT(name, def, doc)              PD_KEYIDX_##name,
#define PD_KEY_ENUM(name, ctype, def, parse, doc) PD_KEYIDX_##name,
#include "policy/policy_keys.def"
    PD_NKEYS
};

struct loader {
    struct pd_policy *p;
    const struct pd_toml_doc *doc;
    struct pd_error *err;
    size_t next; /* reader position */
    int seen_line[PD_NKEYS];
    bool failed;
};

void pd_policy_defaults(struct pd_policy *p)
{
    memset(p, 0, sizeof *p);
#define PD_KEY_STRV(name, doc)
#define PD_KEY_BOOL(name, def, doc)               p->name = def;
#define PD_KEY_INT(name, def, lo, hi, doc)        p->name = def;
#define PD_KEY_FLOAT(name, def, doc)              p->name = def;
#define PD_KEY_ENUM(name, ctype, def, parse, doc) p->name = def;
#include "policy/policy_keys.def"
}

void pd_policy_free(struct pd_policy *p)
{
#define PD_KEY_STRV(name, doc) pd_strv_free(&p->name);
#define PD_KEY_BOOL(name, def, doc)
#define PD_KEY_INT(name, def, lo, hi, doc)
#define PD_KEY_FLOAT(name, def, doc)
#define PD_KEY_ENUM(name, ctype, def, parse, doc)
#include "policy/policy_keys.def"
    free(p->file);
    p->file = NULL;
}

__attribute__((format(printf, 3, 4))) static int fail(struct loader *L, int line, const char *fmt,
                                                      ...)
{
    if (!L->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(L->err->msg, sizeof L->err->msg, fmt, ap);
        va_end(ap);
        L->err->line = line;
        L->failed = true;
    }
    return 0;
}

static int wrong_type(struct loader *L, const struct pd_toml_entry *e, const char *want,
                      const struct pd_toml_value *v)
{
    return fail(L, e->line, "policy malformed: %s must be %s, found %s", e->key, want,
                pd_toml_type_name(v->type));
}

static int pd_parse_on_error(const char *s, enum pd_on_error *out)
{
    if (strcmp(s, "deny") == 0 || s[0] == '\0')
        *out = PD_ON_ERROR_DENY;
    else if (strcmp(s, "allow") == 0)
        *out = PD_ON_ERROR_ALLOW;
    else
        return -1;
    return 0;
}

/* env_pass, env_drop: a variable name, or a prefix ending in '*'. */
static bool env_name_entry(const char *x)
{
    size_t n = strspn(x, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
    if (n == 0 || (x[0] >= '0' && x[0] <= '9'))
        return false;
    return x[n] == '\0' || (x[n] == '*' && x[n + 1] == '\0');
}

/* "a, b, c": the built-in protected patterns, for an error message. */
static const char *builtin_protected_list(void)
{
    static char buf[512];
    size_t n = 0;
    buf[0] = '\0';
    for (size_t k = 0; pd_builtin_protected[k] && n < sizeof buf; k++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", k ? ", " : "",
                              pd_builtin_protected[k]);
    return buf;
}

/* entry for a message: control bytes as \xNN (UTF-8 kept as written) */
static const char *printable(const char *x, char *out, size_t len)
{
    size_t o = 0;
    for (; *x && o + 5 < len; x++) {
        unsigned char c = (unsigned char)*x;
        if (c < 0x20 || c == 0x7f)
            o += (size_t)snprintf(out + o, len - o, "\\x%02x", c);
        else
            out[o++] = (char)c;
    }
    out[o] = '\0';
    return out;
}

/* Entries of list keys: non-empty; patterns must compile; program entries
 * are a bare name or an absolute path. */
static int check_list(struct loader *L, const struct pd_toml_entry *e, const struct pd_strv *s)
{
    char msg[PD_MSG_MAX];
    for (size_t k = 0; k < s->n; k++) {
        const char *x = s->v[k];
        if (!x[0])
            return fail(L, e->line, "policy malformed: %s holds an empty entry", e->key);
        if (strcmp(e->key, "allow_binaries") == 0) {
            if (strpbrk(x, " \t\n"))
                return fail(L, e->line,
                            "policy malformed: allow_binaries entry '%s' holds white space (one "
                            "program per entry, no arguments)",
                            x);
            /* an entry with '/' that is not absolute ("./bin/app") names a
             * file of the workspace (pd_binary_entry_file); ".." would name
             * one outside it: say so with an absolute path */
            if (strchr(x, '/') && x[0] != '/' &&
                (strncmp(x, "../", 3) == 0 || strstr(x, "/../") ||
                 (strlen(x) >= 3 && strcmp(x + strlen(x) - 3, "/..") == 0)))
                return fail(L, e->line,
                            "policy malformed: allow_binaries entry '%s' leaves the workspace "
                            "(use an absolute path)",
                            x);
        } else if (strcmp(e->key, "output_patterns") == 0) {
            const char *colon = strchr(x, ':');
            size_t nlen = colon ? (size_t)(colon - x) : 0;
            if (!colon || nlen == 0 || nlen > 64 ||
                strspn(x, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                          "abcdefghijklmnopqrstuvwxyz"
                          "0123456789_.-") != nlen ||
                !colon[1 + strspn(colon + 1, " ")])
                return fail(L, e->line,
                            "policy malformed: output_patterns entry '%s' must be \"NAME: "
                            "PATTERN\" (NAME of letters, digits, _ . -)",
                            x);
        } else if (strcmp(e->key, "allow_unix_sockets") == 0) {
            if (x[0] != '/' || strstr(x, "/../") || strpbrk(x, "*?["))
                return fail(L, e->line,
                            "policy malformed: allow_unix_sockets entry '%s' must be the "
                            "absolute path of one socket (no patterns)",
                            x);
        } else if (strcmp(e->key, "env_pass") == 0 || strcmp(e->key, "env_drop") == 0) {
            if (!env_name_entry(x))
                return fail(L, e->line,
                            "policy malformed: %s entry '%s' must be a variable name or a prefix "
                            "ending in * (letters, digits, _)",
                            e->key, x);
        } else if (strcmp(e->key, "unprotect_paths") == 0) {
            if (!pd_is_builtin_protected(x))
                return fail(L, e->line,
                            "policy malformed: unprotect_paths entry '%s' is not a built-in "
                            "protected path (they are: %s)",
                            x, builtin_protected_list());
        } else if (strcmp(e->key, "allow_hosts") == 0 || strcmp(e->key, "deny_hosts") == 0) {
            if (pd_host_entry_check(x, msg, sizeof msg)) {
                char shown[256];
                return fail(L, e->line, "policy malformed: %s entry '%s': %s", e->key,
                            printable(x, shown, sizeof shown), msg);
            }
        } else if (strcmp(e->key, "output_scan_ignore") == 0) {
            /* rule names are checked against the scanner's list when a run starts */
        } else if (strcmp(e->key, "allow_paths") != 0 && strcmp(e->key, "read_paths") != 0 &&
                   pd_glob_check(x, msg, sizeof msg)) {
            return fail(L, e->line, "policy malformed: %s entry %s", e->key, msg);
        }
    }
    return 1;
}

/* max_memory_mb alone also takes "unlimited" (or -1): the data limit is the
 * only memory limit an unprivileged run can set, and some programs need more
 * than any number (a sanitizer's shadow memory counts as data). Every other
 * string or number is an error, as for the other integer keys. */
static int memory_limit(struct loader *L, const struct pd_toml_entry *e,
                        const struct pd_toml_value *v)
{
    if ((v->type == PD_TOML_STRING && strcmp(v->str, "unlimited") == 0) ||
        (v->type == PD_TOML_INT && v->i == PD_MEMORY_UNLIMITED)) {
        L->p->max_memory_mb = PD_MEMORY_UNLIMITED;
        return 1;
    }
    if (v->type == PD_TOML_INT && v->i >= 0 && v->i <= 16777216) {
        struct pd_policy d;
        pd_policy_defaults(&d);
        L->p->max_memory_mb = v->i == 0 ? d.max_memory_mb : v->i;
        return 1;
    }
    if (v->type == PD_TOML_STRING)
        return fail(L, e->line,
                    "policy malformed: max_memory_mb must be an integer or \"unlimited\", found "
                    "\"%s\"",
                    v->str);
    if (v->type != PD_TOML_INT)
        return wrong_type(L, e, "an integer or \"unlimited\"", v);
    return fail(L, e->line,
                "policy max_memory_mb must be between 1 and 16777216, or \"unlimited\" (or -1) "
                "for no limit (0 means the default, 8192)");
}

static int handle_entry(struct loader *L, const struct pd_toml_entry *e, int idx)
{
    struct pd_policy *p = L->p;
    struct pd_toml_value v;
    char msg[PD_MSG_MAX];
    if (L->seen_line[idx]) {
        return fail(L, e->line, "policy malformed: key '%s' is defined twice (first at line %d)",
                    e->key, L->seen_line[idx]);
    }
    L->seen_line[idx] = e->line;
    if (pd_toml_value(e->raw, &v, msg, sizeof msg)) {
        return fail(L, e->line, "policy malformed: %s: %s", e->key, msg);
    }
    int rc = 1;
    if (idx == PD_KEYIDX_max_memory_mb) {
        rc = memory_limit(L, e, &v);
        pd_toml_value_free(&v);
        return rc;
    }
    switch (idx) {
#define PD_KEY_STRV(name, doc)                                                                     \
    case PD_KEYIDX_##name:                                                                         \
        if (v.type != PD_TOML_ARRAY) {                                                             \
            rc = wrong_type(L, e, "an array of strings", &v);                                      \
            break;                                                                                 \
        }                                                                                          \
        pd_strv_free(&p->name);                                                                    \
        p->name = v.arr;                                                                           \
        v.arr.v = NULL;                                                                            \
        v.arr.n = 0;                                                                               \
        rc = check_list(L, e, &p->name);                                                           \
        break;
#define PD_KEY_BOOL(name, def, doc)                                                                \
    case PD_KEYIDX_##name:                                                                         \
        if (v.type != PD_TOML_BOOL)                                                                \
            rc = wrong_type(L, e, "a boolean (true or false)", &v);                                \
        else                                                                                       \
            p->name = v.b != 0;                                                                    \
        break;
#define PD_KEY_INT(name, def, lo, hi, doc)                                                         \
    case PD_KEYIDX_##name:                                                                         \
        if (v.type != PD_TOML_INT) {                                                               \
            rc = wrong_type(L, e, "an integer", &v);                                               \
        } else if (v.i == 0) {                                                                     \
            p->name = def;                                                                         \
        } else if (v.i < (lo) || v.i > (hi)) {                                                     \
            rc = fail(L, e->line,                                                                  \
                      "policy %s must be between %lld and %lld (0 means the default, %lld)",       \
                      #name, (long long)(lo), (long long)(hi), (long long)(def));                  \
        } else {                                                                                   \
            p->name = v.i;                                                                         \
        }                                                                                          \
        break;
#define PD_KEY_FLOAT(name, def, doc)                                                               \
    case PD_KEYIDX_##name:                                                                         \
        if (v.type == PD_TOML_INT)                                                                 \
            p->name = (double)v.i;                                                                 \
        else if (v.type == PD_TOML_FLOAT)                                                          \
            p->name = v.f;                                                                         \
        else                                                                                       \
            rc = wrong_type(L, e, "a number", &v);                                                 \
        break;
#define PD_KEY_ENUM(name, ctype, def, parse, doc)                                                  \
    case PD_KEYIDX_##name:                                                                         \
        if (v.type != PD_TOML_STRING)                                                              \
            rc = wrong_type(L, e, "a string", &v);                                                 \
        else if (parse(v.str, &p->name))                                                           \
            rc = fail(L, e->line, "policy %s must be %s", #name, doc);                             \
        break;
#include "policy/policy_keys.def"
    default:
        break;
    }
    const bool nonzero_int = v.type == PD_TOML_INT && v.i != 0;
    pd_toml_value_free(&v);
    if (rc && idx == PD_KEYIDX_jev_threshold) {
        if (!(p->jev_threshold >= 0.0 && p->jev_threshold <= 1.0))
            rc = fail(L, e->line, "policy jev_threshold must be between 0 and 1");
        else if (p->jev_threshold == 0.0)
            rc = fail(L, e->line,
                      "policy jev_threshold must be between 0 and 1, and not 0 (0 would deny "
                      "every run; leave the key out for the default 0.7)");
    }
    /* allow_hosts filters a network that allow_network = true opens whole:
     * refused at the later of the two keys */
    if (rc && (idx == PD_KEYIDX_allow_network || idx == PD_KEYIDX_allow_hosts) &&
        p->allow_network && p->allow_hosts.n > 0)
        rc = fail(L, e->line,
                  "policy malformed: allow_hosts needs allow_network = false (allow_network = "
                  "true is direct, unfiltered access)");
    if (rc && idx == PD_KEYIDX_protected_paths)
        p->protected_paths_set = true;
    if (rc && idx == PD_KEYIDX_timeout_sec && nonzero_int)
        p->timeout_sec_set = true;
    /* presets ("@python") become plain names here, so no gate sees them */
    if (rc && idx == PD_KEYIDX_allow_binaries &&
        pd_presets_expand(&p->allow_binaries, msg, sizeof msg) != 0)
        rc = fail(L, e->line, "policy malformed: allow_binaries: %s", msg);
    return rc;
}

static int key_index(const char *name)
{
    static const char *const names[] = {
#define PD_KEY_STRV(name, doc)                    #name,
#define PD_KEY_BOOL(name, def, doc)               #name,
#define PD_KEY_INT(name, def, lo, hi, doc)        #name,
#define PD_KEY_FLOAT(name, def, doc)              #name,
#define PD_KEY_ENUM(name, ctype, def, parse, doc) #name,
#include "policy/policy_keys.def"
    };
    for (int k = 0; k < PD_NKEYS; k++)
        if (strcmp(names[k], name) == 0)
            return k;
    return -1;
}

/* "policy unknown key: alow_paths (did you mean 'allow_paths'?)"; just the
 * key when no key is near (the original's message, which callers match). */
static int unknown_key(struct loader *L, const struct pd_toml_entry *e)
{
    static const char *const keys[] = {
#define PD_KEY_STRV(name, doc)                    #name,
#define PD_KEY_BOOL(name, def, doc)               #name,
#define PD_KEY_INT(name, def, lo, hi, doc)        #name,
#define PD_KEY_FLOAT(name, def, doc)              #name,
#define PD_KEY_ENUM(name, ctype, def, parse, doc) #name,
#include "policy/policy_keys.def"
    };
    const char *near = pd_suggest(e->key, keys, sizeof keys / sizeof keys[0]);
    if (near)
        return fail(L, e->line, "policy unknown key: %s (did you mean '%s'?)", e->key, near);
    return fail(L, e->line, "policy unknown key: %s", e->key);
}

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
    struct loader *L = user;
    (void)name;
    if (L->failed)
        return 1;
    if (section[0] != '\0' || value[0] != '@')
        return fail(L, 0, "policy malformed: unexpected input");
    size_t n = (size_t)strtoul(value + 1, NULL, 10);
    if (n >= L->doc->n)
        return fail(L, 0, "policy malformed: unexpected input");
    const struct pd_toml_entry *e = &L->doc->v[n];
    int idx = key_index(e->key);
    if (idx < 0)
        return unknown_key(L, e);
    return handle_entry(L, e, idx);
}

/* inih reader: one "key=@N" line per logical entry. Keys are validated
 * against the key table by the handler; a key too long for inih's buffer
 * cannot be a policy key, so it is sent as "?" and reported unknown. */
static char *next_line(char *str, int num, void *stream)
{
    struct loader *L = stream;
    if (L->next >= L->doc->n)
        return NULL;
    size_t n = L->next++;
    const char *key = L->doc->v[n].key;
    if (strlen(key) + 24 > (size_t)num)
        key = "?";
    snprintf(str, (size_t)num, "%s=@%zu\n", key, n);
    return str;
}

int pd_policy_load_string(struct pd_policy *p, const char *text, const char *name,
                          struct pd_error *err)
{
    struct pd_toml_doc doc;
    memset(err, 0, sizeof *err);
    snprintf(err->file, sizeof err->file, "%s", name ? name : "");
    pd_policy_defaults(p);
    if (pd_toml_split(text, strlen(text), &doc, err))
        return -1;
    struct loader L = {.p = p, .doc = &doc, .err = err};
    int rc = ini_parse_stream(next_line, &L, on_entry, &L);
    if (!L.failed && rc != 0)
        fail(&L, 0, "policy malformed: the INI reader failed (%s)",
             rc == -2 ? "out of memory" : "syntax");
    if (!L.failed && p->allow_hosts_without_namespace && p->allow_hosts.n == 0) {
        int a = L.seen_line[PD_KEYIDX_allow_hosts_without_namespace];
        int b = L.seen_line[PD_KEYIDX_allow_hosts];
        fail(&L, a > b ? a : b,
             "policy malformed: allow_hosts_without_namespace = true needs a non-empty "
             "allow_hosts");
    }
    pd_toml_doc_free(&doc);
    if (L.failed) {
        pd_policy_free(p);
        return -1;
    }
    return 0;
}

int pd_policy_load(struct pd_policy *p, const char *path, struct pd_error *err)
{
    memset(err, 0, sizeof *err);
    pd_policy_defaults(p);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
        snprintf(err->msg, sizeof err->msg, "policy file not found: %s", path);
        return -1;
    }
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = fd < 0 ? errno : (S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
        snprintf(err->msg, sizeof err->msg, "policy unreadable: %s: %s", path,
                 e == EINVAL ? "not a regular file" : strerror(e));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (st.st_size > PD_POLICY_MAX_BYTES) {
        close(fd);
        snprintf(err->msg, sizeof err->msg, "policy malformed: %s is larger than 1 MiB", path);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    char *text = malloc(size + 1);
    size_t got = 0;
    while (text && got < size) {
        ssize_t r = read(fd, text + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    int read_errno = errno;
    close(fd);
    if (!text || got != size) {
        free(text);
        snprintf(err->msg, sizeof err->msg, "policy unreadable: %s: %s", path,
                 text ? strerror(read_errno) : "out of memory");
        return -1;
    }
    text[size] = '\0';
    if (memchr(text, '\0', size)) {
        free(text);
        snprintf(err->msg, sizeof err->msg, "policy malformed: %s holds a NUL byte", path);
        return -1;
    }
    int rc = pd_policy_load_string(p, text, path, err);
    free(text);
    if (rc)
        return -1;
    p->file = realpath(path, NULL);
    if (!p->file) {
        snprintf(err->msg, sizeof err->msg, "policy unreadable: %s: %s", path, strerror(errno));
        err->file[0] = '\0';
        pd_policy_free(p);
        return -1;
    }
    return 0;
}
