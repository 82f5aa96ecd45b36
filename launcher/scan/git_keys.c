/* launcher/scan/git_keys.c - the git configuration entries that make git run a
 * program: a shell command, a program path, a helper, a hook directory,
 * or more configuration (includes) that could hold any of these. From
 * git-config(1) and the pages it points to (git 2.4x); docs/policy.md
 * lists them with the reasons. An entry the run adds or changes in any
 * repository of the writable roots denies the run (launcher/scan/scan_git.c):
 * the user's next git command would run it outside the sandbox. */
#include <ctype.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "launcher/scan/git_keys.h"

enum sub_rule {
    SUB_NONE, /* "section.key" only */
    SUB_ANY,  /* "section.<name>.key" only */
    SUB_BOTH, /* either */
};

enum value_rule {
    V_ANY,      /* any value */
    V_NOT_BOOL, /* a value that is not a boolean (booleans select git's own code) */
    V_BANG,     /* a value that starts with '!' (a shell command) */
    V_EXT,      /* a URL of the ext:: transport (runs its command) */
    V_SUB_EXT,  /* url.<base>.insteadOf: the base is an ext:: URL */
    V_PROTOCOL, /* protocol.allow = always, protocol.ext.allow other than never */
};

struct rule {
    const char *section, *key; /* key "*": any key */
    enum sub_rule sub;
    enum value_rule value;
};

static const struct rule rules[] = {
    /* core: programs git starts for everyday commands */
    {"core", "fsmonitor", SUB_NONE, V_NOT_BOOL},
    {"core", "hookspath", SUB_NONE, V_ANY},
    {"core", "sshcommand", SUB_NONE, V_ANY},
    {"core", "pager", SUB_NONE, V_ANY},
    {"core", "editor", SUB_NONE, V_ANY},
    {"core", "askpass", SUB_NONE, V_ANY},
    {"core", "gitproxy", SUB_NONE, V_ANY},
    {"core", "alternaterefscommand", SUB_NONE, V_ANY},
    {"sequence", "editor", SUB_NONE, V_ANY},
    {"pager", "*", SUB_NONE, V_NOT_BOOL},
    {"alias", "*", SUB_BOTH, V_BANG},
    /* drivers selected by .gitattributes, which the run may write freely */
    {"filter", "clean", SUB_ANY, V_ANY},
    {"filter", "smudge", SUB_ANY, V_ANY},
    {"filter", "process", SUB_ANY, V_ANY},
    {"diff", "external", SUB_NONE, V_ANY},
    {"diff", "textconv", SUB_ANY, V_ANY},
    {"diff", "command", SUB_ANY, V_ANY},
    {"merge", "driver", SUB_ANY, V_ANY},
    {"difftool", "cmd", SUB_ANY, V_ANY},
    {"difftool", "path", SUB_ANY, V_ANY},
    {"mergetool", "cmd", SUB_ANY, V_ANY},
    {"mergetool", "path", SUB_ANY, V_ANY},
    /* helpers and hooks */
    {"credential", "helper", SUB_BOTH, V_ANY},
    {"uploadpack", "packobjectshook", SUB_NONE, V_ANY},
    {"hook", "command", SUB_ANY, V_ANY},
    {"init", "templatedir", SUB_NONE, V_ANY},
    {"gpg", "program", SUB_BOTH, V_ANY},
    {"gpg", "defaultkeycommand", SUB_ANY, V_ANY},
    {"trailer", "command", SUB_ANY, V_ANY},
    {"trailer", "cmd", SUB_ANY, V_ANY},
    {"tar", "command", SUB_ANY, V_ANY},
    {"submodule", "update", SUB_ANY, V_BANG},
    /* transports that run a program */
    {"remote", "uploadpack", SUB_ANY, V_ANY},
    {"remote", "receivepack", SUB_ANY, V_ANY},
    {"remote", "url", SUB_ANY, V_EXT},
    {"remote", "pushurl", SUB_ANY, V_EXT},
    {"url", "insteadof", SUB_ANY, V_SUB_EXT},
    {"url", "pushinsteadof", SUB_ANY, V_SUB_EXT},
    {"protocol", "allow", SUB_BOTH, V_PROTOCOL},
    /* browsers, viewers and mailers of the porcelain */
    {"web", "browser", SUB_NONE, V_ANY},
    {"help", "browser", SUB_NONE, V_ANY},
    {"browser", "cmd", SUB_ANY, V_ANY},
    {"browser", "path", SUB_ANY, V_ANY},
    {"man", "viewer", SUB_NONE, V_ANY},
    {"man", "cmd", SUB_ANY, V_ANY},
    {"man", "path", SUB_ANY, V_ANY},
    {"instaweb", "httpd", SUB_NONE, V_ANY},
    {"instaweb", "browser", SUB_NONE, V_ANY},
    {"imap", "tunnel", SUB_NONE, V_ANY},
    {"guitool", "cmd", SUB_ANY, V_ANY},
    {"sendemail", "smtpserver", SUB_BOTH, V_ANY},
    {"sendemail", "sendmailcmd", SUB_BOTH, V_ANY},
    {"sendemail", "tocmd", SUB_BOTH, V_ANY},
    {"sendemail", "cccmd", SUB_BOTH, V_ANY},
    {"sendemail", "headercmd", SUB_BOTH, V_ANY},
    /* more configuration, from a file the run may write */
    {"include", "path", SUB_NONE, V_ANY},
    {"includeif", "path", SUB_ANY, V_ANY},
};

/* git's boolean spellings (git_parse_maybe_bool), and a bare key. */
static bool is_bool(const char *v)
{
    static const char *const words[] = {"true", "false", "yes", "no", "on", "off", "1", "0", ""};
    if (!v)
        return true;
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
        if (strcasecmp(v, words[k]) == 0)
            return true;
    return false;
}

static bool starts_ext(const char *s)
{
    while (s && isspace((unsigned char)*s))
        s++;
    return s && strncasecmp(s, "ext::", 5) == 0;
}

static bool value_matches(enum value_rule rule, const char *sub, const char *value)
{
    const char *v = value;
    switch (rule) {
    case V_ANY:
        return true;
    case V_NOT_BOOL:
        return !is_bool(value);
    case V_BANG:
        while (v && isspace((unsigned char)*v))
            v++;
        return v && *v == '!';
    case V_EXT:
        return starts_ext(value);
    case V_SUB_EXT:
        return starts_ext(sub);
    case V_PROTOCOL:
        if (!value)
            return false;
        return sub ? strcasecmp(sub, "ext") == 0 && strcasecmp(value, "never") != 0
                   : strcasecmp(value, "always") == 0;
    }
    return true;
}

bool pd_git_key_runs(const char *section, const char *subsection, const char *key,
                     const char *value)
{
    for (size_t k = 0; k < sizeof rules / sizeof rules[0]; k++) {
        const struct rule *r = &rules[k];
        if (strcmp(r->section, section) != 0 ||
            (strcmp(r->key, "*") != 0 && strcmp(r->key, key) != 0))
            continue;
        if ((r->sub == SUB_NONE && subsection) || (r->sub == SUB_ANY && !subsection))
            continue;
        if (value_matches(r->value, subsection, value))
            return true;
    }
    return false;
}
