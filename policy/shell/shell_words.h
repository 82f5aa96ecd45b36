/* policy/shell/shell_words.h - sh word splitting for one simple command. */
#ifndef PALDRON_SHELL_WORDS_H
#define PALDRON_SHELL_WORDS_H

#include "policy/policy.h"

/* Split cmd into words (quotes removed, escapes applied). *op is set to the
 * first shell operator found outside single quotes ("&&", ";", "|", ">",
 * "$(", "`", "(", ...), or NULL. Returns 0, -1 on allocation failure, -2 on
 * an unterminated quote. */
int pd_shell_words(const char *cmd, struct pd_strv *words, const char **op);

#endif
