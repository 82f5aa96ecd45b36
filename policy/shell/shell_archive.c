/* policy/shell/shell_archive.c - programs that write names found in their input:
 * tar, unzip, zip, cpio and patch.
 *
 * tar: -f FILE is written when the archive is made (c, r, u, A, --delete)
 * and read otherwise; extraction writes the names the archive holds
 * (unjudged, with or without -C; the -C folder is judged as written);
 * made from a directory it reads every file below (unjudged), from files
 * it reads them (relative to -C DIR);
 * -I/--use-compress-program, --to-command, --checkpoint-action, -F and
 * --rsh-command run programs (unjudged); host:file archives use the
 * network. Old-style keys (tar czf out.tgz src) are read too.
 * unzip extracts (unjudged) unless it lists, tests or prints; zip writes
 * its archive and reads its files (-r on a directory: unjudged); cpio is
 * always unjudged; patch writes the files its patch names (unjudged unless
 * --dry-run), -i FILE is read and -o/-r FILE written. */
#include <stdlib.h>
#include <string.h>

#include "policy/hosts.h"
#include "policy/shell/shell_judge.h"

#define MAX_OPS 64

/* host:file (tar's remote archives) */
static bool remote(const char *t)
{
    const char *colon = strchr(t, ':'), *slash = strchr(t, '/');
    return colon && colon != t && (!slash || colon < slash);
}

struct tar {
    char mode; /* c x t r u A d D(--delete); 0 unknown */
    const struct pd_sh_word *file, *dir;
    const char *file_text, *dir_text;
    const struct pd_sh_word *ops[MAX_OPS];
    size_t nops;
};

/* Long options with an argument, and what it is. */
static char tar_long(const char *name, size_t len)
{
    static const struct {
        const char *n;
        char k;
    } opts[] = {{"file", 'f'},
                {"directory", 'C'},
                {"files-from", 'U'},
                {"exclude-from", 'R'},
                {"exclude", 'D'},
                {"use-compress-program", 'U'},
                {"to-command", 'U'},
                {"checkpoint-action", 'U'},
                {"rsh-command", 'U'},
                {"info-script", 'U'},
                {"new-volume-script", 'U'},
                {"index-file", 'W'},
                {"listed-incremental", 'W'},
                {"owner", 'D'},
                {"group", 'D'},
                {"mode", 'D'},
                {"mtime", 'D'},
                {"transform", 'U'},
                {"xform", 'U'},
                {"strip-components", 'D'},
                {"format", 'D'},
                {"label", 'D'},
                {"blocking-factor", 'D'},
                {"record-size", 'D'},
                {"newer", 'D'},
                {"after-date", 'D'},
                {"newer-mtime", 'D'},
                {"suffix", 'D'},
                {"tape-length", 'D'},
                {"volno-file", 'W'},
                {"owner-map", 'R'},
                {"group-map", 'R'},
                {NULL, 0}};
    for (size_t k = 0; opts[k].n; k++)
        if (strlen(opts[k].n) == len && strncmp(opts[k].n, name, len) == 0)
            return opts[k].k;
    return 0;
}

static char tar_mode_long(const char *name, size_t len)
{
    static const struct {
        const char *n;
        char m;
    } modes[] = {{"create", 'c'}, {"extract", 'x'}, {"get", 'x'},         {"list", 't'},
                 {"append", 'r'}, {"update", 'u'},  {"concatenate", 'A'}, {"catenate", 'A'},
                 {"diff", 'd'},   {"compare", 'd'}, {"delete", 'D'},      {NULL, 0}};
    for (size_t k = 0; modes[k].n; k++)
        if (strlen(modes[k].n) == len && strncmp(modes[k].n, name, len) == 0)
            return modes[k].m;
    return 0;
}

/* An option letter with an argument (kind), or 0. */
static char tar_short(char ch)
{
    switch (ch) {
    case 'f':
        return 'f';
    case 'C':
        return 'C';
    case 'T':
    case 'I':
    case 'F':
        return 'U';
    case 'X':
        return 'R';
    case 'g':
        return 'W';
    case 'b':
    case 'N':
    case 'L':
    case 'V':
    case 'H':
    case 'K':
        return 'D';
    default:
        return 0;
    }
}

static void tar_arg(struct sh_judge *j, struct tar *t, char kind, const struct pd_sh_word *aw,
                    const char *arg, const char *opt)
{
    if (!aw)
        return;
    switch (kind) {
    case 'f':
        t->file = aw;
        t->file_text = arg;
        break;
    case 'C':
        t->dir = aw;
        t->dir_text = arg;
        break;
    case 'U':
        sj_unjudged(j, "tar %s runs a program or reads names at run time", opt);
        break;
    case 'R':
        sj_read(j, aw, arg);
        break;
    case 'W':
        sj_write(j, PD_OP_WRITE, aw, arg);
        break;
    default:
        sj_data(j, aw, arg, false);
    }
}

static void tar_members(struct sh_judge *j, struct tar *t)
{
    const struct sj_cwds *saved = j->cwd;
    struct sj_cwds *moved = NULL;
    char dir[PD_PATH_MAX];
    if (t->dir) {
        moved = malloc(sizeof *moved);
        if (!moved || !sj_is_literal(t->dir) ||
            !sj_literal_path(j, t->dir, t->dir_text, dir, sizeof dir)) {
            free(moved);
            sj_unjudged(j, "tar -C %s is not a directory known statically", t->dir_text);
            return;
        }
        moved->n = 0;
        if (!sj_cwd_apply(j, j->cwd, dir, moved)) {
            free(moved);
            sj_unjudged(j, "tar -C %s may be in more than %d directories", t->dir_text, SJ_MAX_CWD);
            return;
        }
        j->cwd = moved;
    }
    for (size_t k = 0; k < t->nops && !j->denied; k++) {
        const struct pd_sh_word *m = t->ops[k];
        sj_read(j, m, NULL);
        if (sj_is_literal(m) && sj_is_dir(j, m->text))
            sj_unjudged(j, "tar archives every file below %s, secrets included", m->text);
    }
    j->cwd = saved;
    free(moved);
}

void sj_tar(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    struct tar t = {0, NULL, NULL, NULL, NULL, {NULL}, 0};
    size_t i = 1;
    bool options = true;
    /* old style: the first word is the key, its arguments follow in order */
    if (n > 1 && sj_is_literal(&w[1]) && w[1].text[0] != '-' && w[1].text[0]) {
        const char *key = w[1].text;
        i = 2;
        for (const char *c = key; *c; c++) {
            if (strchr("cxtruAd", *c))
                t.mode = *c;
            char kind = tar_short(*c);
            if (kind) {
                const struct pd_sh_word *aw = i < n ? &w[i++] : NULL;
                char opt[3] = {'-', *c, '\0'};
                tar_arg(j, &t, kind, aw, aw ? aw->text : NULL, opt);
            }
        }
    }
    for (; i < n && !j->denied; i++) {
        const char *s = w[i].text;
        if (!options || s[0] != '-' || !s[1]) {
            if (t.nops < MAX_OPS)
                t.ops[t.nops++] = &w[i];
            else
                sj_unjudged(j, "tar is given more than %d members to judge", MAX_OPS);
            continue;
        }
        if (strcmp(s, "--") == 0) {
            options = false;
            continue;
        }
        if (!sj_is_literal(&w[i])) {
            sj_unjudged(j, "`%s` is %s where tar expects an option", s,
                        sj_kind_name(sj_word_kind(&w[i], NULL)));
            continue;
        }
        if (s[1] == '-') {
            const char *name = s + 2, *eq = strchr(s, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            char mode = tar_mode_long(name, len);
            if (mode)
                t.mode = mode;
            char kind = tar_long(name, len);
            if (kind) {
                const struct pd_sh_word *aw = eq ? &w[i] : (i + 1 < n ? &w[++i] : NULL);
                tar_arg(j, &t, kind, aw, eq ? eq + 1 : (aw ? aw->text : NULL), s);
            }
            continue;
        }
        for (const char *c = s + 1; *c; c++) {
            if (strchr("cxtruAd", *c))
                t.mode = *c;
            char kind = tar_short(*c);
            if (!kind)
                continue;
            const struct pd_sh_word *aw = c[1] ? &w[i] : (i + 1 < n ? &w[++i] : NULL);
            char opt[3] = {'-', *c, '\0'};
            tar_arg(j, &t, kind, aw, c[1] ? c + 1 : (aw ? aw->text : NULL), opt);
            break;
        }
    }
    if (j->denied)
        return;
    bool makes = t.mode == 'c' || t.mode == 'r' || t.mode == 'u' || t.mode == 'A' || t.mode == 'D';
    if (t.file) {
        if (sj_is_literal(t.file) && remote(t.file_text) && !j->c->policy->allow_network) {
            struct pd_verdict hv;
            if (!pd_hosts_enabled(j->c->policy)) {
                sj_deny_msg(j, PD_REASON_NETWORK, "allow_network",
                            "tar archive %s on another host needs the network (allow_network = "
                            "false)",
                            t.file_text);
                return;
            }
            /* allow_hosts: tar reaches host:file over rsh/ssh, port 22 */
            if (pd_host_deny_target(j->c->policy, "tar", t.file_text, 0, &hv)) {
                sj_deny(j, &hv, NULL);
                return;
            }
        } else {
            sj_write(j, makes ? PD_OP_WRITE : PD_OP_READ, t.file, t.file_text);
        }
    }
    if (t.mode == 'x') {
        if (t.dir)
            sj_write(j, PD_OP_WRITE, t.dir, t.dir_text); /* a denied folder is a literal deny */
        sj_unjudged(j, "tar -x writes the names the archive holds%s%s", t.dir ? " below " : "",
                    t.dir ? t.dir_text : "");
        return;
    }
    if (t.mode == 'c' || t.mode == 'r' || t.mode == 'u')
        tar_members(j, &t);
    else
        for (size_t k = 0; k < t.nops && !j->denied; k++)
            sj_data(j, t.ops[k], NULL, false);
    if (!t.mode)
        sj_unjudged(j, "tar without a known mode");
}

/* ---- unzip, zip, cpio, patch ----------------------------------------------- */

static void unzip(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    bool extract = true, archive_seen = false, excluding = false;
    for (size_t i = 1; i < n && !j->denied; i++) {
        const char *s = w[i].text;
        if (sj_is_literal(&w[i]) && s[0] == '-' && s[1]) {
            excluding = false;
            if (strcmp(s, "-d") == 0 && i + 1 < n) {
                sj_write(j, PD_OP_WRITE, &w[++i], NULL);
                continue;
            }
            if (strcmp(s, "-x") == 0) {
                excluding = true;
                continue;
            }
            if (strcmp(s, "-P") == 0 && i + 1 < n) {
                i++;
                continue;
            }
            if (strpbrk(s + 1, "lvtzZpc"))
                extract = false;
            continue;
        }
        if (!archive_seen) {
            archive_seen = true;
            sj_read(j, &w[i], NULL);
        } else {
            sj_data(j, &w[i], NULL, excluding); /* member names and patterns */
        }
    }
    if (extract && archive_seen)
        sj_unjudged(j, "unzip writes the names the archive holds");
}

static void zip(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    bool recursive = false, archive_seen = false, patterns = false;
    for (size_t i = 1; i < n && !j->denied; i++) {
        const char *s = w[i].text;
        if (sj_is_literal(&w[i]) && s[0] == '-' && s[1]) {
            patterns = false;
            if (strcmp(s, "-TT") == 0 || strncmp(s, "--unzip-command", 15) == 0 ||
                strcmp(s, "-@") == 0 || strcmp(s, "--names-stdin") == 0) {
                sj_unjudged(j, "zip %s runs a program or reads names at run time", s);
                if (!strchr(s, '=') && s[1] != '@' && strcmp(s, "--names-stdin") != 0)
                    i++;
            } else if (strcmp(s, "-O") == 0 || strcmp(s, "--output-file") == 0) {
                if (i + 1 < n)
                    sj_write(j, PD_OP_WRITE, &w[++i], NULL);
            } else if (strcmp(s, "-i") == 0 || strcmp(s, "-x") == 0 ||
                       strcmp(s, "--include") == 0 || strcmp(s, "--exclude") == 0) {
                patterns = true;
            } else if (strchr("bnPtZ", s[1]) && !s[2] && i + 1 < n) {
                i++;
            } else if (s[1] != '-' && strpbrk(s + 1, "rR")) {
                recursive = true;
            } else if (strcmp(s, "--recurse-paths") == 0) {
                recursive = true;
            }
            continue;
        }
        if (patterns) {
            sj_data(j, &w[i], NULL, false);
        } else if (!archive_seen) {
            archive_seen = true;
            sj_write(j, PD_OP_WRITE, &w[i], NULL);
        } else {
            sj_read(j, &w[i], NULL);
            if (recursive && sj_is_literal(&w[i]) && sj_is_dir(j, w[i].text))
                sj_unjudged(j, "zip -r archives every file below %s, secrets included", w[i].text);
        }
    }
}

static void patch(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    static const char *const spec =
        "-i:R --input:R -o:W --output:W -r:W --reject-file:W -d:D --directory:D -p:D --strip:D "
        "-B:D --prefix:D -Y:D --basename-prefix:D -z:D --suffix:D -V:D --version-control:D "
        "-D:D --ifdef:D -F:D --fuzz:D -g:D --get:D --dry-run:N --quoting-style:D";
    bool dry = false;
    for (size_t i = 1; i < n; i++)
        dry |= strcmp(w[i].text, "--dry-run") == 0;
    size_t operand = 0;
    for (size_t i = 1; i < n && !j->denied; i++) {
        const char *s = w[i].text;
        if (s[0] == '-' && s[1]) {
            char kind = sj_opt_kind(spec, s);
            const char *eq = s[1] == '-' ? strchr(s, '=') : (s[2] ? s + 1 : NULL);
            if (!strchr("RWD", kind))
                continue;
            const struct pd_sh_word *aw = eq ? &w[i] : (i + 1 < n ? &w[++i] : NULL);
            const char *arg = eq ? eq + 1 : (aw ? aw->text : NULL);
            if (!aw)
                break;
            if (kind == 'R')
                sj_read(j, aw, arg);
            else if (kind == 'W')
                sj_write(j, PD_OP_WRITE, aw, arg);
            else
                sj_data(j, aw, arg, false);
            continue;
        }
        if (operand++ == 0)
            sj_write(j, dry ? PD_OP_READ : PD_OP_WRITE, &w[i], NULL);
        else
            sj_read(j, &w[i], NULL);
    }
    if (!dry)
        sj_unjudged(j, "patch writes the files its patch names");
}

void sj_unpack(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    if (strcmp(j->prog, "unzip") == 0)
        unzip(j, w, n);
    else if (strcmp(j->prog, "zip") == 0)
        zip(j, w, n);
    else if (strcmp(j->prog, "patch") == 0)
        patch(j, w, n);
    else
        sj_unjudged(j, "cpio reads or writes names found at run time");
}
