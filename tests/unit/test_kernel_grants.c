/* tests/unit/test_kernel_grants.c - what the kernel layers grant, as the
 * preload reads it (policy/kernel_grants.h): which list grants which
 * operation (the mirror of platform/linux/landlock.c's GRANT_*), the
 * namespace floor's read-only binds, and the compiled policy's grant lines
 * (written by pd_compile_grants, read back by pd_compiled_load_grants,
 * skipped by pd_compiled_load), with read_paths' resolved roots. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

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

Test(kernel_grants, compiled_round_trip)
{
    struct pd_policy p, p2, p3;
    struct pd_ctx c, c2, c3;
    load_ctx(&p, &c, "read_paths = [\"/usr/share\", \"/etc\"]\n");
    struct pd_kernel_grants g = sample(true), back;
    push(&g.write, "/a\nb"); /* escaped like every value */
    char *text = pd_compile_grants(&c, &g);
    cr_assert_not_null(text);
    cr_assert_not_null(strstr(text, "\nkernel 1\n"));
    cr_assert_not_null(strstr(text, "\nread_root /usr/share\n"));
    char err[256];
    cr_assert_eq(pd_compiled_load_grants(text, &p2, &c2, &back, err, sizeof err), 0, "%s", err);
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
    /* pd_compiled_load reads the same text and leaves the grant lines */
    cr_assert_eq(pd_compiled_load(text, &p3, &c3, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c3.nread_roots, 2);
    free(text);
    pd_ctx_free(&c3);
    pd_policy_free(&p3);
    /* pd_compile: no grant lines, the layers off */
    text = pd_compile(&c);
    cr_assert_null(strstr(text, "kernel"));
    pd_kernel_grants_free(&back);
    cr_assert_eq(pd_compiled_load_grants(text, &p3, &c3, &back, err, sizeof err), 0, "%s", err);
    free(text);
    cr_assert_not(back.on);
    cr_assert_eq(back.exec.n, 0);
    pd_kernel_grants_free(&g);
    pd_kernel_grants_free(&back);
    pd_ctx_free(&c);
    pd_policy_free(&p);
    pd_ctx_free(&c2);
    pd_policy_free(&p2);
    pd_ctx_free(&c3);
    pd_policy_free(&p3);
}

Test(kernel_grants, unknown_grant_line_is_an_error)
{
    struct pd_policy p;
    struct pd_ctx c;
    struct pd_kernel_grants g;
    char err[256];
    const char *text = "paldron-compiled 1\nworkspace /\nkernel 1\nkernel_bogus /x\nend\n";
    cr_assert_eq(pd_compiled_load_grants(text, &p, &c, &g, err, sizeof err), -1);
    cr_assert_not_null(strstr(err, "kernel_bogus"), "%s", err);
    cr_assert_eq(g.exec.n, 0);
}
