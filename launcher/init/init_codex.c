/* launcher/init/init_codex.c - what Codex sees and trusts, asked from Codex.
 *
 * Codex runs a hook only when it trusts it: the project must be trusted
 * ([projects."<dir>"] trust_level = "trusted" in config.toml) for its
 * .codex/ to count, and each hook's hash must be saved as
 * [hooks.state."<key>"] trusted_hash = "sha256:...". Key and hash are
 * Codex's own (the hash covers the hook's command, matcher and timeout, not
 * the file's place), so they are not computed here but asked: `codex
 * app-server` speaks JSON-RPC on stdin/stdout, and `hooks/list` answers
 * with every hook that applies in a folder, its key, its current hash and
 * its trust ("trusted", "untrusted", "modified"). tests/clients/README.md
 * has the observations this follows (Codex 0.171). */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "launcher/init/init.h"

#define APP_SERVER_TIMEOUT_MS 60000

/* The JSON-RPC answer with id 2 (hooks/list) is among the lines. */
static const cJSON *answer(const cJSON *const *msgs, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(msgs[k], "id");
        if (cJSON_IsNumber(id) && id->valuedouble == 2)
            return msgs[k];
    }
    return NULL;
}

struct lines {
    cJSON **v;
    size_t n;
};

/* Every complete line of out that is a JSON object. */
static void parse_lines(const char *out, size_t len, struct lines *l)
{
    l->v = NULL;
    l->n = 0;
    for (size_t b = 0; b < len;) {
        const char *nl = memchr(out + b, '\n', len - b);
        if (!nl)
            break;
        size_t e = (size_t)(nl - out);
        cJSON *j = cJSON_ParseWithLength(out + b, e - b);
        cJSON **nv = j ? realloc(l->v, (l->n + 1) * sizeof(cJSON *)) : NULL;
        if (nv) {
            l->v = nv;
            l->v[l->n++] = j;
        } else {
            cJSON_Delete(j);
        }
        b = e + 1;
    }
}

static void lines_free(struct lines *l)
{
    for (size_t k = 0; k < l->n; k++)
        cJSON_Delete(l->v[k]);
    free(l->v);
}

static bool hooks_list_answered(const char *out, size_t len, void *arg)
{
    (void)arg;
    struct lines l;
    parse_lines(out, len, &l);
    bool yes = answer((const cJSON *const *)l.v, l.n) != NULL;
    lines_free(&l);
    return yes;
}

static char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
}

static void append_line(char **acc, const char *s)
{
    size_t a = *acc ? strlen(*acc) : 0, n = strlen(s);
    char *nv = realloc(*acc, a + n + 2);
    if (!nv)
        return;
    if (a)
        nv[a++] = '\n';
    memcpy(nv + a, s, n + 1);
    *acc = nv;
}

/* The notifications: an invalid configuration, an untrusted project. */
static void read_warnings(const struct lines *l, struct pd_codex_hooks *h)
{
    for (size_t k = 0; k < l->n; k++) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(l->v[k], "method");
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(l->v[k], "params");
        if (!cJSON_IsString(m) || strcmp(m->valuestring, "configWarning") != 0)
            continue;
        const cJSON *sum = cJSON_GetObjectItemCaseSensitive(p, "summary");
        const cJSON *det = cJSON_GetObjectItemCaseSensitive(p, "details");
        if (!cJSON_IsString(sum))
            continue;
        if (strstr(sum->valuestring, "Invalid configuration") && !h->config_error)
            h->config_error = strdup(cJSON_IsString(det) ? det->valuestring : sum->valuestring);
        else if (strstr(sum->valuestring, "until the project is trusted") && !h->untrusted_folder)
            h->untrusted_folder = strdup(sum->valuestring);
    }
}

static int read_hooks(const cJSON *result, struct pd_codex_hooks *h, char *why, size_t whylen)
{
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(result, "data");
    const cJSON *d;
    cJSON_ArrayForEach(d, data)
    {
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(d, "errors"))
        {
            char *msg = str_of(e, "message");
            if (msg)
                append_line(&h->errors, msg);
            free(msg);
        }
        const cJSON *hk;
        cJSON_ArrayForEach(hk, cJSON_GetObjectItemCaseSensitive(d, "hooks"))
        {
            struct pd_codex_hook *nv = realloc(h->v, (h->n + 1) * sizeof *nv);
            if (!nv) {
                snprintf(why, whylen, "out of memory");
                return -1;
            }
            h->v = nv;
            struct pd_codex_hook *x = &h->v[h->n++];
            *x = (struct pd_codex_hook){
                .key = str_of(hk, "key"),
                .event = str_of(hk, "eventName"),
                .command = str_of(hk, "command"),
                .matcher = str_of(hk, "matcher"),
                .source_path = str_of(hk, "sourcePath"),
                .source = str_of(hk, "source"),
                .hash = str_of(hk, "currentHash"),
                .trust = str_of(hk, "trustStatus"),
                .enabled = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(hk, "enabled")),
            };
        }
    }
    return 0;
}

/* The line of a program's stderr that says what went wrong: the first
 * "Error: ..." line (Rust's report, before its backtrace), else the last
 * line; without terminal colours. */
static void error_line(const char *err, char *out, size_t outlen)
{
    const char *b = strstr(err, "Error:");
    if (b && b != err && b[-1] != '\n')
        b = NULL;
    if (!b) {
        size_t n = strlen(err);
        while (n > 0 && (err[n - 1] == '\n' || err[n - 1] == '\r'))
            n--;
        b = err + n;
        while (b > err && b[-1] != '\n')
            b--;
    }
    size_t n = strcspn(b, "\r\n"), o = 0;
    for (size_t k = 0; k < n && o + 1 < outlen; k++) {
        if (b[k] == '\x1b') {
            while (k < n && b[k] != 'm')
                k++;
            continue;
        }
        out[o++] = b[k];
    }
    out[o] = '\0';
}

int pd_codex_hooks_list(const char *codex, const char *cwd, const char *codex_home,
                        struct pd_codex_hooks *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "jsonrpc", "2.0");
    cJSON_AddNumberToObject(req, "id", 2);
    cJSON_AddStringToObject(req, "method", "hooks/list");
    cJSON *cwds = cJSON_AddArrayToObject(cJSON_AddObjectToObject(req, "params"), "cwds");
    cJSON_AddItemToArray(cwds, cJSON_CreateString(cwd));
    char *list = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    struct pd_text in = {0};
    pd_text_printf(&in,
                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                   "{\"clientInfo\":{\"name\":\"paldron\",\"version\":\"%s\"}}}\n"
                   "{\"jsonrpc\":\"2.0\",\"method\":\"initialized\"}\n%s\n",
                   pd_version(), list ? list : "");
    free(list);
    char *input = list ? pd_text_take(&in) : NULL;
    pd_text_free(&in);
    if (!input) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    char home_env[PD_PATH_MAX + 16];
    snprintf(home_env, sizeof home_env, "CODEX_HOME=%s", codex_home ? codex_home : "");
    const char *env[] = {codex_home ? home_env : NULL, NULL};
    const char *argv[] = {codex, "app-server", NULL};
    struct pd_run_opts o = {.argv = argv,
                            .cwd = cwd,
                            .env = env,
                            .input = input,
                            .inputlen = strlen(input),
                            .keep_stdin_open = true,
                            .done = hooks_list_answered,
                            .timeout_ms = APP_SERVER_TIMEOUT_MS};
    struct pd_run_result r;
    char runwhy[PD_MSG_MAX];
    int rc = pd_run(&o, &r, runwhy, sizeof runwhy);
    free(input);
    if (rc != 0) {
        snprintf(why, whylen, "cannot run %s app-server: %s", codex, runwhy);
        return -1;
    }
    struct lines l;
    parse_lines(r.out, r.outlen, &l);
    const cJSON *ans = answer((const cJSON *const *)l.v, l.n);
    read_warnings(&l, out);
    char tail[PD_MSG_MAX];
    error_line(r.err, tail, sizeof tail);
    rc = -1;
    if (!ans) {
        snprintf(why, whylen, "%s app-server %s%s%s", codex,
                 r.timed_out       ? "gave no answer within a minute"
                 : r.status == 127 ? "did not start"
                                   : "ended without answering hooks/list",
                 tail[0] ? ": " : "", tail);
    } else if (cJSON_GetObjectItemCaseSensitive(ans, "error")) {
        char *msg = str_of(cJSON_GetObjectItemCaseSensitive(ans, "error"), "message");
        snprintf(why, whylen, "%s app-server refused hooks/list: %s", codex,
                 msg ? msg : "(no message)");
        free(msg);
    } else {
        rc = read_hooks(cJSON_GetObjectItemCaseSensitive(ans, "result"), out, why, whylen);
    }
    lines_free(&l);
    pd_run_result_free(&r);
    if (rc != 0)
        pd_codex_hooks_free(out);
    return rc;
}

void pd_codex_hooks_free(struct pd_codex_hooks *h)
{
    for (size_t k = 0; k < h->n; k++) {
        struct pd_codex_hook *x = &h->v[k];
        free(x->key);
        free(x->event);
        free(x->command);
        free(x->matcher);
        free(x->source_path);
        free(x->source);
        free(x->hash);
        free(x->trust);
    }
    free(h->v);
    free(h->config_error);
    free(h->untrusted_folder);
    free(h->errors);
    memset(h, 0, sizeof *h);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0; /* go on: remove what can be removed */
}

static int write_scratch(const char *path, const char *text, char *why, size_t whylen)
{
    return pd_file_write(path, text, 0600, 0700, why, whylen);
}

int pd_codex_predict_trust(const char *codex, const char *hooks_path, bool user,
                           const char *hooks_text, const char *command, char **key, char **hash,
                           char *why, size_t whylen)
{
    why[0] = '\0';
    const char *tmpdir = getenv("TMPDIR");
    char made[PD_PATH_MAX], base[PATH_MAX], home[PD_PATH_MAX + 8], proj[PD_PATH_MAX + 8];
    char file[PD_PATH_MAX + 32], config[PD_PATH_MAX + 32];
    snprintf(made, sizeof made, "%s/paldron-init-XXXXXX",
             tmpdir && tmpdir[0] == '/' ? tmpdir : "/tmp");
    if (!mkdtemp(made) || !realpath(made, base)) {
        snprintf(why, whylen, "cannot make a scratch folder for codex app-server: %s",
                 strerror(errno));
        return -1;
    }
    snprintf(home, sizeof home, "%s/home", base);
    snprintf(proj, sizeof proj, "%s/proj", base);
    snprintf(file, sizeof file, user ? "%s/hooks.json" : "%s/.codex/hooks.json",
             user ? home : proj);
    snprintf(config, sizeof config, "%s/config.toml", home);
    int rc = -1;
    struct pd_text cfg = {0};
    pd_text_puts(&cfg, "[projects.");
    pd_json_put_string(&cfg, proj); /* a JSON string is a TOML basic string */
    pd_text_puts(&cfg, "]\ntrust_level = \"trusted\"\n");
    char *cfg_text = pd_text_take(&cfg);
    struct pd_codex_hooks h = {0};
    if (!cfg_text || mkdir(home, 0700) != 0 || mkdir(proj, 0700) != 0 ||
        write_scratch(config, cfg_text, why, whylen) != 0 ||
        write_scratch(file, hooks_text, why, whylen) != 0) {
        if (!why[0] || !cfg_text)
            snprintf(why, whylen, "cannot prepare the scratch folder %s: %s", base,
                     strerror(errno));
        goto done;
    }
    if (pd_codex_hooks_list(codex, proj, home, &h, why, whylen) != 0)
        goto done;
    const struct pd_codex_hook *found = NULL;
    for (size_t k = 0; k < h.n && !found; k++)
        if (h.v[k].source_path && strcmp(h.v[k].source_path, file) == 0 && h.v[k].command &&
            strcmp(h.v[k].command, command) == 0 && h.v[k].key && h.v[k].hash)
            found = &h.v[k];
    size_t flen = strlen(file);
    if (!found) {
        snprintf(why, whylen, "codex app-server does not list the new hook%s%s%s",
                 h.config_error || h.errors ? " (" : "",
                 h.config_error ? h.config_error
                 : h.errors     ? h.errors
                                : "",
                 h.config_error || h.errors ? ")" : "");
    } else if (strncmp(found->key, file, flen) != 0 || found->key[flen] != ':') {
        snprintf(why, whylen,
                 "codex app-server names the hook '%s', not '<file>:...' as "
                 "Paldron expects: a Codex version Paldron does not know?",
                 found->key);
    } else {
        size_t n = strlen(hooks_path) + strlen(found->key + flen) + 1;
        *key = malloc(n);
        *hash = strdup(found->hash);
        if (*key && *hash) {
            snprintf(*key, n, "%s%s", hooks_path, found->key + flen);
            rc = 0;
        } else {
            free(*key);
            free(*hash);
            snprintf(why, whylen, "out of memory");
        }
    }
done:
    pd_codex_hooks_free(&h);
    free(cfg_text);
    nftw(base, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
}
