/* policy/shell/shell_words.c - split one simple command into words the way sh
 * would (quotes removed, escapes applied), and find the first shell
 * operator outside quotes. Used by the execute_code tool, whose command must
 * be a single program: anything that chains, pipes, redirects, substitutes or
 * starts a subshell is reported. */
#include <stdlib.h>
#include <string.h>

#include "policy/shell/shell_words.h"
#include "policy/toml/toml_lex.h"

static const char *const operators[] = {"&&", "||", ">>", "<<", "$(", ";",  "|", "&",
                                        ">",  "<",  "`",  "(",  ")",  "\n", NULL};

static const char *operator_at(const char *s)
{
    for (size_t k = 0; operators[k]; k++)
        if (strncmp(s, operators[k], strlen(operators[k])) == 0)
            return operators[k];
    return NULL;
}

int pd_shell_words(const char *cmd, struct pd_strv *words, const char **op)
{
    size_t len = strlen(cmd);
    char *word = malloc(len + 1);
    size_t n = 0;
    bool in_word = false;
    char quote = 0;
    *op = NULL;
    words->v = NULL;
    words->n = 0;
    if (!word)
        return -1;
    for (const char *s = cmd; *s; s++) {
        char c = *s;
        if (quote == '\'') {
            if (c == '\'')
                quote = 0;
            else
                word[n++] = c;
            continue;
        }
        if (quote == '"') {
            if (c == '"') {
                quote = 0;
            } else if (c == '\\' && s[1] && strchr("\"\\$`\n", s[1])) {
                word[n++] = *++s;
            } else {
                if (!*op && (c == '`' || (c == '$' && s[1] == '(')))
                    *op = c == '`' ? "`" : "$(";
                word[n++] = c;
            }
            continue;
        }
        if (c == '\\' && s[1]) {
            word[n++] = *++s;
            in_word = true;
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            in_word = true;
            continue;
        }
        const char *o = operator_at(s);
        if (o && !*op)
            *op = o;
        if (c == ' ' || c == '\t' || c == '\n' || (o && o[0] != '$')) {
            if (in_word) {
                word[n] = '\0';
                if (pd_strv_push(words, word))
                    goto fail;
                n = 0;
                in_word = false;
            }
            if (o && o[0] != '$')
                s += strlen(o) - 1;
            continue;
        }
        word[n++] = c;
        in_word = true;
    }
    if (quote) {
        free(word);
        pd_strv_free(words);
        return -2;
    }
    if (in_word) {
        word[n] = '\0';
        if (pd_strv_push(words, word))
            goto fail;
    }
    free(word);
    return 0;
fail:
    free(word);
    pd_strv_free(words);
    return -1;
}
