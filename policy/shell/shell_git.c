/* policy/shell/shell_git.c - git: global options, the subcommand, and the
 * arguments each subcommand takes.
 *
 * Global options: -C DIR resolves the rest against DIR (every possible
 * working directory); -c and --config-env set configuration (aliases,
 * hooks, helpers, pagers and editors run commands), --git-dir,
 * --work-tree, --exec-path=, --namespace point git at other things: those
 * are unjudged, as are GIT_* assignments (shell_literal.c).
 * The subcommand: a network one (clone, fetch, pull, push, ls-remote,
 * remote update, submodule update, ...) with allow_network = false is a
 * literal deny; one that is not a git command (an alias from some config,
 * a git-NAME program) is unjudged; config that may write, apply, am, clean
 * (without -n), rebase -x/-i, bisect run, filter-branch, difftool,
 * mergetool, credential and the like are unjudged.
 * Arguments: pathspecs after `--`, and operands of path subcommands (add,
 * rm, mv, restore, commit, ...), are paths read, written or deleted as the
 * subcommand does; for subcommands that take revisions (diff, log, show,
 * checkout, reset, ...) an operand is a path when it starts with / ./ ../
 * ~, is . or .., or names an existing file, and REV:PATH reads PATH.
 * Branch and tag names, messages, remotes and URLs are not paths;
 * --output and -o write. A pathspec with magic (:...) or a glob that git
 * expands itself is unjudged. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/hosts.h"
#include "policy/shell/shell_judge.h"

#define G_NET  0x01u /* needs the network */
#define G_UNJ  0x02u /* always unjudged */
#define G_DRY  0x04u /* unjudged unless a dry-run option (N) is given */
#define G_PATT 0x08u /* the first operand is a pattern unless -e/-f (grep) */

struct gsub {
    const char *name;
    char operands; /* R W X: paths; r w: revisions or paths; D data; M mv; C create */
    unsigned flags;
    const char *spec;
    const char *why; /* G_UNJ / G_DRY: what it does */
};

#define REVS                                                                                       \
    "--output:W --ext-diff:u --format:D --pretty:D -n:D --max-count:D --since:D --until:D "        \
    "--author:D --committer:D --grep:D -S:D -G:D -L:D --skip:D --date:D --abbrev:D -U:D "          \
    "--unified:D --stat?:D --relative?:D -O:R --diff-filter:D --word-diff?:D --color?:D "          \
    "--src-prefix:D --dst-prefix:D --line-prefix:D -M?:D -C?:D -B?:D -l:D -I:D --anchored:D "      \
    "--find-object:D --submodule?:D --ignore-submodules?:D --notes?:D --decorate?:D "              \
    "--exclude:D --branches?:D --tags?:D --remotes?:D --glob:D --min-parents:D "                   \
    "--max-parents:D --encoding:D --expand-tabs?:D --output-indicator-new:D "                      \
    "--output-indicator-old:D --output-indicator-context:D --rotate-to:D --skip-to:D"

static const struct gsub subs[] = {
    {"add", 'R', 0, "--chmod:D --pathspec-from-file:U", NULL},
    {"rm", 'X', 0, "--pathspec-from-file:U --cached:o", NULL},
    {"mv", 'M', 0, "", NULL},
    {"restore", 'W', 0, "-s:D --source:D --pathspec-from-file:U --staged:o --worktree:f -W:f",
     NULL},
    {"checkout", 'w', 0, "-b:D -B:D --orphan:D --conflict:D --pathspec-from-file:U", NULL},
    {"switch", 'D', 0, "-c:D -C:D --create:D --force-create:D --orphan:D --conflict:D", NULL},
    {"reset", 'r', 0, "--pathspec-from-file:U", NULL},
    {"commit", 'r', 0,
     "-m:D --message:D -F:R --file:R -t:R --template:R -C:D -c:D --reuse-message:D "
     "--reedit-message:D --fixup:D --squash:D --author:D --date:D --trailer:D --cleanup:D "
     "--pathspec-from-file:U -S?:D --gpg-sign?:D",
     NULL},
    {"stash", 'w', 0, "-m:D --message:D --pathspec-from-file:U", NULL},
    {"status", 'R', 0, "--porcelain?:D -u?:D --untracked-files?:D --ignored?:D --column?:D", NULL},
    {"diff", 'r', 0, REVS, NULL},
    {"log", 'r', 0, REVS, NULL},
    {"show", 'r', 0, REVS, NULL},
    {"whatchanged", 'r', 0, REVS, NULL},
    {"shortlog", 'r', 0, REVS " -w?:D --group:D", NULL},
    {"range-diff", 'r', 0, REVS " --creation-factor:D", NULL},
    {"format-patch", 'r', 0,
     REVS " -o:W --output-directory:W -v:D --reroll-count:D --subject-prefix:D --in-reply-to:D "
          "--to:D --cc:D --from?:D --add-header:D --signature-file:R --cover-letter:f "
          "--base:D --interdiff:D --range-diff:D --suffix:D --filename-max-length:D",
     NULL},
    {"blame", 'r', 0,
     "-L:D -S:R --contents:R --ignore-rev:D --ignore-revs-file:R -C?:D -M?:D --date:D "
     "--abbrev?:D",
     NULL},
    {"annotate", 'r', 0, "-L:D -S:R --contents:R", NULL},
    {"grep", 'r', G_PATT,
     "-e:P -f:Q -O:U --open-files-in-pager:U -A:D -B:D -C:D --context:D --after-context:D "
     "--before-context:D -m:D --max-count:D --threads:D --max-depth:D --color?:D",
     NULL},
    {"ls-files", 'R', 0,
     "-x:D --exclude:D -X:R --exclude-from:R --exclude-per-directory:D "
     "--format:D --with-tree:D --abbrev?:D",
     NULL},
    {"ls-tree", 'D', 0, "--format:D --abbrev?:D", NULL},
    {"cat-file", 'r', 0, "--batch?:u --batch-check?:u --batch-command?:u --path:D --filters:f",
     NULL},
    {"rev-parse", 'D', 0, "--prefix:D --default:D --abbrev-ref?:D --short?:D --git-path:D", NULL},
    {"rev-list", 'D', 0, REVS, NULL},
    {"describe", 'D', 0, "--match:D --exclude:D --abbrev?:D --dirty?:D --broken?:D --candidates:D",
     NULL},
    {"name-rev", 'D', 0, "--refs:D --exclude:D", NULL},
    {"diff-tree", 'r', 0, REVS, NULL},
    {"diff-index", 'r', 0, REVS, NULL},
    {"diff-files", 'R', 0, REVS, NULL},
    {"show-branch", 'D', 0, "", NULL},
    {"show-ref", 'D', 0, "", NULL},
    {"for-each-ref", 'D', 0,
     "--format:D --sort:D --count:D --points-at:D --merged?:D "
     "--no-merged?:D --contains?:D --no-contains?:D --exclude:D",
     NULL},
    {"reflog", 'D', 0, REVS, NULL},
    {"cherry", 'D', 0, "--abbrev?:D", NULL},
    {"merge-base", 'D', 0, "", NULL},
    {"count-objects", 'D', 0, "", NULL},
    {"fsck", 'D', 0, "", NULL},
    {"verify-commit", 'D', 0, "", NULL},
    {"verify-tag", 'D', 0, "", NULL},
    {"check-ignore", 'R', 0, "", NULL},
    {"check-attr", 'R', 0, "--source:D", NULL},
    {"check-mailmap", 'D', 0, "", NULL},
    {"check-ref-format", 'D', 0, "", NULL},
    {"branch", 'D', 0,
     "-u:D --set-upstream-to:D -m:D -M:D -c:D -C:D -d:D -D:D --contains?:D --no-contains?:D "
     "--merged?:D --no-merged?:D --points-at:D --format:D --sort:D --color?:D --column?:D "
     "--abbrev?:D",
     NULL},
    {"tag", 'D', 0,
     "-m:D --message:D -F:R --file:R -u:D --local-user:D --cleanup:D --sort:D "
     "--format:D --contains?:D --no-contains?:D --merged?:D --no-merged?:D "
     "--points-at?:D --column?:D -n?:D",
     NULL},
    {"merge", 'D', 0,
     "-m:D -F:R --file:R -s:D --strategy:D -X:D --strategy-option:D "
     "--into-name:D --cleanup:D -S?:D --gpg-sign?:D",
     NULL},
    {"cherry-pick", 'D', 0,
     "-m:D --mainline:D -s:f --strategy:D -X:D --strategy-option:D "
     "--cleanup:D -S?:D --gpg-sign?:D",
     NULL},
    {"revert", 'D', 0,
     "-m:D --mainline:D --strategy:D -X:D --strategy-option:D --cleanup:D "
     "-S?:D --gpg-sign?:D",
     NULL},
    {"rebase", 'D', 0,
     "-x:U --exec:U -i:u --interactive:u --onto:D -s:D --strategy:D -X:D "
     "--strategy-option:D -C:D --whitespace:D -S?:D --gpg-sign?:D",
     NULL},
    {"notes", 'D', 0, "-m:D --message:D -F:R --file:R -C:D -c:D --ref:D", NULL},
    {"remote", 'D', 0, "-t:D -m:D --mirror?:D", NULL},
    {"submodule", 'D', 0, "-b:D --branch:D --name:D --reference:R --depth:D", NULL},
    {"worktree", 'D', 0, "-b:D -B:D --reason:D --expire:D", NULL},
    {"sparse-checkout", 'D', 0, "", NULL},
    {"update-index", 'R', 0, "--chmod:D --cacheinfo:D --index-info:u --stdin:u", NULL},
    {"update-ref", 'D', 0, "-m:D --stdin:f", NULL},
    {"symbolic-ref", 'D', 0, "-m:D", NULL},
    {"hash-object", 'R', 0, "-t:D --path:D --stdin-paths:u", NULL},
    {"mktree", 'D', 0, "", NULL},
    {"mktag", 'D', 0, "", NULL},
    {"commit-tree", 'D', 0, "-m:D -F:R -p:D -S?:D", NULL},
    {"write-tree", 'D', 0, "--prefix:D", NULL},
    {"read-tree", 'D', 0, "--prefix:D --index-output:W", NULL},
    {"checkout-index", 'W', 0, "--prefix:U --stage:D", NULL},
    {"stripspace", 'D', 0, "", NULL},
    {"interpret-trailers", 'R', 0, "--trailer:D --where:D --if-exists:D --if-missing:D", NULL},
    {"column", 'D', 0, "--mode:D --raw-mode:D --width:D --indent:D --nl:D --padding:D", NULL},
    {"var", 'D', 0, "", NULL},
    {"version", 'D', 0, "", NULL},
    {"help", 'D', 0, "", NULL},
    {"init", 'C', 0,
     "--template:U --separate-git-dir:W -b:D --initial-branch:D "
     "--object-format:D --shared?:D",
     NULL},
    {"gc", 'D', 0, "--prune?:D", NULL},
    {"prune", 'D', 0, "--expire:D", NULL},
    {"repack", 'D', 0, "", NULL},
    {"pack-refs", 'D', 0, "", NULL},
    {"rerere", 'D', 0, "", NULL},
    {"replace", 'D', 0, "--format:D", NULL},
    {"bundle", 'D', G_UNJ, "", "writes or reads bundle files"},
    {"archive", 'r', 0,
     "-o:W --output:W --remote:D --exec:U --prefix:D --format:D --add-file:R "
     "--add-virtual-file:D",
     NULL},
    {"patch-id", 'D', 0, "", NULL},
    {"merge-file", 'W', 0, "-L:D", NULL},
    {"merge-tree", 'D', 0, "", NULL},
    {"apply", 'R', G_DRY,
     "--directory:D --exclude:D --include:D -p:D -C:D --whitespace:D "
     "--check:N --stat:N --numstat:N --summary:N",
     "applies a patch, which writes the files it names"},
    {"am", 'R', G_DRY,
     "--directory:D --exclude:D --include:D -p:D -C:D --whitespace:D "
     "-S?:D --gpg-sign?:D",
     "applies patches, which write the files they name"},
    {"clean", 'R', G_DRY, "-e:D --exclude:D -n:N --dry-run:N",
     "deletes files found at run time (secrets among them)"},
    {"config", 'D', 0, "", NULL}, /* judged by judge_config */
    {"bisect", 'D', 0, "", NULL}, /* bisect run: judge_bisect */
    /* network (allow_network) */
    {"clone", 'C', G_NET,
     "--template:U -u:U --upload-pack:U -c:U --config:U --reference:R --reference-if-able:R "
     "--separate-git-dir:W -o:D --origin:D -b:D --branch:D --depth:D --shallow-since:D "
     "--shallow-exclude:D --filter:D --bundle-uri:D -j:D --jobs:D --server-option:D",
     NULL},
    {"fetch", 'D', G_NET,
     "--upload-pack:U --depth:D --deepen:D --shallow-since:D "
     "--shallow-exclude:D --refmap:D -o:D --server-option:D -j:D --jobs:D "
     "--negotiation-tip:D --filter:D",
     NULL},
    {"pull", 'D', G_NET,
     "--upload-pack:U --depth:D -s:D --strategy:D -X:D "
     "--strategy-option:D -j:D --jobs:D",
     NULL},
    {"push", 'D', G_NET, "--receive-pack:U --exec:U -o:D --push-option:D --repo:D", NULL},
    {"ls-remote", 'D', G_NET, "--upload-pack:U --sort:D -o:D --server-option:D", NULL},
    {"send-email", 'R', G_NET, "", NULL},
    {"request-pull", 'D', G_NET, "", NULL},
    {"imap-send", 'D', G_NET, "", NULL},
    {"fetch-pack", 'D', G_NET, "", NULL},
    {"send-pack", 'D', G_NET, "", NULL},
    {"http-fetch", 'D', G_NET, "", NULL},
    {"http-push", 'D', G_NET, "", NULL},
    {"lfs", 'D', 0, "", NULL}, /* lfs fetch/pull/push/clone: judge_network */
    /* programs, editors, credentials, daemons */
    {"difftool", 'D', G_UNJ, "", "runs a diff tool from the configuration"},
    {"mergetool", 'D', G_UNJ, "", "runs a merge tool from the configuration"},
    {"filter-branch", 'D', G_UNJ, "", "runs shell code on every commit"},
    {"filter-repo", 'D', G_UNJ, "", "runs code on every commit"},
    {"instaweb", 'D', G_UNJ, "", "starts a web server and a browser"},
    {"web--browse", 'D', G_UNJ, "", "starts a browser"},
    {"credential", 'D', G_UNJ, "", "reads or stores credentials"},
    {"credential-store", 'D', G_UNJ, "", "reads or stores credentials"},
    {"credential-cache", 'D', G_UNJ, "", "reads or stores credentials"},
    {"daemon", 'D', G_UNJ, "", "serves repositories"},
    {"hook", 'D', G_UNJ, "", "runs hooks"},
    {"maintenance", 'D', G_UNJ, "", "schedules and runs maintenance tasks"},
    {"for-each-repo", 'D', G_UNJ, "", "runs git commands in other repositories"},
    {"quiltimport", 'D', G_UNJ, "", "applies patches, which write the files they name"},
    {"subtree", 'D', G_UNJ, "", "merges or splits trees from other repositories"},
    {"bugreport", 'D', G_UNJ, "", "writes a report file"},
    {"diagnose", 'D', G_UNJ, "", "writes a diagnostics archive"},
    {"fast-import", 'D', G_UNJ, "", "imports a stream read at run time"},
    {"fast-export", 'D', 0, "", NULL},
    {"unpack-file", 'D', 0, "", NULL},
    {"upload-pack", 'D', G_UNJ, "", "serves a repository"},
    {"receive-pack", 'D', G_UNJ, "", "receives pushes (and runs hooks)"},
    {"upload-archive", 'D', G_UNJ, "", "serves archives"},
    {"shell", 'D', G_UNJ, "", "runs commands"},
};

static const struct gsub *find_sub(const char *name)
{
    for (size_t k = 0; k < sizeof subs / sizeof subs[0]; k++)
        if (strcmp(subs[k].name, name) == 0)
            return &subs[k];
    return NULL;
}

/* Is the literal operand a path rather than a revision? */
static bool pathish(const struct sh_judge *j, const char *t)
{
    return t[0] == '/' || t[0] == '~' || strncmp(t, "./", 2) == 0 || strncmp(t, "../", 3) == 0 ||
           strcmp(t, ".") == 0 || strcmp(t, "..") == 0 || sj_is_file(j, t) || sj_is_dir(j, t);
}

struct gstate {
    const struct gsub *sub;
    const struct pd_sh_word *dashdash; /* the first `--`, or NULL */
    bool pattern_given, dry, index_only, saw_pattern;
    const struct pd_sh_word *first_operand; /* mv: sources and destination */
    size_t noperands;
    /* allow_hosts and a subcommand that reaches the network: the URLs it
     * names are judged, and the operand at repo (the repository; SIZE_MAX:
     * none) also in its ssh form host:path */
    bool hosts;
    size_t repo;
    char what[64]; /* "git clone", for messages */
};

/* allow_hosts: judge the remote text names (a URL; an ssh-style
 * [user@]host:path where a repository stands, or with a user). */
static void g_remote(struct sh_judge *j, const struct gstate *g, const struct pd_sh_word *w,
                     const char *t, bool repo)
{
    struct pd_verdict hv;
    if (j->denied || !sj_is_literal(w) || !(pd_host_is_url(t) || repo || strchr(t, '@')))
        return;
    if (pd_host_deny_target(j->c->policy, g->what, t, 0, &hv))
        sj_deny(j, &hv, NULL);
}

static void g_opt(struct sh_judge *j, void *ud, const struct sj_opt *o)
{
    struct gstate *g = ud;
    if (g->hosts && o->arg && o->argw)
        g_remote(j, g, o->argw, o->arg, false); /* push --repo=URL */
    if (o->kind == 'P' || o->kind == 'Q')
        g->pattern_given = true;
    if (o->kind == 'N')
        g->dry = true;
    if (o->kind == 'o')
        g->index_only = true; /* rm --cached, restore --staged: names, no file */
    if (o->kind == 'u' || o->kind == 'U') {
        sj_unjudged(j, "`git %s %s` runs or reads what cannot be judged statically", g->sub->name,
                    o->optw->text);
        return;
    }
    sj_opt_common(j, o);
}

/* A pathspec: magic and git's own globs cannot be read statically. */
static void pathspec(struct sh_judge *j, const struct gstate *g, enum pd_op op,
                     const struct pd_sh_word *w)
{
    const char *t = w->text;
    if (sj_is_literal(w) && (t[0] == ':' || strpbrk(t, "*?["))) {
        sj_unjudged(j, "`%s` is a pathspec git expands itself (git %s)", t, g->sub->name);
        return;
    }
    sj_write(j, op, w, NULL);
}

static void g_operand(struct sh_judge *j, void *ud, size_t index, const struct pd_sh_word *w)
{
    struct gstate *g = ud;
    char mode = g->sub->operands;
    bool after = g->dashdash && w > g->dashdash;
    g->noperands++;
    if (!g->first_operand)
        g->first_operand = w;
    if (g->hosts)
        g_remote(j, g, w, w->text, index == g->repo);
    if (j->denied)
        return;
    if ((g->sub->flags & G_PATT) && !g->pattern_given && !g->saw_pattern && !after) {
        g->saw_pattern = true;
        sj_data(j, w, NULL, false);
        return;
    }
    (void)index;
    enum pd_op op = PD_OP_READ;
    if (g->index_only) {
        sj_names(j, w, NULL);
        return;
    }
    switch (mode) {
    case 'W':
    case 'w':
        op = PD_OP_WRITE;
        break;
    case 'X':
        op = PD_OP_DELETE;
        break;
    case 'C':
        op = PD_OP_CREATE;
        break;
    case 'M':
        op = PD_OP_DELETE; /* the last one is the destination: judge_mv */
        break;
    default:
        op = PD_OP_READ;
    }
    if (after || mode == 'R' || mode == 'W' || mode == 'X' || mode == 'M') {
        pathspec(j, g, op, w);
        return;
    }
    if (mode == 'C') {
        if (strcmp(g->sub->name, "clone") == 0 && index == 0)
            sj_data(j, w, NULL, false); /* the repository (a URL) */
        else
            sj_write(j, op, w, NULL);
        return;
    }
    if (mode == 'D') {
        sj_data(j, w, NULL, false);
        return;
    }
    /* r / w: a revision, a path, or REV:PATH */
    if (!sj_is_literal(w)) {
        sj_write(j, op, w, NULL); /* reports the expansion */
        return;
    }
    const char *t = w->text;
    const char *colon = strchr(t, ':');
    if (t[0] == ':') /* :path and :N:path name the index's copy */
        colon = isdigit((unsigned char)t[1]) && t[2] == ':' ? t + 2 : t;
    if (pathish(j, t))
        pathspec(j, g, op, w);
    else if (colon && colon[1])
        sj_read(j, w, colon + 1);
}

/* git config: only the forms that read are judged; any other may write. */
static void judge_config(struct sh_judge *j, const struct pd_sh_word *w, size_t n, size_t i)
{
    static const char *const reads[] = {
        "--get",       "--get-all",       "--get-regexp", "--get-urlmatch", "--list", "-l",
        "--get-color", "--get-colorbool", "get",          "list",           NULL};
    size_t operands = 0;
    bool read = false;
    for (size_t k = i + 1; k < n; k++) {
        const char *t = w[k].text;
        for (size_t r = 0; reads[r]; r++)
            if (strcmp(t, reads[r]) == 0)
                read = true;
        if ((strcmp(t, "-f") == 0 || strcmp(t, "--file") == 0 || strcmp(t, "--blob") == 0) &&
            k + 1 < n)
            sj_read(j, &w[++k], NULL);
        else if (strncmp(t, "--file=", 7) == 0)
            sj_read(j, &w[k], t + 7);
        else if (t[0] != '-')
            operands++;
    }
    if (!read && operands != 1)
        sj_unjudged(j, "git config may write the configuration (aliases, hooks, helpers and "
                       "pagers run commands)");
}

/* Subcommands of subcommands that reach the network. */
static bool sub_network(const char *sub, const struct pd_sh_word *w, size_t n, size_t i)
{
    const char *next = NULL;
    bool fetch_flag = false, no_query = false, auto_head = false;
    for (size_t k = i + 1; k < n; k++) {
        const char *t = w[k].text;
        if (t[0] != '-') {
            if (!next)
                next = t;
            continue;
        }
        fetch_flag |= strcmp(t, "-f") == 0 || strcmp(t, "--fetch") == 0;
        no_query |= strcmp(t, "-n") == 0;
        auto_head |= strcmp(t, "-a") == 0 || strcmp(t, "--auto") == 0;
    }
    if (!next)
        return false;
    if (strcmp(sub, "remote") == 0)
        return strcmp(next, "update") == 0 || strcmp(next, "prune") == 0 ||
               (strcmp(next, "show") == 0 && !no_query) ||
               (strcmp(next, "add") == 0 && fetch_flag) ||
               (strcmp(next, "set-head") == 0 && auto_head);
    if (strcmp(sub, "submodule") == 0)
        return strcmp(next, "update") == 0 || strcmp(next, "add") == 0;
    if (strcmp(sub, "lfs") == 0)
        return strcmp(next, "fetch") == 0 || strcmp(next, "pull") == 0 ||
               strcmp(next, "push") == 0 || strcmp(next, "clone") == 0;
    return false;
}

/* The subcommand and its arguments, with the working directories of -C. */
static void judge_sub(struct sh_judge *j, const struct pd_sh_word *w, size_t n, size_t i)
{
    const char *name = w[i].text;
    const struct gsub *sub = find_sub(name);
    bool net = sub && (sub->flags & G_NET);
    net |= strcmp(name, "remote") == 0 || strcmp(name, "submodule") == 0 || strcmp(name, "lfs") == 0
               ? sub_network(name, w, n, i)
               : false;
    if (strcmp(name, "archive") == 0)
        for (size_t k = i + 1; k < n; k++)
            net |= strncmp(w[k].text, "--remote", 8) == 0;
    const bool hosts = net && pd_hosts_enabled(j->c->policy);
    if (net && !j->c->policy->allow_network && !hosts) {
        const char *what = "";
        if (!(sub && (sub->flags & G_NET)))
            for (size_t k = i + 1; k < n && !what[0]; k++)
                if (w[k].text[0] != '-')
                    what = w[k].text;
        sj_deny_msg(j, PD_REASON_NETWORK, "allow_network",
                    "git %s%s%s needs the network (allow_network = false)", name,
                    what[0] ? " " : "", what);
        return;
    }
    if (!sub) {
        sj_unjudged(j,
                    "`git %s` is not a git command: an alias from a configuration or a "
                    "git-%s program would run",
                    name, name);
        for (size_t k = i + 1; k < n && !j->denied; k++)
            sj_generic(j, &w[k]);
        return;
    }
    if (sub->flags & G_UNJ)
        sj_unjudged(j, "git %s %s", name, sub->why);
    if (strcmp(name, "config") == 0) {
        judge_config(j, w, n, i);
        return;
    }
    if (strcmp(name, "submodule") == 0 || strcmp(name, "bisect") == 0) {
        for (size_t k = i + 1; k < n; k++)
            if (strcmp(w[k].text, "foreach") == 0 || strcmp(w[k].text, "run") == 0) {
                sj_unjudged(j, "git %s %s runs a command", name, w[k].text);
                if (k + 1 < n) {
                    sj_program(j, &w[k + 1]);
                    sj_dispatch(j, w + k + 1, n - k - 1);
                }
                return;
            }
    }
    struct gstate g = {sub, NULL, false, false, false, false, NULL, 0, hosts, SIZE_MAX, ""};
    if (hosts) {
        snprintf(g.what, sizeof g.what, "git %s", name);
        if (sub->flags & G_NET)
            g.repo = 0; /* clone, fetch, pull, push, ls-remote: the repository first */
        else if (strcmp(name, "remote") == 0)
            g.repo = 2; /* remote add NAME URL */
        else if (strcmp(name, "submodule") == 0)
            g.repo = 1;                                  /* submodule add URL */
        for (size_t k = i + 1; k < n && !j->denied; k++) /* archive --remote[=]REPO */
            if (strncmp(w[k].text, "--remote=", 9) == 0)
                g_remote(j, &g, &w[k], w[k].text + 9, true);
            else if (strcmp(w[k].text, "--remote") == 0 && k + 1 < n)
                g_remote(j, &g, &w[k + 1], w[k + 1].text, true);
        if (j->denied)
            return;
    }
    for (size_t k = i + 1; k < n; k++)
        if (strcmp(w[k].text, "--") == 0 && sj_is_literal(&w[k])) {
            g.dashdash = &w[k];
            break;
        }
    struct sj_walk_cb cb = {g_opt, g_operand, &g};
    sj_walk(j, w, n, i + 1, sub->spec, 0, &cb);
    if (sub->operands == 'M' && g.noperands >= 2) {
        /* git mv SRC... DST: the destination is written, not deleted */
        const struct pd_sh_word *last = NULL;
        for (size_t k = n; k-- > i + 1;)
            if (w[k].text[0] != '-') {
                last = &w[k];
                break;
            }
        if (last)
            sj_write(j, PD_OP_WRITE, last, NULL);
    }
    if ((sub->flags & G_DRY) && !g.dry)
        sj_unjudged(j, "git %s %s", name, sub->why);
}

void sj_git(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    const struct sj_cwds *saved = j->cwd;
    struct sj_cwds *moved = NULL;
    size_t i = 1;
    for (; i < n && !j->denied; i++) {
        const char *t = w[i].text;
        if (!sj_is_literal(&w[i])) {
            if (t[0] == '-' || (w[i].flags & PD_SH_W_SPLIT)) {
                sj_unjudged(j, "`%s` is %s where git expects its options", t,
                            sj_kind_name(sj_word_kind(&w[i], NULL)));
                continue;
            }
            break;
        }
        if (t[0] != '-')
            break;
        if (strcmp(t, "-C") == 0 && i + 1 < n) {
            const struct pd_sh_word *d = &w[++i];
            char dir[PD_PATH_MAX];
            struct sj_cwds *next = malloc(sizeof *next);
            if (!next || !sj_is_literal(d) || !sj_literal_path(j, d, NULL, dir, sizeof dir)) {
                free(next);
                sj_unjudged(j, "`git -C %s`: %s is not a directory known statically", d->text,
                            sj_kind_name(sj_word_kind(d, NULL)));
                continue;
            }
            next->n = 0;
            if (!sj_cwd_apply(j, j->cwd, dir, next)) {
                free(next);
                sj_unjudged(j, "`git -C %s` may be in more than %d directories", d->text,
                            SJ_MAX_CWD);
                continue;
            }
            free(moved);
            moved = next;
            j->cwd = moved;
        } else if (strcmp(t, "-c") == 0 || strcmp(t, "--config-env") == 0 ||
                   strncmp(t, "--config-env=", 13) == 0) {
            sj_unjudged(j,
                        "`git %s` sets configuration for the command (aliases, hooks, helpers, "
                        "pagers and editors run commands)",
                        t);
            if (!strchr(t, '='))
                i++;
        } else if (strcmp(t, "--git-dir") == 0 || strcmp(t, "--work-tree") == 0 ||
                   strcmp(t, "--namespace") == 0 || strcmp(t, "--super-prefix") == 0 ||
                   strcmp(t, "--attr-source") == 0) {
            sj_unjudged(j, "`git %s` points git at another repository, tree or program", t);
            i++;
        } else if (strncmp(t, "--git-dir=", 10) == 0 || strncmp(t, "--work-tree=", 12) == 0 ||
                   strncmp(t, "--exec-path=", 12) == 0 || strncmp(t, "--namespace=", 12) == 0 ||
                   strncmp(t, "--super-prefix=", 15) == 0) {
            sj_unjudged(j, "`git %s` points git at another repository, tree or program", t);
        }
        /* -P, --no-pager, --paginate, --bare, --*-pathspecs, --version, ...: nothing */
    }
    if (i < n && !j->denied) {
        if (!sj_is_literal(&w[i]))
            sj_unjudged(j, "`%s` is %s where git expects its subcommand", w[i].text,
                        sj_kind_name(sj_word_kind(&w[i], NULL)));
        else
            judge_sub(j, w, n, i);
    }
    j->cwd = saved;
    free(moved);
}
