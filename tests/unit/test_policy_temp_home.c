/* tests/unit/test_policy_temp_home.c - the run's private temp home in the
 * context (pd_ctx.temp_home, pd_in_temp_home) and in the compiled policy the
 * live gate reads: an agent wrapped whole by paldron exec keeps its own
 * session files there, and the built-in secret names are not the user's
 * there (docs/policy.md, "Built-in lists"). */
#include "test_policy_fixture.h"

#include "policy/compiled_image.h"

static char ws[PD_PATH_MAX], home[PD_PATH_MAX];
static struct pd_policy pol;
static struct pd_ctx ctx;

static void setup(void)
{
    tp_mkdtemp(ws, sizeof ws, "th-ws");
    tp_mkdtemp(home, sizeof home, "th-home");
    pd_policy_defaults(&pol);
    struct pd_error err;
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, "/nonexistent-home", &err), 0, "%s", err.msg);
}

static void teardown(void)
{
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    tp_rmtree(ws);
    tp_rmtree(home);
}

Test(temp_home, unset_by_default_and_never_matches, .init = setup, .fini = teardown)
{
    cr_expect_str_empty(ctx.temp_home, "pd_ctx_init leaves the temp home to exec");
    char path[PD_PATH_MAX];
    tp_join(path, sizeof path, home, ".claude/sessions/1.key");
    cr_expect_not(pd_in_temp_home(&ctx, path));
    cr_expect_not(pd_in_temp_home(&ctx, "/"));
}

Test(temp_home, matches_the_home_and_below_only, .init = setup, .fini = teardown)
{
    snprintf(ctx.temp_home, sizeof ctx.temp_home, "%s", home);
    char path[PD_PATH_MAX];
    tp_join(path, sizeof path, home, ".claude/sessions/1.key");
    cr_expect(pd_in_temp_home(&ctx, path));
    cr_expect(pd_in_temp_home(&ctx, home));
    /* a sibling that shares the prefix is not inside */
    char sibling[PD_PATH_MAX + 16];
    snprintf(sibling, sizeof sibling, "%s-other/x.key", home);
    cr_expect_not(pd_in_temp_home(&ctx, sibling));
    tp_join(path, sizeof path, ws, ".env");
    cr_expect_not(pd_in_temp_home(&ctx, path));
    cr_expect_not(pd_in_temp_home(&ctx, NULL));
}

/* The image of ctx (pd_image_build), checked and materialized into p2 and
 * c2; ptrs and *img to free (the lists point into the image). */
static char **round_trip(void **img, struct pd_policy *p2, struct pd_ctx *c2)
{
    size_t len;
    cr_assert_eq(pd_image_build(&ctx, NULL, NULL, img, &len), 0);
    const char *why = pd_image_check(*img, len);
    cr_assert_null(why, "%s", why);
    char **ptrs = calloc(pd_image_nptrs(*img) + 1, sizeof *ptrs);
    cr_assert_not_null(ptrs);
    pd_image_materialize(*img, ptrs, p2, c2, NULL);
    return ptrs;
}

Test(temp_home, survives_the_compiled_round_trip, .init = setup, .fini = teardown)
{
    snprintf(ctx.temp_home, sizeof ctx.temp_home, "%s", home);
    void *img;
    struct pd_policy p2;
    struct pd_ctx c2;
    char **ptrs = round_trip(&img, &p2, &c2);
    const struct pd_image *im = img;
    cr_expect_str_eq(pd_image_str(im, im->temp_home), home);
    cr_expect_str_eq(c2.temp_home, home);
    /* and the gate reads it as before */
    char path[PD_PATH_MAX];
    tp_join(path, sizeof path, home, ".npmrc");
    cr_expect(pd_in_temp_home(&c2, path));
    free(ptrs);
    free(img);
}

Test(temp_home, absent_from_the_compiled_image_when_unset, .init = setup, .fini = teardown)
{
    void *img;
    struct pd_policy p2;
    struct pd_ctx c2;
    char **ptrs = round_trip(&img, &p2, &c2);
    const struct pd_image *im = img;
    cr_expect_str_empty(pd_image_str(im, im->temp_home));
    cr_expect_str_empty(c2.temp_home);
    char path[PD_PATH_MAX];
    tp_join(path, sizeof path, home, ".npmrc");
    cr_expect_not(pd_in_temp_home(&c2, path));
    free(ptrs);
    free(img);
}

/* ---- the gate (policy/gate_path.c) ----------------------------------------- */

/* The context of an exec run: the temp home is $HOME and a writable root. */
static void as_exec_run(void)
{
    snprintf(ctx.temp_home, sizeof ctx.temp_home, "%s", home);
    cr_assert_eq(pd_ctx_add_root(&ctx, home), 0);
}

Test(temp_home, builtin_secret_names_are_the_runs_own_there, .init = setup, .fini = teardown)
{
    as_exec_run();
    static const char *const rels[] = {".claude/sessions/42.abc.key", ".npmrc", ".env",
                                       ".ssh/id_ed25519", "secrets/token"};
    static const enum pd_op ops[] = {PD_OP_READ, PD_OP_WRITE, PD_OP_CREATE, PD_OP_DELETE};
    for (size_t k = 0; k < sizeof rels / sizeof rels[0]; k++)
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            char path[PD_PATH_MAX];
            tp_join(path, sizeof path, home, rels[k]);
            struct pd_verdict v;
            pd_gate_path(&ctx, ops[o], NULL, path, &v);
            cr_expect_not(v.deny, "%s %s: %s", pd_op_name(ops[o]), rels[k], v.message);
        }
}

Test(temp_home, deny_globs_still_apply_there, .init = setup, .fini = teardown)
{
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    struct pd_error err;
    cr_assert_eq(pd_policy_load_string(&pol, "deny_globs = [\"*.key\"]\n", "p.toml", &err), 0, "%s",
                 err.msg);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, "/nonexistent-home", &err), 0, "%s", err.msg);
    as_exec_run();
    char path[PD_PATH_MAX];
    tp_join(path, sizeof path, home, ".claude/sessions/42.abc.key");
    struct pd_verdict v;
    pd_gate_path(&ctx, PD_OP_CREATE, NULL, path, &v);
    cr_expect(v.deny);
    cr_expect_str_eq(TP_S(v.key), "deny_globs");
}

Test(temp_home, secrets_elsewhere_stay_secrets, .init = setup, .fini = teardown)
{
    as_exec_run();
    tp_put(ws, ".env", "TOKEN=x\n", 0600);
    struct pd_verdict v;
    pd_gate_path(&ctx, PD_OP_READ, NULL, ".env", &v);
    cr_expect(v.deny);
    cr_expect_str_eq(TP_S(v.key), "secrets");
    /* a link in the temp home is judged where it leads */
    char target[PD_PATH_MAX];
    tp_join(target, sizeof target, ws, ".env");
    tp_link(home, "innocent.txt", target);
    char link[PD_PATH_MAX];
    tp_join(link, sizeof link, home, "innocent.txt");
    pd_gate_path(&ctx, PD_OP_READ, NULL, link, &v);
    cr_expect(v.deny, "%s", link);
    cr_expect_str_eq(TP_S(v.key), "secrets");
    /* without a temp home (check, env) the names decide as everywhere */
    ctx.temp_home[0] = '\0';
    tp_join(link, sizeof link, home, ".npmrc");
    pd_gate_path(&ctx, PD_OP_CREATE, NULL, link, &v);
    cr_expect(v.deny);
    cr_expect_str_eq(TP_S(v.key), "secrets");
}
