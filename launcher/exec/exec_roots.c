/* launcher/exec/exec_roots.c - allow_paths folders that do not exist yet. The
 * kernel rules are built from paths that exist (Landlock grants nothing on
 * a missing one), so with allow_paths = ["build/"] and no build/, the live
 * gate allowed `mkdir build` and the kernel refused it without a word. The
 * launcher creates them first, as the invoking user (it is that user), and
 * says so once per folder. Only inside the workspace, and never through a
 * link: each component is created with mkdirat and opened with O_NOFOLLOW
 * from the workspace down, so a link planted anywhere on the way stops the
 * walk instead of leading it elsewhere. An entry that the policy itself
 * denies (a protected or secret name) is not created either. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/exec/exec.h"

/* Create rel (no "." or ".." left, relative to the workspace) component by
 * component. Returns 1 when something was created, 0 when it all existed,
 * -1 with errno (ELOOP or ENOTDIR: a link or a file on the way). */
static int make_below(const char *workspace, const char *rel)
{
    char buf[PD_PATH_MAX];
    snprintf(buf, sizeof buf, "%s", rel);
    int fd = open(workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int created = 0;
    if (fd < 0)
        return -1;
    char *save = NULL;
    bool failed = false;
    for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (mkdirat(fd, c, 0777) == 0) { /* the umask decides, as for mkdir -p */
            created = 1;
        } else if (errno != EEXIST) {
            failed = true;
            break;
        }
        int next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        close(fd);
        if (next < 0) {
            errno = e == ENOTDIR ? ELOOP : e; /* O_NOFOLLOW on a link: ELOOP or ENOTDIR */
            return -1;
        }
        fd = next;
    }
    int e = errno;
    close(fd);
    errno = e;
    return failed ? -1 : created;
}

static void one(const struct pd_ctx *ctx, const char *entry, FILE *out)
{
    char lexical[PD_PATH_MAX], joined[PD_PATH_MAX], resolved[PD_PATH_MAX];
    struct stat st;
    if (pd_path_normalize(ctx->workspace, ctx->home, entry, resolved, sizeof resolved) != 0)
        return; /* pd_ctx_init resolved it already: nothing new to say */
    if (lstat(resolved, &st) == 0)
        return;
    if (entry[0] == '/')
        snprintf(joined, sizeof joined, "%s", entry);
    else if (entry[0] == '~' && (entry[1] == '/' || entry[1] == '\0'))
        snprintf(joined, sizeof joined, "%s/%s", ctx->home, entry + 1);
    else
        snprintf(joined, sizeof joined, "%s/%s", ctx->workspace, entry);
    pd_path_clean(joined, lexical, sizeof lexical);
    const char *rel = pd_path_under(lexical, ctx->workspace);
    if (!rel || !rel[0] || !pd_path_under(resolved, ctx->workspace)) {
        fprintf(out, "paldron: not created %s (allow_paths): outside the workspace\n", entry);
        return;
    }
    if (strcmp(lexical, resolved) != 0) {
        fprintf(out, "paldron: not created %s (allow_paths): it leads through a symbolic link\n",
                entry);
        return;
    }
    struct pd_verdict v;
    pd_gate_path(ctx, PD_OP_CREATE, NULL, resolved, &v);
    if (v.deny) {
        fprintf(out, "paldron: not created %s (allow_paths): %s\n", entry, v.message);
        return;
    }
    int rc = make_below(ctx->workspace, rel);
    if (rc > 0)
        fprintf(out, "paldron: created %s (allow_paths)\n", entry);
    else if (rc < 0)
        fprintf(out, "paldron: not created %s (allow_paths): %s\n", entry,
                errno == ELOOP ? "it leads through a symbolic link" : strerror(errno));
}

void pd_exec_make_roots(const struct pd_ctx *ctx, FILE *out)
{
    const struct pd_strv *ap = &ctx->policy->allow_paths;
    for (size_t k = 0; k < ap->n; k++)
        one(ctx, ap->v[k], out);
}
