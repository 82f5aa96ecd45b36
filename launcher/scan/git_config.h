/* launcher/scan/git_config.h - a reader for git's configuration file format, as
 * git itself reads it (config.c in git's sources), for the post-run git
 * check (launcher/scan/scan_git.c):
 *
 *   [section]                 names are case-insensitive: reported lowercased
 *   [section "Sub \"q\""]     subsections are case-sensitive, \x escapes x
 *   [section.sub]             old form: the subsection is lowercased too
 *   key = value               keys are case-insensitive: reported lowercased
 *   key                       no '=': a boolean true (value NULL)
 *   # ; comments              outside quotes, also after a value
 *   "quoted  value"           quotes removed, spaces inside kept; outside
 *                             quotes, runs of inner space are kept and
 *                             leading/trailing space is dropped
 *   \n \t \b \\ \"            escapes in values; '\' at the end of a line
 *                             continues the value on the next line
 *   [core] key = v            an entry may follow a header on its line
 *
 * Whatever git refuses (a bad escape, an unterminated quote, a key before
 * any section, a bad character in a name) is an error here too, so that the
 * check never reads a file differently from git. */
#ifndef PALDRON_LAUNCHER_GIT_CONFIG_H
#define PALDRON_LAUNCHER_GIT_CONFIG_H

#include <stddef.h>

/* One entry. subsection NULL: none. value NULL: a bare key. line: where the
 * key is. Return a positive value to stop the parse (that value is
 * returned); -1 is the parser's own error. */
typedef int (*pd_git_config_fn)(const char *section, const char *subsection, const char *key,
                                const char *value, int line, void *user);

/* Parse text[0..len) (NUL bytes allowed: git stops at none, neither does
 * this). Returns 0, the callback's non-zero value, or -1 with err filled
 * ("line 3: bad section header"; "out of memory"). */
int pd_git_config_parse(const char *text, size_t len, pd_git_config_fn fn, void *user, char *err,
                        size_t errlen);

#endif
