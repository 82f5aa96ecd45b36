/* tests/unit/test_policy_presets.c - allow_binaries presets (policy/presets.c)
 * and their expansion at load (policy/load.c), and the strict key. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "policy/policy.h"
#include "policy/toml/toml_lex.h"

static bool has(const struct pd_strv *s, const char *name)
{
    for (size_t k = 0; k < s->n; k++)
        if (strcmp(s->v[k], name) == 0)
            return true;
    return false;
}

static size_t index_of(const struct pd_strv *s, const char *name)
{
    for (size_t k = 0; k < s->n; k++)
        if (strcmp(s->v[k], name) == 0)
            return k;
    return (size_t)-1;
}

Test(presets, every_documented_preset_is_known)
{
    const char *names[] = {"@build", "@coreutils", "@git", "@man", "@node", "@python"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const char *const *p = pd_preset_programs(names[k]);
        cr_assert_not_null(p, "%s unknown", names[k]);
        cr_expect_not_null(p[0], "%s is empty", names[k]);
    }
    cr_expect_null(pd_preset_programs("@nope"));
    cr_expect_null(pd_preset_programs("python"));
    char list[256];
    pd_preset_names(list, sizeof list);
    cr_expect_str_eq(list, "@build, @coreutils, @git, @man, @node, @python");
}

Test(presets, helpers_the_tools_start_are_listed)
{
    const struct {
        const char *preset, *program;
    } want[] = {{"@python", "uname"}, {"@python", "python3"}, {"@python", "pip"},
                {"@coreutils", "ls"}, {"@coreutils", "sort"}, {"@coreutils", "uname"},
                {"@man", "groff"},    {"@man", "nroff"},      {"@man", "preconv"},
                {"@man", "tbl"},      {"@man", "pager"},      {"@build", "cmake"},
                {"@build", "gcc"},    {"@build", "make"},     {"@build", "uname"},
                {"@git", "git"},      {"@node", "node"},      {"@node", "npm"}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        bool found = false;
        for (const char *const *p = pd_preset_programs(want[k].preset); *p; p++)
            found = found || strcmp(*p, want[k].program) == 0;
        cr_expect(found, "%s lacks %s", want[k].preset, want[k].program);
    }
}

Test(presets, expand_in_place_in_order_without_repeats)
{
    struct pd_strv s = {0};
    cr_assert_eq(pd_strv_push(&s, "jq"), 0);
    cr_assert_eq(pd_strv_push(&s, "@python"), 0);
    cr_assert_eq(pd_strv_push(&s, "uname"), 0);
    cr_assert_eq(pd_strv_push(&s, "@coreutils"), 0);
    char msg[PD_MSG_MAX] = "";
    cr_assert_eq(pd_presets_expand(&s, msg, sizeof msg), 0, "%s", msg);
    cr_expect_str_eq(s.v[0], "jq");
    cr_expect_str_eq(s.v[1], pd_preset_programs("@python")[0]);
    cr_expect(has(&s, "ls") && has(&s, "pip"));
    for (size_t k = 0; k < s.n; k++) {
        cr_expect_neq(s.v[k][0], '@', "preset left: %s", s.v[k]);
        cr_expect_eq(index_of(&s, s.v[k]), k, "%s listed twice", s.v[k]);
    }
    pd_strv_free(&s);
}

Test(presets, unknown_preset_is_an_error_and_leaves_the_list)
{
    struct pd_strv s = {0};
    cr_assert_eq(pd_strv_push(&s, "ls"), 0);
    cr_assert_eq(pd_strv_push(&s, "@pyhton"), 0);
    char msg[PD_MSG_MAX] = "";
    cr_assert_eq(pd_presets_expand(&s, msg, sizeof msg), -1);
    cr_expect_str_eq(msg, "unknown preset '@pyhton' (known presets: @build, @coreutils, @git, "
                          "@man, @node, @python)");
    cr_expect_eq(s.n, 2);
    cr_expect_str_eq(s.v[1], "@pyhton");
    pd_strv_free(&s);
}

Test(presets, load_expands_and_dump_shows_plain_names)
{
    struct pd_policy p;
    struct pd_error err;
    int rc = pd_policy_load_string(&p, "allow_binaries = [\"@git\", \"cat\"]\n", "p.toml", &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_expect_str_eq(p.allow_binaries.v[0], "git");
    cr_expect(has(&p.allow_binaries, "cat"));
    char *dump = pd_policy_dump(&p);
    cr_assert_not_null(dump);
    cr_expect_null(strstr(dump, "@git"));
    struct pd_policy again;
    cr_expect_eq(pd_policy_load_string(&again, dump, "dump", &err), 0, "%s", err.msg);
    cr_expect_eq(again.allow_binaries.n, p.allow_binaries.n);
    pd_policy_free(&again);
    free(dump);
    pd_policy_free(&p);
}

Test(presets, load_names_file_and_line_of_an_unknown_preset)
{
    struct pd_policy p;
    struct pd_error err;
    int rc = pd_policy_load_string(&p,
                                   "allow_paths = [\"src/\"]\n\nallow_binaries = [\n  \"ls\",\n  "
                                   "\"@nope\",\n]\n",
                                   "p.toml", &err);
    cr_assert_eq(rc, -1);
    char text[PD_MSG_MAX + PD_PATH_MAX + 32];
    pd_error_format(&err, text, sizeof text);
    cr_expect(strstr(text, "unknown preset '@nope'") != NULL, "%s", text);
    cr_expect(strstr(text, "@coreutils") != NULL, "%s", text);
    cr_expect(strstr(text, "(p.toml:3)") != NULL, "%s", text);
}

Test(presets, strict_key)
{
    struct pd_policy p;
    struct pd_error err;
    pd_policy_defaults(&p);
    cr_expect_not(p.strict);
    cr_assert_eq(pd_policy_load_string(&p, "strict = true\n", "p.toml", &err), 0, "%s", err.msg);
    cr_expect(p.strict);
    pd_policy_free(&p);
    cr_expect_eq(pd_policy_load_string(&p, "strict = \"yes\"\n", "p.toml", &err), -1);
}
