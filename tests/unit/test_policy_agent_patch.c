/* tests/unit/test_policy_agent_patch.c - Codex's apply_patch format:
 * pd_patch_parse, pd_patch_scan, pd_patch_shell_form and pd_gate_patch
 * (headers trimmed as Codex trims them, the lenient heredoc wrapper, Move
 * to, stray headers in the content, the shell forms Codex intercepts). */
#include <criterion/criterion.h>

#include "policy/gate_patch.h"
#include "policy/policy.h"
#include "test_policy_fixture.h"

/* ---- the parser ------------------------------------------------------------ */

struct seen {
    size_t n;
    enum pd_patch_op op[16], header[16];
    char path[16][256];
    size_t line[16];
    size_t stop_at; /* stop after this many entries (0: never) */
};

static bool record(const struct pd_patch_entry *e, void *user)
{
    struct seen *s = user;
    cr_assert_lt(s->n, 16);
    s->op[s->n] = e->op;
    s->header[s->n] = e->header;
    snprintf(s->path[s->n], sizeof s->path[0], "%.*s", (int)e->len, e->path);
    s->line[s->n] = e->line;
    s->n++;
    return !(s->stop_at && s->n >= s->stop_at);
}

static int parse(const char *text, struct seen *s, char *msg, size_t msglen)
{
    memset(s, 0, sizeof *s);
    return pd_patch_parse(text, strlen(text), record, s, msg, msglen);
}

Test(patch_parse, every_operation_in_order)
{
    struct seen s;
    char msg[256];
    const char *p = "*** Begin Patch\n"
                    "*** Add File: path/add.py\n"
                    "+abc\n"
                    "+def\n"
                    "*** Delete File: path/delete.py\n"
                    "*** Update File: path/update.py\n"
                    "*** Move to: path/update2.py\n"
                    "@@ def f():\n"
                    "-    pass\n"
                    "+    return 123\n"
                    "*** Update File: README.md\n"
                    "@@\n"
                    " keep\n"
                    "+more\n"
                    "*** End of File\n"
                    "*** End Patch";
    cr_assert_eq(parse(p, &s, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(s.n, 5);
    cr_expect_eq(s.op[0], PD_PATCH_ADD);
    cr_expect_str_eq(s.path[0], "path/add.py");
    cr_expect_eq(s.line[0], 2);
    cr_expect_eq(s.op[1], PD_PATCH_DELETE);
    cr_expect_str_eq(s.path[1], "path/delete.py");
    cr_expect_eq(s.op[2], PD_PATCH_MOVE_FROM);
    cr_expect_str_eq(s.path[2], "path/update.py");
    cr_expect_eq(s.op[3], PD_PATCH_MOVE_TO);
    cr_expect_str_eq(s.path[3], "path/update2.py");
    cr_expect_eq(s.line[3], 7);
    cr_expect_eq(s.op[4], PD_PATCH_UPDATE);
    cr_expect_str_eq(s.path[4], "README.md");
}

Test(patch_parse, header_indented_by_spaces_is_a_header)
{
    struct seen s;
    char msg[256];
    const char *p = "*** Begin Patch\n"
                    " *** Add File: .git/hooks/pre-commit\n"
                    "+#!/bin/sh\n"
                    "*** End Patch\n";
    cr_assert_eq(parse(p, &s, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(s.n, 1);
    cr_expect_eq(s.op[0], PD_PATCH_ADD);
    cr_expect_str_eq(s.path[0], ".git/hooks/pre-commit");
}

Test(patch_parse, header_indented_by_a_tab_after_an_add)
{
    struct seen s;
    char msg[256];
    const char *p = "*** Begin Patch\n"
                    "*** Add File: src/ok.txt\n"
                    "+fine\n"
                    "\t*** Delete File: .env\n"
                    "*** End Patch";
    cr_assert_eq(parse(p, &s, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(s.n, 2);
    cr_expect_eq(s.op[1], PD_PATCH_DELETE);
    cr_expect_str_eq(s.path[1], ".env");
    cr_expect_eq(s.line[1], 4);
}

Test(patch_parse, unicode_white_space_is_trimmed_too)
{
    struct seen s;
    char msg[256];
    /* U+00A0 and U+3000 before the header, U+2003 after it: Rust's trim() */
    const char *p = "\xe2\x80\x83*** Begin Patch\n"
                    "\xc2\xa0*** Delete File: .env\xe2\x80\x83\n"
                    "\xe3\x80\x80*** End Patch\n";
    cr_assert_eq(parse(p, &s, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(s.n, 1);
    cr_expect_eq(s.op[0], PD_PATCH_DELETE);
    cr_expect_str_eq(s.path[0], ".env");
}

Test(patch_parse, crlf_lines_and_padded_markers)
{
    struct seen s;
    char msg[256];
    const char *p = "  *** Begin Patch  \r\n*** Update File: a.txt\r\n@@\r\n-x\r\n+y\r\n"
                    " *** End Patch \r\n\r\n";
    cr_assert_eq(parse(p, &s, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(s.n, 1);
    cr_expect_eq(s.op[0], PD_PATCH_UPDATE);
    cr_expect_str_eq(s.path[0], "a.txt");
}

Test(patch_parse, lenient_heredoc_wrapper)
{
    struct seen s;
    char msg[256];
    const char *p = "<<'EOF'\n*** Begin Patch\n*** Add File: x.txt\n+1\n*** End Patch\nEOF\n";
    cr_assert_eq(parse(p, &s, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(s.n, 1);
    cr_expect_str_eq(s.path[0], "x.txt");
    cr_expect_eq(s.line[0], 3);
    const char *q = "<<EOF\n*** Begin Patch\n*** Delete File: y.txt\n*** End Patch\nEOF";
    cr_assert_eq(parse(q, &s, msg, sizeof msg), 0, "%s", msg);
    cr_expect_str_eq(s.path[0], "y.txt");
    /* another delimiter word is not Codex's lenient form */
    const char *r = "<<'PATCH'\n*** Begin Patch\n*** Delete File: y.txt\n*** End Patch\nPATCH";
    cr_expect_eq(parse(r, &s, msg, sizeof msg), -1);
}

Test(patch_parse, move_to_must_start_the_raw_line)
{
    struct seen s;
    char msg[256];
    /* " *** Move to:" is no move for Codex: the line is a context line of
     * the first chunk, reported as a stray header */
    const char *p = "*** Begin Patch\n*** Update File: src/a.py\n *** Move to: .env\n+x\n"
                    "*** End Patch";
    cr_assert_eq(parse(p, &s, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(s.n, 2);
    cr_expect_eq(s.op[0], PD_PATCH_UPDATE);
    cr_expect_eq(s.op[1], PD_PATCH_STRAY);
    cr_expect_eq(s.header[1], PD_PATCH_MOVE_TO);
    cr_expect_str_eq(s.path[1], ".env");
}

Test(patch_parse, stray_header_in_update_content)
{
    struct seen s;
    char msg[256];
    const char *p = "*** Begin Patch\n*** Update File: notes.md\n@@\n keep\n"
                    " *** Add File: .git/hooks/post-merge\n-old\n+new\n*** End Patch";
    cr_assert_eq(parse(p, &s, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(s.n, 2);
    cr_expect_eq(s.op[1], PD_PATCH_STRAY);
    cr_expect_eq(s.header[1], PD_PATCH_ADD);
    cr_expect_str_eq(s.path[1], ".git/hooks/post-merge");
    cr_expect_eq(s.line[1], 5);
}

Test(patch_parse, path_keeps_what_follows_the_marker)
{
    struct seen s;
    char msg[256];
    const char *p = "*** Begin Patch\n*** Add File:  two spaces.txt\n+x\n*** End Patch";
    cr_assert_eq(parse(p, &s, msg, sizeof msg), 0, "%s", msg);
    cr_expect_str_eq(s.path[0], " two spaces.txt");
}

Test(patch_parse, empty_patch_is_accepted)
{
    struct seen s;
    char msg[256];
    cr_expect_eq(parse("*** Begin Patch\n*** End Patch\n", &s, msg, sizeof msg), 0);
    cr_expect_eq(s.n, 0);
}

Test(patch_parse, rejected_patches_name_the_line)
{
    struct seen s;
    char msg[256];
    cr_expect_eq(
        parse("*** Begin Patch\n*** Update File: a.py\n*** End Patch", &s, msg, sizeof msg), -1);
    cr_expect(strstr(msg, "line 2") && strstr(msg, "empty"), "%s", msg);
    cr_expect_eq(parse("*** Begin Patch\n*** Copy File: a.py\n*** End Patch", &s, msg, sizeof msg),
                 -1);
    cr_expect(strstr(msg, "line 2") && strstr(msg, "Copy File"), "%s", msg);
    cr_expect_eq(parse("*** Begin Patch\n*** Add File: a\n+x\n", &s, msg, sizeof msg), -1);
    cr_expect(strstr(msg, "End Patch"), "%s", msg);
    cr_expect_eq(parse("hello", &s, msg, sizeof msg), -1);
    cr_expect(strstr(msg, "Begin Patch"), "%s", msg);
    cr_expect_eq(parse("", &s, msg, sizeof msg), -1);
    /* a non-@@ line after a first chunk */
    cr_expect_eq(parse("*** Begin Patch\n*** Update File: a\n@@\n+x\nbad\n*** End Patch", &s, msg,
                       sizeof msg),
                 -1);
    cr_expect(strstr(msg, "line 5"), "%s", msg);
}

Test(patch_parse, callback_stops_the_walk)
{
    struct seen s;
    char msg[256];
    memset(&s, 0, sizeof s);
    s.stop_at = 1;
    const char *p = "*** Begin Patch\n*** Delete File: a\n*** Delete File: b\n*** End Patch";
    cr_expect_eq(pd_patch_parse(p, strlen(p), record, &s, msg, sizeof msg), 1);
    cr_expect_eq(s.n, 1);
}

Test(patch_scan, headers_without_structure)
{
    struct seen s;
    char msg[256];
    memset(&s, 0, sizeof s);
    const char *p = "junk\n  *** Add File: a\n\t*** Delete File: .env\n*** Move to: b\n";
    cr_assert_eq(pd_patch_scan(p, strlen(p), record, &s, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(s.n, 3);
    cr_expect_eq(s.op[0], PD_PATCH_ADD);
    cr_expect_eq(s.op[1], PD_PATCH_DELETE);
    cr_expect_str_eq(s.path[1], ".env");
    cr_expect_eq(s.op[2], PD_PATCH_MOVE_TO);
    memset(&s, 0, sizeof s);
    const char *q = "*** Begin Patch\n*** Rename File: a\n*** End Patch";
    cr_expect_eq(pd_patch_scan(q, strlen(q), record, &s, msg, sizeof msg), -1);
    cr_expect(strstr(msg, "line 2") && strstr(msg, "Rename File"), "%s", msg);
}

/* ---- the shell forms ---------------------------------------------------------- */

static bool form(const char *cmd, char *body, size_t blen, char *dir, size_t dlen)
{
    struct pd_patch_shell f;
    bool ok = pd_patch_shell_form(cmd, &f);
    body[0] = dir[0] = '\0';
    if (ok) {
        snprintf(body, blen, "%.*s", (int)f.body_len, f.body);
        if (f.dir)
            snprintf(dir, dlen, "%.*s", (int)f.dir_len, f.dir);
    }
    return ok;
}

Test(patch_shell, heredoc_forms)
{
    char body[512], dir[128];
    cr_assert(form("apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n",
                   body, sizeof body, dir, sizeof dir));
    cr_expect_str_eq(body, "*** Begin Patch\n*** Delete File: a\n*** End Patch\n");
    cr_expect_str_eq(dir, "");
    cr_assert(
        form("cd src && apply_patch <<\"PATCH\"\nX\nPATCH", body, sizeof body, dir, sizeof dir));
    cr_expect_str_eq(body, "X\n");
    cr_expect_str_eq(dir, "src");
    cr_expect(form("applypatch<<EOF\nplain body\nEOF", body, sizeof body, dir, sizeof dir));
    cr_expect(form("cd 'my dir' && apply_patch <<-'EOF'\nX\n\t\tEOF\n", body, sizeof body, dir,
                   sizeof dir));
    cr_expect_str_eq(dir, "my dir");
}

Test(patch_shell, quoted_argument_forms)
{
    char body[512], dir[128];
    cr_assert(form("apply_patch '*** Begin Patch\n*** Delete File: a\n*** End Patch'", body,
                   sizeof body, dir, sizeof dir));
    cr_expect_str_eq(body, "*** Begin Patch\n*** Delete File: a\n*** End Patch");
    cr_expect(form("cd src && apply_patch \"*** Begin Patch\n*** End Patch\"\n", body, sizeof body,
                   dir, sizeof dir));
}

Test(patch_shell, forms_bash_would_change_or_codex_would_not_take)
{
    char body[512], dir[128];
    static const char *const no[] = {
        "apply_patch <<EOF\n$(cat .env)\nEOF",    /* unquoted: bash expands */
        "apply_patch <<EOF\n`id`\nEOF",           /* unquoted: bash expands */
        "apply_patch \"*** Begin Patch $HOME\"",  /* double quotes expand */
        "echo hi; apply_patch <<'EOF'\nX\nEOF",   /* not the only statement */
        "apply_patch <<'EOF'\nX\nEOF\necho done", /* not the only statement */
        "apply_patch <<'EOF' > out\nX\nEOF",      /* more on the heredoc line */
        "apply_patch <<'EOF'\nX\n",               /* no terminator */
        "cd ~/x && apply_patch <<'EOF'\nX\nEOF",  /* a cd bash expands */
        "cd $D && apply_patch <<'EOF'\nX\nEOF",   /* a cd bash expands */
        "cd a b && apply_patch <<'EOF'\nX\nEOF",  /* two cd arguments */
        "cd src; apply_patch <<'EOF'\nX\nEOF",    /* ; is not && */
        "apply_patch <<<'X'",                     /* a here-string */
        "apply_patch",                            /* no patch */
        "/usr/bin/apply_patch <<'EOF'\nX\nEOF",   /* Codex matches the bare word */
        "apply_patchx <<'EOF'\nX\nEOF",
    };
    for (size_t k = 0; k < sizeof no / sizeof no[0]; k++)
        cr_expect(!form(no[k], body, sizeof body, dir, sizeof dir), "taken: %s", no[k]);
}

/* ---- judging -------------------------------------------------------------------- */

static char ws[PD_PATH_MAX], home[PD_PATH_MAX];
static struct pd_policy pol;
static struct pd_ctx ctx;

static void setup(const char *toml)
{
    struct pd_error err;
    tp_mkdtemp(ws, sizeof ws, "agentpatch-ws");
    tp_mkdtemp(home, sizeof home, "agentpatch-home");
    tp_put(ws, "src/app.py", "print(1)\n", 0644);
    tp_put(ws, ".env", "K=v\n", 0600);
    cr_assert_eq(pd_policy_load_string(&pol, toml, "t.toml", &err), 0, "%s", err.msg);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, home, &err), 0, "%s", err.msg);
}

static void teardown(void)
{
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    tp_rmtree(ws);
    tp_rmtree(home);
}

static void judge(const char *patch, const char *base, const char *reason, const char *fragment)
{
    struct pd_verdict v;
    pd_gate_patch(&ctx, base, patch, strlen(patch), &v);
    if (!reason) {
        cr_expect(!v.deny, "expected allow, got %s\n%s", v.message, patch);
        return;
    }
    cr_expect(v.deny, "expected %s, got allow\n%s", reason, patch);
    if (v.deny) {
        cr_expect_str_eq(v.reason, reason, "%s", v.message);
        if (fragment)
            cr_expect(strstr(v.message, fragment), "'%s' not in '%s'", fragment, v.message);
    }
}

Test(patch_gate, trimmed_headers_are_judged, .fini = teardown)
{
    setup("allow_paths = [\"src/\"]\n");
    judge("*** Begin Patch\n *** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n*** End Patch", NULL,
          PD_REASON_PROTECTED, "apply_patch line 2 (Add File): .git/hooks/pre-commit");
    judge("*** Begin Patch\n*** Add File: src/ok.txt\n+x\n\t*** Delete File: .env\n*** End Patch",
          NULL, PD_REASON_SECRET, "line 4 (Delete File)");
    judge("*** Begin Patch\n*** Add File: src/ok.txt\n+x\n*** End Patch", NULL, NULL, NULL);
}

Test(patch_gate, moves_and_updates, .fini = teardown)
{
    setup("allow_paths = [\"src/\"]\n");
    /* the source of a move is read: .env's content would land in src/ */
    judge("*** Begin Patch\n*** Update File: .env\n*** Move to: src/leak.txt\n@@\n-K=v\n+K=v\n"
          "*** End Patch",
          NULL, PD_REASON_SECRET, "(Update File)");
    judge("*** Begin Patch\n*** Update File: src/app.py\n*** Move to: .claude/settings.json\n@@\n"
          "-print(1)\n+{}\n*** End Patch",
          NULL, PD_REASON_PROTECTED, "(Move to)");
    judge("*** Begin Patch\n*** Update File: setup.py\n@@\n-a\n+b\n*** End Patch", NULL,
          PD_REASON_OUTSIDE_ALLOW, "setup.py");
    judge("*** Begin Patch\n*** Update File: src/app.py\n*** Move to: src/main.py\n@@\n-print(1)\n"
          "+print(2)\n*** End Patch",
          NULL, NULL, NULL);
}

Test(patch_gate, stray_headers_by_the_name_rules, .fini = teardown)
{
    setup("allow_paths = [\"src/\"]\n");
    judge("*** Begin Patch\n*** Update File: src/app.py\n@@\n print(1)\n *** Add File: .env\n+x\n"
          "*** End Patch",
          NULL, PD_REASON_SECRET, "in the content");
    /* a doc that shows a header for a file outside allow_paths is content */
    judge("*** Begin Patch\n*** Update File: src/app.py\n@@\n print(1)\n *** Add File: hello.txt\n"
          "+x\n*** End Patch",
          NULL, NULL, NULL);
}

Test(patch_gate, relative_to_base_and_tilde_literal, .fini = teardown)
{
    setup("");
    char src[PD_PATH_MAX];
    tp_join(src, sizeof src, ws, "src");
    judge("*** Begin Patch\n*** Delete File: ../.env\n*** End Patch", src, PD_REASON_SECRET, NULL);
    judge("*** Begin Patch\n*** Add File: /etc/cron.d/x\n+x\n*** End Patch", src,
          PD_REASON_OUTSIDE_WS, NULL);
    /* Codex writes <cwd>/~/.ssh/authorized_keys, a file of the workspace */
    judge("*** Begin Patch\n*** Add File: ~/.ssh/authorized_keys\n+k\n*** End Patch", src, NULL,
          NULL);
}

Test(patch_gate, rejected_patch_is_denied, .fini = teardown)
{
    setup("");
    judge("*** Begin Patch\n*** Update File: src/app.py\n*** End Patch", NULL, PD_REASON_GUARDRAIL,
          "line 2");
    judge("*** Begin Patch\n*** Frobnicate File: src/app.py\n*** End Patch", NULL,
          PD_REASON_GUARDRAIL, "Frobnicate");
    /* rejected, but a header in it names a secret: that reason is given */
    judge("*** Begin Patch\n*** Add File: src/x\n+a\nbad line\n*** Delete File: .env\n"
          "*** End Patch",
          NULL, PD_REASON_SECRET, ".env");
    judge("not a patch at all", NULL, PD_REASON_GUARDRAIL, "Begin Patch");
}
