/* launcher/cli/cmd_env.c - `paldron env`: shell lines that load the live gate
 * (the preload library, with this policy) into whatever is started next:
 *   eval "$(paldron env --policy p.toml)"
 * The live gate only: no kernel isolation, no post-run scan, nothing for
 * static binaries or raw system calls. What it prints says so. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/exec/exec.h"
#include "launcher/exec/host_mounts.h"
#include "launcher/launcher.h"
#include "launcher/exec/preload_path.h"
#include "policy/compiled_image.h"

/* Print s single-quoted for sh. */
static void put_quoted(const char *s)
{
    putchar('\'');
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", stdout);
        else
            putchar(*s);
    }
    putchar('\'');
}

/* The image the preload maps (policy/compiled_image.h), with the mounts
 * of this namespace: a sandbox that a gated program makes (bwrap, Codex's
 * own) writes its private tmpfs without a refusal (preload/private_fs.c).
 * Without them (no /proc) such writes are refused as before. */
static int write_compiled(const char *dir, const struct pd_ctx *ctx)
{
    char path[PD_PATH_MAX];
    snprintf(path, sizeof path, "%s/policy.compiled", dir);
    struct pd_image_host host;
    bool have = pd_host_mounts(&host) == 0;
    int rc = pd_image_write(ctx, NULL, have ? &host : NULL, path, 0400);
    int err = errno;
    if (have)
        pd_host_mounts_free(&host);
    errno = err;
    return rc;
}

int pd_cmd_env(const struct pd_cli *cli)
{
    char lib[PD_PATH_MAX];
    if (pd_preload_path(lib, sizeof lib)) {
        char why[PD_MSG_MAX];
        pd_preload_missing_msg(why, sizeof why);
        pd_err("env: %s", why);
        return PD_EXIT_BROKEN;
    }
    struct pd_policy pol;
    struct pd_ctx ctx;
    int rc = pd_cli_load(cli, &pol, &ctx);
    if (rc)
        return rc;
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/')
        tmp = "/tmp";
    char dir[PD_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/paldron-env-XXXXXX", tmp);
    rc = PD_EXIT_BROKEN;
    /* /tmp as well as $TMPDIR: many programs write /tmp whatever TMPDIR
     * says (sandboxes such as Codex's bwrap make their mount points there) */
    if (pd_ctx_add_root(&ctx, tmp) || pd_ctx_add_root(&ctx, "/tmp") ||
        pd_ctx_add_root(&ctx, "/dev/shm")) {
        pd_err("env: %s: %s", tmp, strerror(errno));
    } else if (!mkdtemp(dir)) {
        pd_err("env: cannot create %s: %s", dir, strerror(errno));
    } else if (write_compiled(dir, &ctx)) {
        pd_err("env: cannot write %s/policy.compiled: %s", dir, strerror(errno));
    } else {
        const char *old = getenv("LD_PRELOAD");
        char preload[2 * PD_PATH_MAX];
        snprintf(preload, sizeof preload, "%s%s%s", lib, old && old[0] ? " " : "", old ? old : "");
        puts("# paldron env: the live gate only (preloaded library, policy below).");
        puts("# No kernel isolation, no post-run scan; static binaries and raw system calls");
        puts("# are not covered. Use 'paldron exec' to run a command in the sandbox.");
        printf("# policy: %s, workspace: %s\n", pol.file ? pol.file : "(built-in defaults)",
               ctx.workspace);
        fputs("export PALDRON_RUN=", stdout);
        put_quoted(dir);
        fputs("\nexport PALDRON_PRELOAD=", stdout);
        put_quoted(lib);
        fputs("\nexport LD_PRELOAD=", stdout);
        put_quoted(preload);
        /* as exec does (exec_env.c): the live gate comes first in
         * LD_PRELOAD, which a sanitizer runtime takes for a broken link
         * order and aborts every ASan program on */
        const char *asan = getenv("ASAN_OPTIONS");
        if (!pd_asan_sets_link_order(asan)) {
            char opts[PD_MSG_MAX];
            snprintf(opts, sizeof opts, "%s%sverify_asan_link_order=0", asan ? asan : "",
                     asan && asan[0] ? ":" : "");
            fputs("\nexport ASAN_OPTIONS=", stdout);
            put_quoted(opts);
        }
        putchar('\n');
        rc = PD_EXIT_ALLOW;
    }
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    return rc;
}
