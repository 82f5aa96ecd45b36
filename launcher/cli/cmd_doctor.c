/* launcher/cli/cmd_doctor.c - `paldron doctor [claude-code|codex]`: check an
 * installation end to end, without a model.
 *
 * For each client: its version; every Paldron hook in its settings (user
 * and project; a file that does not parse is a problem, since the client
 * then ignores or refuses it); for Codex, that Codex loads and trusts the
 * hook - asked from codex app-server, the same answer Codex acts on; and
 * for each hook, its command (init_probe.c: the binary, the policy, `|| exit
 * 2`, a sample denied call and a harmless one run through it as the client
 * would). One line per check: "ok: ..." or "problem: ... - fix: ...".
 * Exit 0 when every check passes, 2 when one fails, 1 on bad arguments. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/init/init.h"

#define MAX_FOUND          16
#define VERSION_TIMEOUT_MS 30000

__attribute__((format(printf, 3, 0))) static void line(const char *kind, const struct pd_doctor *d,
                                                       const char *fmt, va_list ap)
{
    printf("%s: %s: ", kind, pd_client_name(d->client));
    vprintf(fmt, ap);
}

void pd_doctor_ok(struct pd_doctor *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    line("ok", d, fmt, ap);
    va_end(ap);
    putchar('\n');
}

void pd_doctor_problem(struct pd_doctor *d, const char *fix, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    line("problem", d, fmt, ap);
    va_end(ap);
    if (fix)
        printf(" - fix: %s", fix);
    putchar('\n');
    d->problems++;
}

/* A hook found in one of the client's settings files. */
struct found {
    char file[PD_PATH_MAX];
    bool user;
    struct pd_found_hook h;
};

static void check_version(struct pd_doctor *d, char *path, size_t pathlen)
{
    const char *prog = pd_client_program(d->client);
    if (!pd_init_which(prog, path, pathlen)) {
        path[0] = '\0';
        pd_doctor_problem(d,
                          d->client == PD_CLIENT_CODEX
                              ? "install it (npm install -g @openai/codex) or put it on PATH"
                              : "install it (npm install -g @anthropic-ai/claude-code) or put it "
                                "on PATH",
                          "`%s` is not on PATH", prog);
        return;
    }
    const char *argv[] = {path, "--version", NULL};
    struct pd_run_opts o = {.argv = argv, .timeout_ms = VERSION_TIMEOUT_MS};
    struct pd_run_result r;
    char why[PD_MSG_MAX];
    if (pd_run(&o, &r, why, sizeof why) != 0) {
        pd_doctor_problem(d, NULL, "cannot run %s --version: %s", path, why);
        return;
    }
    size_t n = strcspn(r.out, "\n");
    if (r.status == 0 && n > 0)
        pd_doctor_ok(d, "%.*s (%s)", (int)(n < 200 ? n : 200), r.out, path);
    else
        pd_doctor_problem(d, "reinstall the client", "%s --version fails (exit %d): %.200s", path,
                          r.status, r.err);
    pd_run_result_free(&r);
}

/* The Paldron hooks in the client's settings files; a file that does not
 * parse is a problem. */
static size_t collect(struct pd_doctor *d, struct found *out, size_t max, char files[][PD_PATH_MAX],
                      int *nfiles, bool quiet)
{
    *nfiles = pd_client_settings_files(d->client, d->project, files, 4);
    size_t n = 0;
    for (int k = 0; k < *nfiles; k++) {
        size_t len;
        char *text = pd_file_read(files[k], &len);
        if (!text) {
            if (errno != ENOENT && errno != ENOTDIR && !quiet)
                pd_doctor_problem(d, NULL, "cannot read %s: %s", files[k], strerror(errno));
            continue;
        }
        struct pd_json root;
        int ln;
        char why[PD_MSG_MAX];
        if (pd_json_parse(text, len, &root, &ln, why, sizeof why) != 0) {
            if (!quiet)
                pd_doctor_problem(d, "correct the JSON (the client ignores or refuses the file)",
                                  "%s:%d: %s", files[k], ln, why);
            free(text);
            continue;
        }
        struct pd_found_hook hs[MAX_FOUND];
        size_t m = pd_hooks_find(&root, text, hs, MAX_FOUND);
        for (size_t j = 0; j < m; j++) {
            if (n < max) {
                snprintf(out[n].file, sizeof out[n].file, "%s", files[k]);
                out[n].user = k == 0; /* pd_client_settings_files: user first */
                out[n].h = hs[j];
                n++;
            } else {
                pd_found_hook_free(&hs[j]);
            }
        }
        pd_json_free(&root);
        free(text);
    }
    return n;
}

/* The paldron init line that rewrites this hook. */
static void fix_line(const struct pd_doctor *d, bool user, const char *command, bool trust,
                     char *out, size_t outlen)
{
    struct pd_hook_cmd c;
    pd_hook_cmd_read(command ? command : "", NULL, NULL, &c);
    snprintf(out, outlen, "paldron init %s%s%s%s%s", pd_client_name(d->client),
             user ? " --user" : "", c.no_route ? " --no-route" : "",
             !user && c.from_git_root ? " --policy-from-git-root" : "", trust ? " --trust" : "");
    pd_hook_cmd_free(&c);
}

static void check_shape(struct pd_doctor *d, const struct found *f, const char *fix)
{
    if (!f->h.matcher || strcmp(f->h.matcher, "*") != 0)
        pd_doctor_problem(d, fix,
                          "%s:%d: the Paldron hook's matcher is %s%s%s, not \"*\": the other "
                          "tools (Write, Read, MCP ...) reach no hook",
                          f->file, f->h.line, f->h.matcher ? "\"" : "",
                          f->h.matcher ? f->h.matcher : "missing", f->h.matcher ? "\"" : "");
    if (f->h.async)
        pd_doctor_problem(d, fix,
                          "%s:%d: the Paldron hook is \"async\": the client does not wait for "
                          "it, so it blocks nothing",
                          f->file, f->h.line);
}

static void check_trust(struct pd_doctor *d, const struct pd_codex_hook *h, const char *where,
                        const char *fix)
{
    if (!h->enabled)
        pd_doctor_problem(d, fix, "%s: Codex lists the hook as disabled", where);
    else if (h->trust && strcmp(h->trust, "trusted") == 0)
        pd_doctor_ok(d, "%s: Codex trusts the hook (%s)", where, h->key ? h->key : "?");
    else if (h->trust && strcmp(h->trust, "modified") == 0)
        pd_doctor_problem(d, fix,
                          "%s: the hook changed since it was trusted (hash %s): Codex skips it "
                          "silently and every call runs unchecked",
                          where, h->hash ? h->hash : "?");
    else
        pd_doctor_problem(d, fix,
                          "%s: Codex does not trust the hook (trust status %s): it skips it "
                          "silently and every call runs unchecked",
                          where, h->trust ? h->trust : "unknown");
}

static bool is_paldron_pre(const struct pd_codex_hook *h)
{
    return h->event && strcmp(h->event, "preToolUse") == 0 && h->command &&
           pd_hook_cmd_is_paldron(h->command);
}

/* Codex: does it load and trust each hook found in the files, and are
 * there Paldron hooks it loads from elsewhere (config.toml)? Returns how
 * many of those it checked. */
static size_t check_codex(struct pd_doctor *d, const char *codex, struct found *f, size_t n)
{
    size_t extra = 0;
    char fix[PD_PATH_MAX];
    if (!codex[0]) {
        pd_doctor_problem(d, "install codex",
                          "cannot ask Codex whether it trusts the hook: "
                          "codex is not on PATH");
        return 0;
    }
    struct pd_codex_hooks h;
    char why[PD_MSG_MAX];
    if (pd_codex_hooks_list(codex, d->project, NULL, &h, why, sizeof why) != 0) {
        pd_doctor_problem(d, NULL, "cannot ask Codex which hooks it trusts: %s", why);
        return 0;
    }
    if (h.config_error)
        pd_doctor_problem(d, "correct config.toml",
                          "Codex finds its configuration invalid "
                          "and ignores it: %s",
                          h.config_error);
    for (size_t k = 0; k < n; k++) {
        fix_line(d, f[k].user, f[k].h.command, true, fix, sizeof fix);
        const struct pd_codex_hook *mine = NULL;
        for (size_t j = 0; j < h.n && !mine; j++)
            if (h.v[j].source_path && strcmp(h.v[j].source_path, f[k].file) == 0 &&
                h.v[j].command && strcmp(h.v[j].command, f[k].h.command) == 0)
                mine = &h.v[j];
        char where[PD_PATH_MAX + 16];
        snprintf(where, sizeof where, "%s:%d", f[k].file, f[k].h.line);
        if (mine) {
            check_trust(d, mine, where, fix);
        } else if (!f[k].user && h.untrusted_folder) {
            pd_doctor_problem(d, fix,
                              "%s: Codex ignores %s/.codex/ because the project is not trusted "
                              "([projects.\"%s\"] trust_level = \"trusted\" is missing): every "
                              "call runs unchecked",
                              where, d->project, d->project);
        } else {
            pd_doctor_problem(d, fix, "%s: Codex does not load the hook%s%s", where,
                              h.errors ? ": " : "", h.errors ? h.errors : "");
        }
    }
    /* Paldron hooks that Codex loads from a file doctor did not read */
    for (size_t j = 0; j < h.n; j++) {
        bool known = false;
        for (size_t k = 0; k < n; k++)
            known |= h.v[j].source_path && strcmp(h.v[j].source_path, f[k].file) == 0;
        if (known || !is_paldron_pre(&h.v[j]))
            continue;
        /* init writes hooks.json: it can replace this hook, not edit it */
        fix_line(d, false, h.v[j].command, true, fix, sizeof fix);
        snprintf(fix + strlen(fix), sizeof fix - strlen(fix),
                 " (then remove this one), or review it in an interactive codex session");
        const char *where = h.v[j].source_path ? h.v[j].source_path : "codex";
        if (!h.v[j].matcher || strcmp(h.v[j].matcher, "*") != 0)
            pd_doctor_problem(d, fix, "%s: the Paldron hook's matcher is not \"*\"", where);
        check_trust(d, &h.v[j], where, fix);
        pd_doctor_check_command(d, where, h.v[j].command, fix);
        extra++;
    }
    pd_codex_hooks_free(&h);
    return extra;
}

static void check_client(struct pd_doctor *d)
{
    char program[PD_PATH_MAX], files[4][PD_PATH_MAX], fix[PD_PATH_MAX];
    int nfiles;
    check_version(d, program, sizeof program);
    struct found f[MAX_FOUND];
    size_t n = collect(d, f, MAX_FOUND, files, &nfiles, false);
    size_t extra = d->client == PD_CLIENT_CODEX ? check_codex(d, program, f, n) : 0;
    if (n == 0 && extra == 0) {
        char list[4 * PD_PATH_MAX + 8] = "";
        for (int k = 0; k < nfiles; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "",
                     files[k]);
        fix_line(d, false, NULL, d->client == PD_CLIENT_CODEX, fix, sizeof fix);
        pd_doctor_problem(d, fix, "no Paldron hook in %s", list);
    }
    for (size_t k = 0; k < n; k++) {
        char where[PD_PATH_MAX + 16];
        snprintf(where, sizeof where, "%s:%d", f[k].file, f[k].h.line);
        fix_line(d, f[k].user, f[k].h.command, false, fix, sizeof fix);
        check_shape(d, &f[k], fix);
        pd_doctor_check_command(d, where, f[k].h.command, fix);
        pd_found_hook_free(&f[k].h);
    }
}

/* Is the client here: on PATH, or a Paldron hook in its settings? */
static bool client_found(enum pd_client c, const char *project)
{
    char path[PD_PATH_MAX], files[4][PD_PATH_MAX];
    if (pd_init_which(pd_client_program(c), path, sizeof path))
        return true;
    struct pd_doctor quiet = {.client = c, .project = project};
    struct found f[MAX_FOUND];
    int nfiles;
    size_t n = collect(&quiet, f, MAX_FOUND, files, &nfiles, true);
    for (size_t k = 0; k < n; k++)
        pd_found_hook_free(&f[k].h);
    return n > 0;
}

int pd_cmd_doctor(const struct pd_cli *cli0)
{
    struct pd_cli cli;
    const char *pos[1];
    int npos;
    if (pd_init_args(cli0, &cli, pos, 1, &npos) != 0)
        return PD_EXIT_BROKEN;
    if (cli.help) {
        pd_command_usage(cli.sub, true);
        return PD_EXIT_ALLOW;
    }
    enum pd_client only = PD_CLIENT_COUNT;
    if (npos == 1 && pd_client_parse(pos[0], &only) != 0) {
        pd_err("doctor: unknown client '%s': claude-code or codex", pos[0]);
        return PD_EXIT_BROKEN;
    }
    char project[PD_PATH_MAX], why[PD_MSG_MAX];
    if (pd_init_project(cli.project, project, sizeof project, why, sizeof why) != 0) {
        pd_err("doctor: %s", why);
        return PD_EXIT_BROKEN;
    }
    printf("paldron doctor: project %s\n", project);
    int problems = 0, checked = 0;
    for (int k = 0; k < PD_CLIENT_COUNT; k++) {
        enum pd_client c = (enum pd_client)k;
        if (only != PD_CLIENT_COUNT ? c != only : !client_found(c, project))
            continue;
        struct pd_doctor d = {.client = c, .project = project};
        check_client(&d);
        problems += d.problems;
        checked++;
    }
    if (checked == 0) {
        printf("problem: no agent client found: neither claude nor codex is on PATH, and no "
               "Paldron hook is configured - fix: install a client, then run paldron init "
               "claude-code|codex\n");
        problems++;
    }
    if (problems)
        printf("paldron doctor: %d problem%s\n", problems, problems == 1 ? "" : "s");
    else
        printf("paldron doctor: every check passed\n");
    return problems ? PD_EXIT_DENY : PD_EXIT_ALLOW;
}
