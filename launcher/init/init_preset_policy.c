/* launcher/init/init_preset_policy.c - the .paldron.toml that `paldron init`
 * writes for one project from its preset (init_presets.c): every key with
 * the comment that says why it holds what it holds, where a user looks
 * first - in the file.
 *
 * A preset is adapted to what is there when init runs, and says so in the
 * file: the preset's optional folders that the project has, the folder a
 * toolchain found on PATH is installed in when that lies outside the
 * folders every run may read (node under ~/.nvm), go's own tools by path
 * (go starts them by path, so only their path can allow them), and a
 * project .npmrc that npm must read. Nothing is guessed beyond that: a
 * later change of the project needs an edit of the file, as the comments
 * say. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/exec/exec.h" /* pd_exec_tool_home */
#include "launcher/init/init.h"

#define MAX_ENTRIES 64
#define LINE_WIDTH  92 /* an array longer than this is written one line per few entries */

/* A list of entries for one key (strings owned by the list). */
struct entries {
    char *v[MAX_ENTRIES];
    size_t n;
    bool oom;
};

static bool listed(const struct entries *e, const char *s)
{
    for (size_t k = 0; k < e->n; k++)
        if (strcmp(e->v[k], s) == 0)
            return true;
    return false;
}

static void add(struct entries *e, const char *s)
{
    if (listed(e, s) || e->n == MAX_ENTRIES)
        return;
    char *copy = strdup(s);
    if (!copy) {
        e->oom = true;
        return;
    }
    e->v[e->n++] = copy;
}

static void entries_free(struct entries *e)
{
    for (size_t k = 0; k < e->n; k++)
        free(e->v[k]);
    e->n = 0;
}

/* Each line of text as a comment. */
static void comment(struct pd_text *t, const char *text)
{
    for (const char *s = text; *s;) {
        size_t n = strcspn(s, "\n");
        pd_text_puts(t, n ? "# " : "#");
        pd_text_put(t, s, n);
        pd_text_puts(t, "\n");
        s += n;
        if (*s == '\n')
            s++;
    }
}

/* The notes gathered while choosing a key's entries, as comments above it. */
static void comment_notes(struct pd_text *t, struct pd_text *notes)
{
    char *n = pd_text_take(notes);
    if (!n)
        t->oom = true;
    else if (n[0])
        comment(t, n);
    free(n);
}

/* A TOML basic string; false (nothing written) for a control character,
 * which no folder name init writes should hold. */
static bool toml_ok(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return false;
    return true;
}

static size_t toml_len(const char *s)
{
    size_t n = 2;
    for (; *s; s++)
        n += (*s == '"' || *s == '\\') ? 2 : 1;
    return n;
}

static void put_toml_string(struct pd_text *t, const char *s)
{
    pd_text_puts(t, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            pd_text_puts(t, "\\");
        pd_text_put(t, s, 1);
    }
    pd_text_puts(t, "\"");
}

/* key = [...]: on one line when it fits, else a few entries per line. */
static void put_array(struct pd_text *t, const char *key, const char *const *v, size_t n)
{
    size_t total = strlen(key) + 5;
    for (size_t k = 0; k < n; k++)
        total += toml_len(v[k]) + 2;
    pd_text_printf(t, "%s = [", key);
    if (total <= LINE_WIDTH) {
        for (size_t k = 0; k < n; k++) {
            pd_text_puts(t, k ? ", " : "");
            put_toml_string(t, v[k]);
        }
        pd_text_puts(t, "]\n");
        return;
    }
    size_t col = LINE_WIDTH;
    for (size_t k = 0; k < n; k++) {
        size_t w = toml_len(v[k]) + 2;
        if (col + w > LINE_WIDTH) {
            pd_text_puts(t, "\n    ");
            col = 4;
        } else {
            pd_text_puts(t, " ");
            col++;
        }
        put_toml_string(t, v[k]);
        pd_text_puts(t, ",");
        col += w - 1;
    }
    pd_text_puts(t, "\n]\n");
}

static bool is_dir(const char *dir, const char *rel)
{
    char p[PD_PATH_MAX];
    struct stat st;
    return snprintf(p, sizeof p, "%s/%s", dir, rel) < (int)sizeof p && stat(p, &st) == 0 &&
           S_ISDIR(st.st_mode);
}

static bool is_file(const char *dir, const char *rel)
{
    char p[PD_PATH_MAX];
    struct stat st;
    return snprintf(p, sizeof p, "%s/%s", dir, rel) < (int)sizeof p && stat(p, &st) == 0 &&
           S_ISREG(st.st_mode);
}

/* Python: the folders of top-level packages (flat layout: a folder with an
 * __init__.py), and __pycache__/ when *.py files lie at the top (conftest.py
 * and setup.py are compiled there). Sorted, for a file that does not
 * depend on the directory order. */
static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void python_folders(const char *dir, struct entries *paths)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct entries found = {0};
    bool top_py = false;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        size_t n = strlen(name);
        if (name[0] == '.' || !toml_ok(name))
            continue;
        if (n > 3 && strcmp(name + n - 3, ".py") == 0 && is_file(dir, name))
            top_py = true;
        char init[PD_PATH_MAX];
        if (snprintf(init, sizeof init, "%s/__init__.py", name) < (int)sizeof init &&
            is_dir(dir, name) && is_file(dir, init)) {
            char entry[NAME_MAX + 2];
            snprintf(entry, sizeof entry, "%s/", name);
            add(&found, entry);
        }
    }
    closedir(d);
    qsort(found.v, found.n, sizeof found.v[0], by_name);
    for (size_t k = 0; k < found.n; k++)
        add(paths, found.v[k]);
    if (top_py)
        add(paths, "__pycache__/");
    paths->oom |= found.oom;
    entries_free(&found);
}

/* The folders every run may read without read_paths (pd_system_read_dirs)
 * or the project itself. */
static bool readable_anyway(const char *real, const char *project)
{
    for (size_t k = 0; pd_system_read_dirs[k]; k++)
        if (pd_path_under(real, pd_system_read_dirs[k]))
            return true;
    return pd_path_under(real, project) != NULL;
}

/* path as written in the policy: "~/..." under $HOME, else absolute. */
static void as_written(const char *path, char *out, size_t outlen)
{
    const char *home = getenv("HOME");
    const char *rel =
        home && home[0] == '/' && strcmp(home, "/") != 0 ? pd_path_under(path, home) : NULL;
    if (rel && rel[0])
        snprintf(out, outlen, "~/%s/", rel);
    else
        snprintf(out, outlen, "%s/", path);
}

/* The folder a program is installed in: the one above the program's own
 * folder (above bin/, where its libraries are:
 * ~/.nvm/versions/node/v20/lib/node_modules/npm; above a version manager's
 * shims/), else its own folder - never / or the home folder as a whole. */
static bool install_folder(const char *real, char *out, size_t outlen)
{
    char dir[PD_PATH_MAX], up[PD_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", real);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return false;
    *slash = '\0';
    snprintf(up, sizeof up, "%s", dir);
    slash = strrchr(up, '/');
    if (slash && slash != up)
        *slash = '\0';
    const char *home = getenv("HOME");
    bool too_wide = strcmp(up, "/") == 0 || (home && strcmp(up, home) == 0);
    const char *pick = too_wide ? dir : up;
    if (strcmp(pick, "/") == 0 || (home && strcmp(pick, home) == 0))
        return false;
    snprintf(out, outlen, "%s", pick);
    return true;
}

/* read_paths: where the preset's toolchain is installed, when no run could
 * read it otherwise; one note line per folder. */
static void toolchain_folders(const struct pd_init_preset *p, const char *project,
                              struct entries *reads, struct pd_text *notes)
{
    for (size_t k = 0; p->toolchain[k]; k++) {
        char found[PD_PATH_MAX], real[PD_PATH_MAX], folder[PD_PATH_MAX], entry[PD_PATH_MAX + 4];
        if (!pd_init_which(p->toolchain[k], found, sizeof found) || !realpath(found, real) ||
            readable_anyway(real, project) || !install_folder(real, folder, sizeof folder) ||
            !toml_ok(folder))
            continue;
        as_written(folder, entry, sizeof entry);
        if (listed(reads, entry))
            continue;
        add(reads, entry);
        pd_text_printf(notes, "%s is installed in %s on this machine (found on PATH by init).\n",
                       p->toolchain[k], entry);
    }
    if (p->kind != PD_KIND_RUST || reads->n == 0)
        return;
    /* rustup's cargo and rustc are proxies that read rustup's settings
     * (settings.toml) before they start the toolchain's own */
    char rustup[PD_PATH_MAX], entry[PD_PATH_MAX + 4];
    struct stat st;
    pd_exec_tool_home("RUSTUP_HOME", ".rustup", rustup, sizeof rustup);
    if (rustup[0] == '/' && stat(rustup, &st) == 0 && S_ISDIR(st.st_mode) && toml_ok(rustup)) {
        as_written(rustup, entry, sizeof entry);
        if (!listed(reads, entry)) {
            add(reads, entry);
            pd_text_printf(notes, "rustup's cargo and rustc read their settings in %s.\n", entry);
        }
    }
}

/* go's own tools, which go starts by their path in GOTOOLDIR: asked from
 * this machine's go, outside any module (a go.mod asking for a newer go
 * must not make it download one). */
static const char *const go_tools[] = {"compile", "link",  "asm",  "vet",       "buildid",
                                       "cgo",     "cover", "pack", "test2json", NULL};

static bool go_tool_dir(char *out, size_t outlen)
{
    char go[PD_PATH_MAX], why[PD_MSG_MAX];
    if (!pd_init_which("go", go, sizeof go))
        return false;
    const char *argv[] = {go, "env", "GOTOOLDIR", NULL};
    const char *env[] = {"GOTOOLCHAIN=local", "GOFLAGS=", "GO111MODULE=", NULL};
    struct pd_run_opts o = {.argv = argv, .cwd = "/", .env = env, .timeout_ms = 20000};
    struct pd_run_result r;
    bool ok = pd_run(&o, &r, why, sizeof why) == 0 && r.status == 0 && r.out && r.out[0] == '/';
    if (ok) {
        r.out[strcspn(r.out, "\r\n")] = '\0';
        snprintf(out, outlen, "%s", r.out);
        ok = toml_ok(out);
    }
    pd_run_result_free(&r);
    return ok;
}

static void go_binaries(struct entries *bins, struct pd_text *notes)
{
    char dir[PD_PATH_MAX];
    if (!go_tool_dir(dir, sizeof dir)) {
        pd_text_puts(notes, "go was not found when this file was written: add its tools by\n"
                            "path (go env GOTOOLDIR: compile, link, asm, vet, ...).\n");
        return;
    }
    size_t before = bins->n;
    for (size_t k = 0; go_tools[k]; k++) {
        char tool[PD_PATH_MAX + 16];
        snprintf(tool, sizeof tool, "%s/%s", dir, go_tools[k]);
        if (access(tool, X_OK) == 0)
            add(bins, tool);
    }
    if (bins->n > before)
        pd_text_printf(notes, "go's tools on this machine are in %s.\n", dir);
}

/* Does an .npmrc hold credentials of its own (not ${VAR} references)? */
static bool npmrc_has_credentials(const char *path)
{
    size_t len;
    char *text = pd_file_read(path, &len);
    if (!text)
        return true; /* unreadable: assume the worst */
    bool found = false;
    for (char *line = text; line && *line && !found;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        line += strspn(line, " \t");
        char *eq = strchr(line, '=');
        if (line[0] != '#' && line[0] != ';' && eq) {
            *eq = '\0';
            char *value = eq + 1 + strspn(eq + 1, " \t\"'");
            bool reference = value[0] == '$' && value[1] == '{';
            if (!reference && (strstr(line, "_auth") || strstr(line, "_password") ||
                               strstr(line, "keyfile") || strstr(line, "certfile")))
                found = true;
        }
        line = end ? end + 1 : NULL;
    }
    free(text);
    return found;
}

/* node: a project .npmrc is a built-in secret, and npm reads it on every
 * start: a denied read would deny every npm run. */
static void put_npmrc(struct pd_text *t, const char *dir)
{
    if (!is_file(dir, ".npmrc"))
        return;
    char path[PD_PATH_MAX];
    snprintf(path, sizeof path, "%s/.npmrc", dir);
    comment(t, "Built-in secrets that this project's commands may read anyway (workspace paths;\n"
               "a warning on every run; their values are still redacted from the output).\n"
               "npm reads the project's .npmrc on every start, and .npmrc is a built-in secret\n"
               "(it may hold registry tokens): without this entry every npm run is denied.");
    if (npmrc_has_credentials(path)) {
        comment(t, "This .npmrc holds credentials (_auth, _authToken, _password, a key file),\n"
                   "so the entry is left off: move them out (${NPM_TOKEN} in .npmrc, the token\n"
                   "in the environment) and remove the \"# \" below.");
        pd_text_puts(t, "# allow_secrets = [\".npmrc\"]\n\n");
        return;
    }
    comment(t, "It held no credentials when this file was written.");
    pd_text_puts(t, "allow_secrets = [\".npmrc\"]\n\n");
}

static void put_header(struct pd_text *t, const struct pd_init_preset *p)
{
    pd_text_puts(t, "# .paldron.toml - what an AI agent may do in this project, enforced by "
                    "Paldron.\n");
    pd_text_printf(t,
                   "# Written by `paldron init` for a %s project (--preset %s), which never\n"
                   "# overwrites it: edit it to fit the project.\n",
                   p->title, p->name);
    comment(t, "Every key is optional. The reference - every key, the glob rules, the built-in\n"
               "secrets and protected paths - is docs/policy.md (installed as\n"
               "share/doc/paldron/policy.md). Secrets (.env, *.pem, ~/.ssh/**, ...) are never\n"
               "readable or writable, protected paths (.git/hooks/**, .git/config, .claude/**,\n"
               ".codex/**, ...) and this file never writable, with or without a rule here.\n"
               "`paldron exec -- COMMAND` run anywhere in the project uses this file.\n"
               "Try a rule without an agent:  paldron explain src/.env\n"
               "Check an agent's setup:       paldron doctor");
    pd_text_puts(t, "\n");
}

static void put_paths(struct pd_text *t, const struct pd_init_preset *p, const char *dir,
                      struct entries *paths)
{
    comment(t, "Folders (relative to the project like src/, or absolute) that commands and the\n"
               "agent's file edits may write in, and read. Missing ones are created on first\n"
               "use. Empty: the whole project.");
    comment(t, p->paths_doc);
    if (!p->whole_project) {
        for (size_t k = 0; p->write_always[k]; k++)
            add(paths, p->write_always[k]);
        if (p->kind == PD_KIND_PYTHON)
            python_folders(dir, paths);
        for (size_t k = 0; p->write_present[k]; k++)
            if (is_dir(dir, p->write_present[k]))
                add(paths, p->write_present[k]);
    }
    put_array(t, "allow_paths", (const char *const *)paths->v, paths->n);
    pd_text_puts(t, "\n");
}

static void put_reads(struct pd_text *t, const struct pd_init_preset *p, const char *dir,
                      struct entries *reads)
{
    struct pd_text notes = {0};
    for (size_t k = 0; p->read_always && p->read_always[k]; k++)
        add(reads, p->read_always[k]);
    toolchain_folders(p, dir, reads, &notes);
    comment(t, "More folders commands may read, not write. The project and the system folders\n"
               "(/usr, /bin, /sbin, /lib*, /etc, /opt) are readable with no entry, secrets\n"
               "never; the paths a command is given (cat README.md) are judged as reads.");
    comment(t, p->read_doc);
    comment_notes(t, &notes);
    put_array(t, "read_paths", (const char *const *)reads->v, reads->n);
    pd_text_puts(t, "\n");
}

static void put_binaries(struct pd_text *t, const struct pd_init_preset *p, struct entries *bins)
{
    char known[256];
    struct pd_text notes = {0};
    pd_preset_names(known, sizeof known);
    comment(t, "The programs that may run (shell builtins need no entry); empty: any program.");
    pd_text_printf(t,
                   "# Bare names are the programs PATH finds; presets (docs/policy.md) name\n"
                   "# families of programs: %s.\n",
                   known);
    comment(t, p->binaries_doc);
    for (size_t k = 0; p->binaries && p->binaries[k]; k++)
        add(bins, p->binaries[k]);
    if (p->kind == PD_KIND_GO)
        go_binaries(bins, &notes);
    comment_notes(t, &notes);
    put_array(t, "allow_binaries", (const char *const *)bins->v, bins->n);
    pd_text_puts(t, "\n");
}

char *pd_init_preset_policy(const struct pd_init_preset *p, const char *dir)
{
    struct pd_text t = {0};
    struct entries paths = {0}, reads = {0}, bins = {0};
    put_header(&t, p);
    put_paths(&t, p, dir, &paths);
    put_reads(&t, p, dir, &reads);
    comment(&t, "Paths denied for reading and writing, besides the built-in secrets:\n"
                "gitignore-like globs, matched case-insensitively (\".env\" also denies "
                "src/.ENV).");
    pd_text_puts(&t, "deny_globs = [\".env\", \".env.*\", \"*.pem\", \"**/secrets/**\"]\n\n");
    if (p->kind == PD_KIND_NODE)
        put_npmrc(&t, dir);
    comment(&t, "false: no network. Network programs (curl, wget, ssh, git push ...) are\n"
                "denied, and commands run with loopback only.");
    comment(&t, p->network_doc);
    pd_text_puts(&t, "allow_network = false\n\n");
    put_binaries(&t, p, &bins);
    comment(&t, "true: a command that the kernel cannot isolate (Landlock, seccomp) does not\n"
                "run at all; false runs it with the policy gate and the live gate only, and\n"
                "says so.");
    pd_text_puts(&t, "require_os_isolation = true\n\n");
    comment(&t, "Wall-clock limit of a run, in seconds. A shell call that the agent's hook\n"
                "routes through `paldron exec` gets the shorter of this and the client's own\n"
                "limit.");
    comment(&t, p->timeout_doc);
    pd_text_printf(&t, "timeout_sec = %ld\n\n", p->timeout_sec);
    comment(&t, "CPU seconds each process of a run may use (RLIMIT_CPU; default 60), so that\n"
                "a long test process or compile is not ended before the deadline.");
    pd_text_printf(&t, "cpu_time_sec = %ld\n\n", p->cpu_time_sec);
    comment(&t, "Usual commands, from anywhere in the project:");
    for (size_t k = 0; p->commands[k]; k++)
        pd_text_printf(&t, "#   paldron exec -- %s\n", p->commands[k]);
    bool oom = paths.oom || reads.oom || bins.oom;
    entries_free(&paths);
    entries_free(&reads);
    entries_free(&bins);
    if (oom) {
        pd_text_free(&t);
        return NULL;
    }
    return pd_text_take(&t);
}
