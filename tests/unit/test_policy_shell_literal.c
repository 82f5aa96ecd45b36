/* tests/unit/test_policy_shell_literal.c - the pieces of the shell gate
 * below pd_gate_shell: what a parsed word is (sj_word_kind), the names whose
 * assignment is unjudged (sj_special_name), arithmetic that names variables
 * (sj_arith_names_variable) and option specs (sj_opt_kind). Words come from
 * the real parser. */
#include <criterion/criterion.h>

#include "policy/shell/shell.h"
#include "policy/shell/shell_judge.h"

/* The SJX_* bits of the last word of the first command of src. */
static unsigned kind_of(const char *src)
{
    struct pd_sh_script s;
    char err[256];
    cr_assert_eq(pd_sh_parse(src, &s, err, sizeof err), 0, "%s: %s", src, err);
    cr_assert(s.ncmds >= 1, "%s", src);
    const struct pd_sh_cmd *c = &s.cmds[s.ncmds - 1];
    cr_assert(c->nwords >= 1, "%s", src);
    unsigned k = sj_word_kind(&c->words[c->nwords - 1], NULL);
    pd_sh_script_free(&s);
    return k;
}

Test(shell_literal, word_kinds)
{
    cr_expect_eq(kind_of("cat src/a.txt"), 0);
    cr_expect_eq(kind_of("cat 'a b'"), 0);
    cr_expect_eq(kind_of("cat '$HOME'"), 0, "a quoted $ is text");
    cr_expect_eq(kind_of("cat ~/x"), 0, "the home");
    cr_expect_eq(kind_of("cat ~"), 0);
    cr_expect_eq(kind_of("cat $HOME/x"), 0, "$HOME is the home");
    cr_expect_eq(kind_of("cat \"${HOME}\""), 0);
    cr_expect_eq(kind_of("cat ~+/x"), SJX_TILDE);
    cr_expect_eq(kind_of("cat ~root"), SJX_TILDE);
    cr_expect_eq(kind_of("cat \"$f\""), SJX_PARAM);
    cr_expect_eq(kind_of("cat $f"), SJX_PARAM | SJX_SPLIT);
    cr_expect_eq(kind_of("cat \"${x@P}\"") & SJX_CODEVAR, SJX_CODEVAR);
    cr_expect_eq(kind_of("cat \"${!x}\"") & SJX_CODEVAR, SJX_CODEVAR);
    cr_expect_eq(kind_of("cat \"${a[$i]}\"") & SJX_CODEVAR, SJX_CODEVAR);
    cr_expect_eq(kind_of("cat \"${a[0]}\""), SJX_PARAM, "a numeric subscript runs nothing");
    cr_expect_eq(kind_of("cat \"${a[@]}\""), SJX_PARAM);
    cr_expect_eq(kind_of("cat \"$(ls)\""), SJX_CMD);
    cr_expect_eq(kind_of("cat \"`ls`\""), SJX_CMD);
    cr_expect_eq(kind_of("cat <(ls)"), SJX_PROC);
    cr_expect_eq(kind_of("cat \"$((1+2))\""), SJX_ARITH);
    cr_expect_eq(kind_of("cat \"$((i+2))\""), SJX_ARITHVAR);
    cr_expect_eq(kind_of("cat \"$[0x1f]\""), SJX_ARITH, "hex digits are no variable");
    cr_expect_eq(kind_of("cat \"$?\""), SJX_NUMPARAM);
    cr_expect_eq(kind_of("cat \"$$\""), SJX_NUMPARAM);
    cr_expect_eq(kind_of("cat *.c"), SJX_GLOB);
    cr_expect_eq(kind_of("cat '*'.c"), 0, "a quoted star is text");
    cr_expect_eq(kind_of("cat a{b,c}"), SJX_BRACE);
    cr_expect_eq(kind_of("cat \"a\"$x") & SJX_PARAM, SJX_PARAM);
    cr_expect_eq(kind_of("cat \"$HOME$x\"") & SJX_PARAM, SJX_PARAM, "more than the home");
}

Test(shell_literal, long_words)
{
    static char src[PD_PATH_MAX + 16];
    memcpy(src, "cat ", 4);
    memset(src + 4, 'a', PD_PATH_MAX);
    src[4 + PD_PATH_MAX] = '\0';
    cr_expect_eq(kind_of(src), SJX_LONG);
    src[4 + PD_PATH_MAX - 1] = '\0';
    cr_expect_eq(kind_of(src), 0, "PD_PATH_MAX - 1 bytes still fit");
}

Test(shell_literal, kind_names)
{
    cr_expect_str_eq(sj_kind_name(SJX_PARAM | SJX_SPLIT), "a variable expansion");
    cr_expect_str_eq(sj_kind_name(SJX_GLOB), "a glob");
    cr_expect_str_eq(sj_kind_name(SJX_CMD | SJX_GLOB), "a command substitution");
    cr_expect_str_eq(sj_kind_name(SJX_LONG | SJX_GLOB), "a word longer than the path limit");
}

Test(shell_literal, special_names)
{
    static const char *const yes[] = {"PATH",
                                      "PS4",
                                      "BASH_ENV",
                                      "ENV",
                                      "GLOBIGNORE",
                                      "IFS",
                                      "CDPATH",
                                      "HOME",
                                      "GIT_DIR",
                                      "GIT_CONFIG_COUNT",
                                      "LD_PRELOAD",
                                      "LD_LIBRARY_PATH",
                                      "BASH_FUNC_ls%%",
                                      "PYTHONPATH",
                                      "NODE_OPTIONS",
                                      "PERL5OPT",
                                      "RUBYOPT",
                                      "PROMPT_COMMAND",
                                      "SHELLOPTS",
                                      "MAKEFLAGS",
                                      NULL};
    static const char *const no[] = {"FOO",    "PATHS", "MYPATH", "LANG",
                                     "GITHUB", "LD",    "TERM",   NULL};
    for (size_t k = 0; yes[k]; k++)
        cr_expect(sj_special_name(yes[k], strlen(yes[k])), "%s is special", yes[k]);
    for (size_t k = 0; no[k]; k++)
        cr_expect(!sj_special_name(no[k], strlen(no[k])), "%s is not special", no[k]);
    cr_expect(sj_special_name("PATH=x", 4), "only len bytes count");
}

Test(shell_literal, arithmetic_names)
{
    cr_expect(!sj_arith_names_variable("1 + 2 * (3 - 4)"));
    cr_expect(!sj_arith_names_variable("0x1F + 8#17 + 2#101"));
    cr_expect(sj_arith_names_variable("i + 1"));
    cr_expect(sj_arith_names_variable("a[$(id)]"));
    cr_expect(sj_arith_names_variable("$x"));
    cr_expect(sj_arith_names_variable("_"));
}

Test(shell_literal, option_specs)
{
    static const char *const spec = "-o:W --output:W -e:P --regexp:P -MF:W -fplugin*:u --color?:D";
    cr_expect_eq(sj_opt_kind(spec, "-o"), 'W');
    cr_expect_eq(sj_opt_kind(spec, "-ofile"), 'W', "a cluster starting with o");
    cr_expect_eq(sj_opt_kind(spec, "--output=x"), 'W');
    cr_expect_eq(sj_opt_kind(spec, "--out=x"), 'W', "an unambiguous prefix, as getopt_long");
    cr_expect_eq(sj_opt_kind(spec, "-MF"), 'W');
    cr_expect_eq(sj_opt_kind(spec, "-fplugin=x.so"), 'u');
    cr_expect_eq(sj_opt_kind(spec, "--color"), 'D');
    cr_expect_eq(sj_opt_kind(spec, "-v"), 'f', "an option the spec does not name is a flag");
    cr_expect_eq(sj_opt_kind(spec, "--verbose"), 'f');
    cr_expect_eq(sj_opt_kind(spec, "file"), 0, "no option");
    cr_expect(sj_opt_single_long(spec, "-MF"));
    cr_expect(!sj_opt_single_long(spec, "-M"));
}
