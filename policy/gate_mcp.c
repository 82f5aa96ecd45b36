/* policy/gate_mcp.c - MCP tools ("mcp__<server>__<tool>"), whose arguments
 * no schema of Paldron's describes. What can be known is judged:
 *
 *   - a string that is a file: URI is the path it names (%XX decoded; a
 *     host other than "" or "localhost" cannot be judged and is refused);
 *   - a string that looks like a path (pd_looks_like_path: absolute, ./,
 *     ../, ~, a name with a '/' or an extension, an existing file) is one;
 *   - strings under content-like keys (content, text, old_string, message,
 *     query, ...) are data, not paths;
 *   - a write-like tool judges its paths as writes: those under a key that
 *     names a path (path, file, dir, source, destination, *_path, ...) by
 *     every rule, the others only by the name rules (deny_globs, secrets,
 *     protected), since a value like a branch name "feature/login" may look
 *     like a path; the source of a move or rename is a delete of the name,
 *     the source of a copy a read;
 *   - every other tool reads: its paths are judged as reads (deny_globs,
 *     secrets, a process's environment);
 *   - a network URL (http, https, ftp, ws, git, ssh, ...) under a URL-like
 *     key (url, uri, href, endpoint, link, website, *url*, *uri*) is refused
 *     when allow_network is false; with allow_hosts its host and port are
 *     judged instead (policy/hosts.h).
 *
 * Write-like: a word of the tool name (split at '_', '-', '.', and where
 * lower case turns to upper case) is one of
 *   write edit create delete remove rm rmdir move mv rename put save upload
 *   download append patch apply mkdir copy cp replace insert update set
 *   touch truncate chmod chown link symlink unlink overwrite modify store
 *   extract unzip untar (and their plurals in -s),
 * or the name contains one of the stems write, delete, remove, rename,
 * upload, append, mkdir, overwrite, unlink, truncate. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "policy/gate_mcp.h"
#include "policy/gate_patch.h"
#include "policy/gate_search.h"
#include "policy/hosts.h"

#define MCP_MAX_DEPTH 1000 /* cJSON refuses deeper documents itself */

static const char *const write_words[] = {
    "write",  "edit",     "create",  "delete", "remove",  "rm",       "rmdir",  "move",
    "mv",     "rename",   "put",     "save",   "upload",  "download", "append", "patch",
    "apply",  "mkdir",    "copy",    "cp",     "replace", "insert",   "update", "set",
    "touch",  "truncate", "chmod",   "chown",  "link",    "symlink",  "unlink", "overwrite",
    "modify", "store",    "extract", "unzip",  "untar",   NULL};
static const char *const write_stems[] = {"write",  "delete",   "remove", "rename",
                                          "upload", "append",   "mkdir",  "overwrite",
                                          "unlink", "truncate", NULL};
static const char *const move_words[] = {"move", "mv", "rename", NULL};
static const char *const copy_words[] = {"copy", "cp", NULL};

bool pd_mcp_tool(const char *tool)
{
    return strncmp(tool, "mcp__", 5) == 0 || strcmp(tool, "ReadMcpResourceTool") == 0 ||
           strcmp(tool, "read_mcp_resource") == 0;
}

/* The tool part of "mcp__<server>__<tool>" (the whole name otherwise). */
static const char *tool_part(const char *tool)
{
    if (strncmp(tool, "mcp__", 5) != 0)
        return tool;
    const char *sep = strstr(tool + 5, "__");
    return sep && sep[2] ? sep + 2 : tool + 5;
}

static bool in_list(const char *const *list, const char *w, size_t n)
{
    for (size_t k = 0; list[k]; k++) {
        size_t l = strlen(list[k]);
        if ((n == l && strncmp(w, list[k], l) == 0) ||
            (n == l + 1 && strncmp(w, list[k], l) == 0 && w[l] == 's'))
            return true;
    }
    return false;
}

/* Does a word of name (lower-cased) belong to list? */
static bool has_word(const char *name, const char *const *list)
{
    char low[256] = ""; /* (the analyzer cannot follow n: zeroed, so it need not) */
    size_t n = 0;
    for (const char *s = name; *s && n + 2 < sizeof low; s++) { /* a space and a letter */
        bool boundary = !isalnum((unsigned char)*s) ||
                        (s > name && islower((unsigned char)s[-1]) && isupper((unsigned char)*s));
        if (boundary && n && low[n - 1] != ' ')
            low[n++] = ' ';
        if (isalnum((unsigned char)*s))
            low[n++] = (char)tolower((unsigned char)*s);
    }
    low[n] = '\0';
    for (const char *w = low; *w;) {
        size_t len = strcspn(w, " ");
        if (len && in_list(list, w, len))
            return true;
        w += len + (w[len] == ' ');
    }
    return false;
}

bool pd_mcp_write_like(const char *tool)
{
    const char *t = tool_part(tool);
    if (has_word(t, write_words))
        return true;
    for (size_t k = 0; write_stems[k]; k++)
        if (strcasestr(t, write_stems[k]))
            return true;
    return false;
}

/* ---- file: URIs ------------------------------------------------------------------ */

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int pd_file_uri_path(const char *uri, char *out, size_t outlen, char *msg, size_t msglen)
{
    msg[0] = '\0';
    if (strncasecmp(uri, "file:", 5) != 0)
        return 1;
    const char *p = uri + 5;
    if (p[0] == '/' && p[1] == '/') {
        const char *host = p + 2, *slash = strchr(host, '/');
        size_t hlen = slash ? (size_t)(slash - host) : strlen(host);
        if (hlen && !(hlen == 9 && strncasecmp(host, "localhost", 9) == 0)) {
            snprintf(msg, msglen, "the file URI names the host '%.*s', not this machine",
                     (int)(hlen > 100 ? 100 : hlen), host);
            return -1;
        }
        p = host + hlen;
    }
    if (p[0] != '/') {
        snprintf(msg, msglen, "the file URI holds no absolute path");
        return -1;
    }
    size_t n = strcspn(p, "?#"), o = 0;
    for (size_t k = 0; k < n; k++) {
        char ch = p[k];
        if (ch == '%') {
            int hi = k + 2 < n ? hexval(p[k + 1]) : -1;
            int lo = hi >= 0 ? hexval(p[k + 2]) : -1;
            if (hi < 0 || lo < 0) {
                snprintf(msg, msglen, "the file URI has a bad %%-escape");
                return -1;
            }
            ch = (char)(hi * 16 + lo);
            if (ch == '\0' || ch == '/') {
                snprintf(msg, msglen, "the file URI encodes a %s", ch ? "'/'" : "NUL");
                return -1;
            }
            k += 2;
        }
        if (o + 1 >= outlen) {
            snprintf(msg, msglen, "the file URI's path is too long");
            return -1;
        }
        out[o++] = ch;
    }
    out[o] = '\0';
    return 0;
}

/* ---- keys -------------------------------------------------------------------------- */

/* key lower-cased without '_' and '-' ("old_string" -> "oldstring") */
static void norm_key(const char *key, char *out, size_t len)
{
    size_t n = 0;
    for (const char *s = key ? key : ""; *s && n + 1 < len; s++)
        if (*s != '_' && *s != '-')
            out[n++] = (char)tolower((unsigned char)*s);
    out[n] = '\0';
}

static bool key_in(const char *k, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(k, list[i]) == 0)
            return true;
    return false;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static bool content_key(const char *k)
{
    static const char *const keys[] = {
        "content", "contents",      "text",     "body",        "data",         "oldtext",
        "newtext", "oldstr",        "newstr",   "oldstring",   "newstring",    "old",
        "new",     "replacement",   "message",  "description", "comment",      "comments",
        "title",   "query",         "pattern",  "regex",       "search",       "code",
        "script",  "diff",          "patch",    "prompt",      "instructions", "summary",
        "note",    "notes",         "markdown", "html",        "snippet",      "sourcecode",
        "edits",   "commitmessage", NULL};
    return key_in(k, keys);
}

static bool path_key(const char *k)
{
    static const char *const keys[] = {"path",
                                       "paths",
                                       "file",
                                       "files",
                                       "filename",
                                       "filenames",
                                       "dir",
                                       "dirs",
                                       "directory",
                                       "directories",
                                       "folder",
                                       "folders",
                                       "root",
                                       "roots",
                                       "cwd",
                                       "workdir",
                                       "workingdirectory",
                                       "source",
                                       "sources",
                                       "src",
                                       "destination",
                                       "dest",
                                       "dst",
                                       "target",
                                       "from",
                                       "to",
                                       "location",
                                       "output",
                                       "outfile",
                                       "input",
                                       "image",
                                       "uri",
                                       NULL};
    return key_in(k, keys) || ends_with(k, "path") || ends_with(k, "paths") ||
           ends_with(k, "file") || ends_with(k, "files") || ends_with(k, "dir") ||
           ends_with(k, "directory") || ends_with(k, "folder");
}

static bool source_key(const char *k)
{
    return strncmp(k, "source", 6) == 0 || strncmp(k, "src", 3) == 0 ||
           strncmp(k, "from", 4) == 0 || strncmp(k, "old", 3) == 0 || strncmp(k, "origin", 6) == 0;
}

static bool url_key(const char *k)
{
    static const char *const keys[] = {"href",  "endpoint", "endpoints", "link",
                                       "links", "website",  "homepage",  NULL};
    return strstr(k, "url") || strstr(k, "uri") || key_in(k, keys);
}

/* A URL the network would carry: scheme "://" for a scheme below. */
static bool network_url(const char *s)
{
    static const char *const schemes[] = {"http", "https", "ftp",  "ftps",  "ws",     "wss",
                                          "git",  "ssh",   "sftp", "rsync", "telnet", NULL};
    const char *colon = strstr(s, "://");
    if (!colon)
        return false;
    for (size_t k = 0; schemes[k]; k++)
        if ((size_t)(colon - s) == strlen(schemes[k]) &&
            strncasecmp(s, schemes[k], strlen(schemes[k])) == 0)
            return true;
    return false;
}

/* ---- the walk ------------------------------------------------------------------------ */

struct mcp {
    const struct pd_ctx *c;
    const char *base;
    bool writes, moves, copies;
    struct pd_verdict *v;
};

static bool name_rule(const struct pd_verdict *v)
{
    return v->reason && (strcmp(v->reason, PD_REASON_DENY_GLOB) == 0 ||
                         strcmp(v->reason, PD_REASON_SECRET) == 0 ||
                         strcmp(v->reason, PD_REASON_PROTECTED) == 0);
}

static void prefix_arg(struct pd_verdict *v, const char *name)
{
    char was[PD_MSG_MAX];
    snprintf(was, sizeof was, "%s", v->message);
    snprintf(v->message, sizeof v->message, "argument '%.200s': %s", name, was);
}

/* Judge path (from the argument named name, key k normalised). */
static bool judge_path(struct mcp *m, const char *name, const char *k, const char *path)
{
    struct pd_verdict *v = m->v;
    if (!m->writes) {
        pd_gate_agent_read(m->c, m->base, path, v);
    } else if (!path_key(k)) {
        pd_gate_path(m->c, PD_OP_WRITE, m->base, path, v);
        if (v->deny && !name_rule(v))
            pd_verdict_allow(v);
    } else if (source_key(k) && m->moves) {
        pd_gate_name(m->c, PD_OP_DELETE, m->base, path, v);
    } else if (source_key(k) && m->copies) {
        pd_gate_agent_read(m->c, m->base, path, v);
    } else {
        pd_gate_path(m->c, PD_OP_WRITE, m->base, path, v);
    }
    if (v->deny)
        prefix_arg(v, name);
    return !v->deny;
}

static bool judge_uri(struct mcp *m, const char *name, const char *k, const char *s)
{
    char path[PD_PATH_MAX], why[256];
    if (pd_file_uri_path(s, path, sizeof path, why, sizeof why) < 0) {
        pd_verdict_deny(m->v, PD_REASON_GUARDRAIL, "tools", "argument '%.200s': %.300s: %s", name,
                        s, why);
        return false;
    }
    if (!judge_path(m, name, k, path))
        return false;
    if (!strpbrk(s, "?#"))
        return true;
    /* a server that does not cut the query or fragment opens the whole
     * text: judge that name too */
    char whole[PD_PATH_MAX] = ""; /* (zeroed for the analyzer, as in has_word) */
    size_t o = 0;
    for (const char *p = s; *p && o + 4 < sizeof whole; p++) {
        if (*p == '?' || *p == '#')
            o += (size_t)snprintf(whole + o, sizeof whole - o, "%%%02X", (unsigned char)*p);
        else
            whole[o++] = *p;
    }
    whole[o] = '\0';
    if (pd_file_uri_path(whole, path, sizeof path, why, sizeof why) < 0)
        return true; /* the cut form was judged and is what a URI names */
    return judge_path(m, name, k, path);
}

static bool judge_string(struct mcp *m, const char *name, const char *key, const char *s)
{
    char k[128];
    norm_key(key, k, sizeof k);
    if (content_key(k)) {
        /* a patch handed to a writing tool writes the files it names */
        const char *t = s + strspn(s, " \t\r\n");
        if (m->writes && strncmp(t, "*** Begin Patch", 15) == 0) {
            pd_gate_patch(m->c, m->base, s, strlen(s), m->v);
            if (m->v->deny)
                prefix_arg(m->v, name);
            return !m->v->deny;
        }
        return true;
    }
    if (strncasecmp(s, "file:", 5) == 0)
        return judge_uri(m, name, k, s);
    if (network_url(s)) {
        if (url_key(k) && pd_hosts_enabled(m->c->policy)) {
            /* the network by name: the host the URL names is judged */
            struct pd_verdict hv;
            if (!pd_host_deny_target(m->c->policy, NULL, s, 0, &hv))
                return true;
            *m->v = hv;
            prefix_arg(m->v, name);
            return false;
        }
        if (url_key(k) && !m->c->policy->allow_network) {
            pd_verdict_deny(m->v, PD_REASON_NETWORK, "allow_network",
                            "argument '%.200s' is the network address %.300s (allow_network = "
                            "false)",
                            name, s);
            return false;
        }
        return true;
    }
    const char *base = m->base ? m->base : m->c->cwd[0] ? m->c->cwd : m->c->workspace;
    if (strchr(s, '\n') || !pd_looks_like_path(s, base))
        return true;
    return judge_path(m, name, k, s);
}

static bool walk(struct mcp *m, const cJSON *node, const char *name, const char *key, int depth)
{
    if (depth > MCP_MAX_DEPTH) {
        pd_verdict_deny(m->v, PD_REASON_GUARDRAIL, "tools",
                        "arguments nested deeper than %d levels cannot be inspected",
                        MCP_MAX_DEPTH);
        return false;
    }
    if (cJSON_IsString(node))
        return judge_string(m, name, key, node->valuestring);
    char child[512];
    int idx = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, node)
    {
        bool obj = cJSON_IsObject(node);
        if (obj)
            snprintf(child, sizeof child, "%s%s%s", name, name[0] ? "." : "",
                     it->string ? it->string : "");
        else
            snprintf(child, sizeof child, "%s[%d]", name, idx);
        idx++;
        if (!walk(m, it, child, obj ? it->string : key, depth + 1))
            return false;
    }
    return true;
}

void pd_gate_mcp(const struct pd_ctx *c, const char *tool, const cJSON *input, const char *base,
                 struct pd_verdict *v)
{
    const char *t = tool_part(tool);
    struct mcp m = {
        c, base, pd_mcp_write_like(tool), has_word(t, move_words), has_word(t, copy_words), v};
    pd_verdict_allow(v);
    v->op = m.writes ? PD_OP_WRITE : PD_OP_READ;
    snprintf(v->subject, sizeof v->subject, "%s", tool);
    v->resolved[0] = '\0';
    if (input && walk(&m, input, "", "", 0)) {
        pd_verdict_allow(v);
        snprintf(v->subject, sizeof v->subject, "%s", tool);
        v->resolved[0] = '\0';
    }
}
