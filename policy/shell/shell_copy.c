/* policy/shell/shell_copy.c - cp, mv, install, ln, rsync and scp: sources and a
 * destination. The destination is -t DIR / --target-directory=DIR, or the
 * last operand; it is written, and so is DIR/<base name of each source>
 * when it is (or must be) a directory. Sources are read (mv: deleted from
 * where they are, judged by the write rules; ln: the new name may reach
 * them). ln -s and cp -s make symbolic links that later paths of the same
 * command may go through, which the gate cannot follow: unjudged (the link
 * target is still judged as a read, from the link's directory too).
 * rsync and scp operands of the form host:path are remote: the network. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/hosts.h"
#include "policy/shell/shell_judge.h"

#define MAX_OPS 64

#define COPY_SPEC                                                                                  \
    "-t:T --target-directory:T -S:D --suffix:D --backup?:D --reflink?:D --sparse:D "               \
    "--preserve?:D --no-preserve:D --context?:D -m:D --mode:D -o:D --owner:D -g:D --group:D "      \
    "--strip-program:U -T:f --no-target-directory:f -s:u --symbolic:u -d:N --directory:N"
#define RSYNC_SPEC                                                                                 \
    "-e:U --rsh:U --rsync-path:U --files-from:U --exclude-from:R --include-from:R --exclude:D "    \
    "--include:D -f:D --filter:D --log-file:W --backup-dir:W --partial-dir:D -T:D "                \
    "--temp-dir:D --password-file:R --link-dest:R --copy-dest:R --compare-dest:R --chmod:D "       \
    "--chown:D --usermap:D --groupmap:D --timeout:D --bwlimit:D --max-size:D --min-size:D "        \
    "--port:D --sockopts:D --out-format:D --log-file-format:D -M:D --remote-option:D --iconv:D "   \
    "--protocol:D --checksum-choice:D --compress-choice:D --compress-level:D --skip-compress:D "   \
    "--info:D --debug:D --stop-after:D --stop-at:D --max-delete:D --modify-window:D -B:D "         \
    "--block-size:D --suffix:D --write-batch:W --only-write-batch:W --read-batch:R --outbuf:D "    \
    "--address:D --contimeout:D --early-input:R"
#define SCP_SPEC "-i:R -F:R -o:D -P:D -l:D -c:D -S:U -J:D -D:U -X:D"

struct copy {
    const struct pd_sh_word *target; /* -t DIR: the word, and the text in it */
    const char *target_text;
    bool no_target_dir, dirs_only, symbolic;
    const struct pd_sh_word *ops[MAX_OPS];
    size_t nops;
    bool too_many;
    unsigned port; /* scp -P PORT (0: none) */
};

static void c_opt(struct sh_judge *j, void *ud, const struct sj_opt *o)
{
    struct copy *c = ud;
    if (o->kind == 'T') {
        c->target = o->argw;
        c->target_text = o->arg;
        return;
    }
    if (o->kind == 'f' && o->len >= 1 && (o->name[0] == 'T' || strncmp(o->name, "no-t", 4) == 0))
        c->no_target_dir = true;
    if (o->kind == 'N')
        c->dirs_only = true;
    if (o->len == 1 && o->name[0] == 'P' && o->arg && strcmp(j->prog, "scp") == 0) {
        char *end;
        unsigned long port = strtoul(o->arg, &end, 10);
        c->port = !*end && port > 0 && port <= 65535 ? (unsigned)port : 0;
    }
    if (o->kind == 'u') {
        c->symbolic = true;
        sj_unjudged(j, "`%s %s` makes symbolic links that later paths may go through", j->prog,
                    o->optw->text);
        return;
    }
    sj_opt_common(j, o);
}

static void c_operand(struct sh_judge *j, void *ud, size_t index, const struct pd_sh_word *w)
{
    struct copy *c = ud;
    (void)j;
    (void)index;
    if (c->nops < MAX_OPS)
        c->ops[c->nops++] = w;
    else
        c->too_many = true;
}

/* host:path, user@host:path, rsync://host/path */
static bool remote(const char *t)
{
    const char *colon = strchr(t, ':'), *slash = strchr(t, '/');
    if (strncmp(t, "rsync://", 8) == 0)
        return true;
    return colon && colon != t && (!slash || colon < slash);
}

static const char *base_name(const char *s)
{
    size_t len = strlen(s);
    while (len > 1 && s[len - 1] == '/')
        len--;
    const char *b = s + len;
    while (b > s && b[-1] != '/')
        b--;
    return b;
}

/* DIR/<base of src> as a written path. */
static void into_dir(struct sh_judge *j, const struct pd_sh_word *dir, const char *dir_text,
                     const struct pd_sh_word *src)
{
    char path[PD_PATH_MAX], base[PD_PATH_MAX];
    if (!sj_is_literal(dir) || !sj_is_literal(src))
        return;
    snprintf(base, sizeof base, "%s", base_name(src->text));
    base[strcspn(base, "/")] = '\0';
    if (!base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        return;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir_text, base) >= sizeof path) {
        sj_unjudged(j, "the destination of %s is longer than the path limit", j->prog);
        return;
    }
    struct pd_sh_word pw = {path, dir->flags & PD_SH_W_TILDE};
    sj_write(j, PD_OP_WRITE, &pw, NULL);
}

/* ln -s TARGET NAME: TARGET is resolved from NAME's directory. */
static void link_target(struct sh_judge *j, const struct pd_sh_word *target,
                        const struct pd_sh_word *name, bool name_is_dir)
{
    sj_read(j, target, NULL);
    if (!sj_is_literal(target) || !sj_is_literal(name) || target->text[0] == '/')
        return;
    char path[PD_PATH_MAX];
    const char *slash = strrchr(name->text, '/');
    int len = name_is_dir ? (int)strlen(name->text) : slash ? (int)(slash - name->text) : 0;
    if (len == 0)
        return;
    if ((size_t)snprintf(path, sizeof path, "%.*s/%s", len, name->text, target->text) <
        sizeof path) {
        struct pd_sh_word pw = {path, 0};
        sj_read(j, &pw, NULL);
    }
}

void sj_copy(struct sh_judge *j, const struct pd_sh_word *w, size_t n)
{
    const char *name = j->prog;
    bool rsync = strcmp(name, "rsync") == 0, scp = strcmp(name, "scp") == 0;
    bool mv = strcmp(name, "mv") == 0, ln = strcmp(name, "ln") == 0;
    struct copy c = {NULL, NULL, false, false, false, {NULL}, 0, false, 0};
    struct sj_walk_cb cb = {c_opt, c_operand, &c};
    sj_walk(j, w, n, 1, rsync ? RSYNC_SPEC : scp ? SCP_SPEC : COPY_SPEC, 0, &cb);
    if (c.too_many)
        sj_unjudged(j, "%s is given more than %d operands to judge", name, MAX_OPS);
    if (rsync || scp)
        for (size_t k = 0; k < c.nops; k++) {
            if (!sj_is_literal(c.ops[k]) || !remote(c.ops[k]->text) || j->c->policy->allow_network)
                continue;
            struct pd_verdict hv;
            if (pd_hosts_enabled(j->c->policy)) {
                /* through the run's proxy: the host it names is judged */
                if (pd_host_deny_target(j->c->policy, name, c.ops[k]->text, c.port, &hv)) {
                    sj_deny(j, &hv, NULL);
                    return;
                }
                continue;
            }
            sj_deny_msg(j, PD_REASON_NETWORK, "allow_network",
                        "%s to or from %s needs the network (allow_network = false)", name,
                        c.ops[k]->text);
            return;
        }
    if (c.dirs_only) { /* install -d DIR...: directories made */
        for (size_t k = 0; k < c.nops && !j->denied; k++)
            sj_write(j, PD_OP_CREATE, c.ops[k], NULL);
        return;
    }
    const struct pd_sh_word *dest = c.target;
    const char *dest_text = c.target_text;
    size_t nsrc = c.nops;
    if (!dest && c.nops >= 2) {
        dest = c.ops[--nsrc];
        dest_text = dest->text;
    }
    enum pd_op src_op = mv ? PD_OP_DELETE : PD_OP_READ;
    for (size_t k = 0; k < nsrc && !j->denied; k++) {
        const struct pd_sh_word *s = c.ops[k];
        if ((rsync || scp) && sj_is_literal(s) && remote(s->text))
            continue;
        if (ln && c.symbolic)
            link_target(j, s, dest ? dest : s, dest && (c.target || sj_is_dir(j, dest_text)));
        else
            sj_write(j, src_op, s, NULL);
    }
    if (!dest) {
        if (ln && nsrc == 1 && sj_is_literal(c.ops[0])) { /* ln TARGET: ./<base> */
            char here[] = ".";
            const struct pd_sh_word dot = {here, 0};
            into_dir(j, &dot, ".", c.ops[0]);
        }
        return;
    }
    if ((rsync || scp) && sj_is_literal(dest) && remote(dest_text))
        return;
    sj_write(j, ln ? PD_OP_CREATE : PD_OP_WRITE, dest, dest_text);
    size_t dl = strlen(dest_text);
    bool dir = c.target || nsrc > 1 ||
               (sj_is_literal(dest) && dl && (sj_is_dir(j, dest_text) || dest_text[dl - 1] == '/'));
    if (dir && !c.no_target_dir)
        for (size_t k = 0; k < nsrc && !j->denied; k++)
            into_dir(j, dest, dest_text, c.ops[k]);
}
