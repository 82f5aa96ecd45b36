/* tests/unit/test_kernel_grants.c - what the kernel layers grant, as the
 * preload reads it (policy/kernel_grants.h): which list grants which
 * operation (the mirror of platform/linux/landlock.c's GRANT_*), the
 * namespace floor's read-only binds, and the grants in the compiled policy
 * image (written by pd_image_build, read back by pd_image_materialize, left
 * out when it is given no grants), with read_paths' resolved roots. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "policy/compiled_image.h"
#include "policy/kernel_grants.h"
#include "policy/policy.h"

static void push(struct pd_strv *l, const char *s)
{
    l->v = realloc(l->v, (l->n + 1) * sizeof *l->v);
    cr_assert_not_null(l->v);
    l->v[l->n++] = strdup(s);
}

/* The grants of a run: system folders to run, the workspace to read, src/
 * and the temp home to write, /dev/null as a device. */
static struct pd_kernel_grants sample(bool no_exec_writes)
{
    struct pd_kernel_grants g;
    memset(&g, 0, sizeof g);
    g.on = true;
    g.no_exec_writes = no_exec_writes;
    push(&g.exec, "/usr");
    push(&g.exec, "/ws/bin/tool");
    push(&g.read, "/ws");
    push(&g.read, "/proc");
    push(&g.write, "/ws/src");
    push(&g.write, "/run/home");
    push(&g.dev, "/dev/null");
    push(&g.readonly, "/ws/.git/config");
    return g;
}

Test(kernel_grants, reads_are_granted_by_every_list)
{
    struct pd_kernel_grants g = sample(false);
    cr_assert(pd_kernel_grants_allow(&g, PD_OP_READ, "/usr/lib/x.so"));
    cr_assert(pd_kernel_grants_allow(&g, PD_OP_READ, "/ws/README"));
    cr_assert(pd_kernel_grants_allow(&g, PD_OP_READ, "/ws/src/a.c"));
    cr_assert(pd_kernel_grants_allow(&g, PD_OP_READ, "/dev/null"));
    cr_assert(pd_kernel_grants_allow(&g, PD_OP_NAME, "/proc/self/status"));
    /* not the home, not a neighbour whose name only begins the same */
    cr_assert_not(pd_kernel_grants_allow(&g, PD_OP_READ, "/home/u/notes.txt"));
    cr_assert_not(pd_kernel_grants_allow(&g, PD_OP_READ, "/wsx/a"));
    cr_assert_not(pd_kernel_grants_allow(&g, PD_OP_READ, "/dev/tty"));
    pd_kernel_grants_free(&g);
}

Test(kernel_grants, writes_need_the_write_or_device_list)
{
    struct pd_kernel_grants g = sample(false);
    cr_assert(pd_kernel_grants_allow(&g, PD_OP_WRITE, "/ws/src/a.c"));
    cr_assert(pd_kernel_grants_allow(&g, PD_OP_WRITE, "/dev/null"));
    cr_assert_not(pd_kernel_grants_allow(&g, PD_OP_WRITE, "/ws/README"));
    cr_assert_not(pd_kernel_grants_allow(&g, PD_OP_WRITE, "/usr/bin/ls"));
    pd_kernel_grants_free(&g);
}

Test(kernel_grants, creates_and_deletes_are_judged_on_the_parent)
{
    struct pd_kernel_grants g = sample(false);
    cr_assert(pd_kernel_grants_allow(&g, PD_OP_CREATE, "/ws/src/new.c"));
    cr_assert(pd_kernel_grants_allow(&g, PD_OP_DELETE, "/ws/src/sub/old.c"));
    /* src itself lies in /ws, which grants no create */
    cr_assert_not(pd_kernel_grants_allow(&g, PD_OP_DELETE, "/ws/src"));
    cr_assert_not(pd_kernel_grants_allow(&g, PD_OP_CREATE, "/ws/.pytest_cache"));
    /* a device grants no create */
    cr_assert_not(pd_kernel_grants_allow(&g, PD_OP_CREATE, "/dev/newdev"));
    cr_assert_not(pd_kernel_grants_allow(&g, PD_OP_CREATE, "/top"));
    pd_kernel_grants_free(&g);
}

Test(kernel_grants, exec_follows_the_floor)
{
    struct pd_kernel_grants g = sample(false);
    cr_assert(pd_kernel_grants_allow(&g, PD_OP_EXEC, "/usr/bin/ls"));
    cr_assert(pd_kernel_grants_allow(&g, PD_OP_EXEC, "/ws/bin/tool"));
    cr_assert(pd_kernel_grants_allow(&g, PD_OP_EXEC, "/ws/src/app"));
    cr_assert_not(pd_kernel_grants_allow(&g, PD_OP_EXEC, "/ws/tools/t.sh"));
    pd_kernel_grants_free(&g);
    /* allow_binaries: the writable roots run nothing */
    g = sample(true);
    cr_assert_not(pd_kernel_grants_allow(&g, PD_OP_EXEC, "/ws/src/app"));
    cr_assert(pd_kernel_grants_allow(&g, PD_OP_EXEC, "/ws/bin/tool"));
    cr_assert_not(pd_kernel_grants_allow(&g, PD_OP_EXEC, "/ws/bin/tool2"));
    pd_kernel_grants_free(&g);
}

Test(kernel_grants, off_grants_everything)
{
    struct pd_kernel_grants g;
    memset(&g, 0, sizeof g);
    cr_assert(pd_kernel_grants_allow(&g, PD_OP_READ, "/home/u/notes.txt"));
    cr_assert(pd_kernel_grants_allow(NULL, PD_OP_EXEC, "/x"));
    cr_assert_null(pd_kernel_grants_readonly(NULL, "/ws/.git/config"));
}

Test(kernel_grants, readonly_binds)
{
    struct pd_kernel_grants g = sample(false);
    cr_assert_str_eq(pd_kernel_grants_readonly(&g, "/ws/.git/config"), "/ws/.git/config");
    cr_assert_null(pd_kernel_grants_readonly(&g, "/ws/.git/config.lock"));
    cr_assert_null(pd_kernel_grants_readonly(&g, "/ws/src/a.c"));
    pd_kernel_grants_free(&g);
}

static void load_ctx(struct pd_policy *p, struct pd_ctx *c, const char *toml)
{
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(p, toml, "t.toml", &err), 0, "%s", err.msg);
    cr_assert_eq(pd_ctx_init(c, p, "/", "", &err), 0, "%s", err.msg);
}

/* pd_image_build (g NULL: the layers off), checked, then materialized into
 * p, c and *g (g NULL: the grants left out). ptrs and *img to free. */
static char **round_trip(const struct pd_ctx *ctx, const struct pd_kernel_grants *grants,
                         void **img, struct pd_policy *p, struct pd_ctx *c,
                         struct pd_kernel_grants *g)
{
    size_t len;
    cr_assert_eq(pd_image_build(ctx, grants, NULL, img, &len), 0);
    const char *why = pd_image_check(*img, len);
    cr_assert_null(why, "%s", why);
    char **ptrs = calloc(pd_image_nptrs(*img) + 1, sizeof *ptrs);
    cr_assert_not_null(ptrs);
    pd_image_materialize(*img, ptrs, p, c, g);
    return ptrs;
}

Test(kernel_grants, compiled_round_trip)
{
    struct pd_policy p, p2;
    struct pd_ctx c, c2;
    load_ctx(&p, &c, "read_paths = [\"/usr/share\", \"/etc\"]\n");
    struct pd_kernel_grants g = sample(true), back;
    push(&g.write, "/a\nb"); /* any byte but NUL survives */
    void *img;
    char **ptrs = round_trip(&c, &g, &img, &p2, &c2, &back);
    cr_assert(((const struct pd_image *)img)->flags & PD_IMAGE_KERNEL);
    cr_assert(back.on);
    cr_assert(back.no_exec_writes);
    cr_assert_eq(back.exec.n, 2);
    cr_assert_str_eq(back.exec.v[1], "/ws/bin/tool");
    cr_assert_eq(back.write.n, 3);
    cr_assert_str_eq(back.write.v[2], "/a\nb");
    cr_assert_eq(back.dev.n, 1);
    cr_assert_str_eq(back.readonly.v[0], "/ws/.git/config");
    cr_assert_eq(c2.nread_roots, 2);
    cr_assert_str_eq(c2.read_roots[0], "/usr/share");
    cr_assert_str_eq(c2.read_roots[1], "/etc");
    /* the grants decide as before the round trip */
    cr_assert_not(pd_kernel_grants_allow(&back, PD_OP_EXEC, "/ws/src/app"));
    cr_assert(pd_kernel_grants_allow(&back, PD_OP_WRITE, "/ws/src/a.c"));
    cr_assert_str_eq(pd_kernel_grants_readonly(&back, "/ws/.git/config"), "/ws/.git/config");
    /* materialized without g: the context is the same, the grants left out */
    free(ptrs);
    ptrs = calloc(pd_image_nptrs(img) + 1, sizeof *ptrs);
    cr_assert_not_null(ptrs);
    pd_image_materialize(img, ptrs, &p2, &c2, NULL);
    cr_assert_eq(c2.nread_roots, 2);
    free(ptrs);
    free(img);
    /* no grants: the layers off */
    ptrs = round_trip(&c, NULL, &img, &p2, &c2, &back);
    cr_assert_not(((const struct pd_image *)img)->flags & PD_IMAGE_KERNEL);
    cr_assert_not(back.on);
    cr_assert_eq(back.exec.n, 0);
    cr_assert(pd_kernel_grants_allow(&back, PD_OP_EXEC, "/ws/src/app"));
    free(ptrs);
    free(img);
    /* grants that are off: the same */
    g.on = false;
    ptrs = round_trip(&c, &g, &img, &p2, &c2, &back);
    cr_assert_not(back.on);
    cr_assert_not(back.no_exec_writes);
    cr_assert_eq(back.write.n, 0);
    free(ptrs);
    free(img);
    pd_kernel_grants_free(&g);
    pd_ctx_free(&c);
    pd_policy_free(&p);
}
