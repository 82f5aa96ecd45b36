/* tests/unit/test_policy_agent_mcp.c - MCP tools: pd_mcp_tool,
 * pd_mcp_write_like, pd_file_uri_path and pd_gate_mcp (file: URIs, paths at
 * any depth, write-like tools, network URLs). */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>

#include "policy/gate_mcp.h"
#include "policy/hosts.h"
#include "policy/policy.h"
#include "test_policy_fixture.h"

Test(mcp_names, tools_and_write_like)
{
    cr_expect(pd_mcp_tool("mcp__fs__read_file"));
    cr_expect(pd_mcp_tool("ReadMcpResourceTool"));
    cr_expect(pd_mcp_tool("read_mcp_resource"));
    cr_expect(!pd_mcp_tool("Read"));
    cr_expect(!pd_mcp_tool("mcp_fs_read"));
    static const char *const writes[] = {"mcp__fs__write_file",       "mcp__fs__edit_file",
                                         "mcp__fs__create_directory", "mcp__fs__move_file",
                                         "mcp__fs__delete",           "mcp__x__writeFile",
                                         "mcp__x__setValue",          "mcp__x__str_replace_editor",
                                         "mcp__x__upload-blob",       "mcp__x__filewrite",
                                         "mcp__x__apply_patch",       "mcp__x__mkdirs",
                                         "mcp__x__renameNote",        "mcp__x__saves"};
    for (size_t k = 0; k < sizeof writes / sizeof writes[0]; k++)
        cr_expect(pd_mcp_write_like(writes[k]), "%s should be write-like", writes[k]);
    static const char *const reads[] = {"mcp__fs__read_file",    "mcp__fs__list_directory",
                                        "mcp__fs__search_files", "mcp__x__get_settings",
                                        "mcp__fetch__fetch",     "mcp__x__reset_view",
                                        "mcp__x__offset",        "mcp__github__get_file_contents",
                                        "mcp__x__dispatchers"};
    for (size_t k = 0; k < sizeof reads / sizeof reads[0]; k++)
        cr_expect(!pd_mcp_write_like(reads[k]), "%s should read", reads[k]);
}

/* A name as long as has_word's buffer, with a case change at its end: the
 * space and the letter it adds used to be written past the buffer
 * (tests/fuzz/corpus/hook/mcp-long-name). */
Test(mcp_names, long_names_stay_in_the_buffer)
{
    char name[512];
    for (size_t len = 240; len < 270; len++) {
        int n =
            snprintf(name, sizeof name, "mcp__x__%.*sB", (int)len,
                     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
        cr_assert_lt((size_t)n, sizeof name);
        cr_expect(!pd_mcp_write_like(name), "%s", name);
    }
    /* a write word within the first 250 bytes is still found */
    snprintf(
        name, sizeof name, "mcp__x__%.*s_setValue_%.*s", 200,
        "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
        "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
        "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
        100,
        "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
        "cccccccccccccccccccccccccccccc");
    cr_expect(pd_mcp_write_like(name), "%s", name);
}

static int uri(const char *u, char *out)
{
    char msg[256];
    int rc = pd_file_uri_path(u, out, PD_PATH_MAX, msg, sizeof msg);
    if (rc < 0)
        cr_expect(msg[0], "no reason for %s", u);
    return rc;
}

Test(mcp_names, file_uris)
{
    char out[PD_PATH_MAX];
    cr_expect_eq(uri("file:///abs/ws/.env", out), 0);
    cr_expect_str_eq(out, "/abs/ws/.env");
    cr_expect_eq(uri("FILE://localhost/a/b", out), 0);
    cr_expect_str_eq(out, "/a/b");
    cr_expect_eq(uri("file:/a/%2e%65nv", out), 0);
    cr_expect_str_eq(out, "/a/.env");
    cr_expect_eq(uri("file:///a/b%20c?x=1#frag", out), 0);
    cr_expect_str_eq(out, "/a/b c");
    cr_expect_eq(uri("file://evil.example/etc/passwd", out), -1);
    cr_expect_eq(uri("file:relative/x", out), -1);
    cr_expect_eq(uri("file:///a%2F..%2F.env", out), -1);
    cr_expect_eq(uri("file:///a%00b", out), -1);
    cr_expect_eq(uri("file:///a%zz", out), -1);
    cr_expect_eq(uri("https://example.com/x", out), 1);
    cr_expect_eq(uri("/plain/path", out), 1);
}

/* ---- pd_gate_mcp ---------------------------------------------------------------- */

static char ws[PD_PATH_MAX], home[PD_PATH_MAX];
static struct pd_policy pol;
static struct pd_ctx ctx;

static void setup(const char *toml)
{
    struct pd_error err;
    tp_mkdtemp(ws, sizeof ws, "agentmcp-ws");
    tp_mkdtemp(home, sizeof home, "agentmcp-home");
    tp_put(ws, "src/ok.txt", "x\n", 0644);
    tp_put(ws, ".env", "K=v\n", 0600);
    tp_put(home, ".ssh/id_rsa", "k\n", 0600);
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

/* {WS} and {HOME} in json are replaced. */
static void mcp(const char *tool, const char *json, const char *reason, const char *fragment)
{
    char text[4 * PD_PATH_MAX];
    size_t n = 0;
    for (const char *s = json; *s && n + PD_PATH_MAX < sizeof text;) {
        if (strncmp(s, "{WS}", 4) == 0) {
            n += (size_t)snprintf(text + n, sizeof text - n, "%s", ws);
            s += 4;
        } else if (strncmp(s, "{HOME}", 6) == 0) {
            n += (size_t)snprintf(text + n, sizeof text - n, "%s", home);
            s += 6;
        } else {
            text[n++] = *s++;
        }
    }
    text[n] = '\0';
    cJSON *in = cJSON_Parse(text);
    cr_assert_not_null(in, "bad test JSON %s", text);
    struct pd_verdict v;
    pd_gate_mcp(&ctx, tool, in, NULL, &v);
    cJSON_Delete(in);
    if (!reason) {
        cr_expect(!v.deny, "%s %s: expected allow, got %s", tool, text, v.message);
        return;
    }
    cr_expect(v.deny, "%s %s: expected %s, got allow", tool, text, reason);
    if (v.deny) {
        cr_expect_str_eq(v.reason, reason, "%s %s: %s", tool, text, v.message);
        if (fragment)
            cr_expect(strstr(v.message, fragment), "'%s' not in '%s'", fragment, v.message);
    }
}

Test(mcp_gate, writes_and_uris, .fini = teardown)
{
    setup("allow_paths = [\"src/\"]\n");
    mcp("mcp__fs__write_file", "{\"path\": \".claude/settings.json\", \"content\": \"{}\"}",
        PD_REASON_PROTECTED, "argument 'path': .claude/settings.json");
    mcp("mcp__fetch__fetch", "{\"url\": \"file://{WS}/.env\"}", PD_REASON_SECRET, ".env");
    mcp("mcp__fetch__fetch", "{\"url\": \"file://localhost{WS}/%2eenv\"}", PD_REASON_SECRET, NULL);
    mcp("mcp__fetch__fetch", "{\"url\": \"file://attacker.example/x\"}", PD_REASON_GUARDRAIL,
        "host");
    mcp("mcp__fs__read_text", "{\"args\": {\"path\": \"{HOME}/.ssh/id_rsa\"}}", PD_REASON_SECRET,
        NULL);
    mcp("mcp__fs__read_text", "{\"args\": {\"files\": [\"src/ok.txt\", \"/proc/self/environ\"]}}",
        PD_REASON_SECRET, "argument 'args.files[1]'");
    mcp("ReadMcpResourceTool", "{\"server\": \"fs\", \"uri\": \"file://{WS}/.env\"}",
        PD_REASON_SECRET, NULL);
    /* reads are judged by the patterns only: outside allow_paths is fine */
    mcp("mcp__fs__read_file", "{\"path\": \"{WS}/README.md\"}", NULL, NULL);
    mcp("mcp__fs__write_file", "{\"path\": \"src/new.txt\", \"content\": \"// /etc/passwd\"}", NULL,
        NULL);
    /* content-like keys are data, even when they read like a secret's name */
    mcp("mcp__fs__write_file", "{\"path\": \"src/n.txt\", \"content\": \".env\"}", NULL, NULL);
    mcp("mcp__fs__search_files", "{\"path\": \"src\", \"pattern\": \".env\"}", NULL, NULL);
    mcp("mcp__fs__write_file", "{\"path\": \"setup.py\", \"content\": \"x\"}",
        PD_REASON_OUTSIDE_ALLOW, NULL);
}

Test(mcp_gate, moves_copies_and_other_keys, .fini = teardown)
{
    setup("allow_paths = [\"src/\"]\n");
    mcp("mcp__fs__move_file", "{\"source\": \".env\", \"destination\": \"src/x\"}",
        PD_REASON_SECRET, NULL);
    mcp("mcp__fs__move_file", "{\"source\": \"src/ok.txt\", \"destination\": \"src/y.txt\"}", NULL,
        NULL);
    /* a copy reads its source: outside allow_paths is fine, a secret is not */
    mcp("mcp__fs__copy_file", "{\"source\": \"{WS}/README.md\", \"destination\": \"src/r.md\"}",
        NULL, NULL);
    mcp("mcp__fs__copy", "{\"opts\": {\"files\": [\"src/ok.txt\", \".env\"]}}", PD_REASON_SECRET,
        ".env (secret)");
    /* a branch name of a remote tool is no local write outside allow_paths */
    mcp("mcp__github__create_branch", "{\"repo\": \"o/r\", \"branch\": \"feature/login\"}", NULL,
        NULL);
    /* but a name rule still holds for any key */
    mcp("mcp__x__update", "{\"target_ref\": \".git/hooks/pre-push\"}", PD_REASON_PROTECTED, NULL);
    /* a patch handed to a writing tool writes what it names */
    mcp("mcp__x__apply_patch",
        "{\"patch\": \"*** Begin Patch\\n\\t*** Add File: .env\\n+x\\n*** End Patch\"}",
        PD_REASON_SECRET, "apply_patch line 2");
}

Test(mcp_gate, network_urls, .fini = teardown)
{
    setup("allow_network = false\n");
    mcp("mcp__fetch__fetch", "{\"url\": \"https://example.com/\"}", PD_REASON_NETWORK,
        "argument 'url'");
    mcp("mcp__x__call", "{\"cfg\": {\"base_url\": \"ws://10.0.0.1:9\"}}", PD_REASON_NETWORK, NULL);
    mcp("mcp__x__call", "{\"endpoint\": \"ftp://h/x\"}", PD_REASON_NETWORK, NULL);
    /* a URL in prose is data */
    mcp("mcp__x__create_issue", "{\"body\": \"see https://example.com\"}", NULL, NULL);
    mcp("mcp__x__note", "{\"name\": \"https://example.com\"}", NULL, NULL);
}

Test(mcp_gate, network_allowed, .fini = teardown)
{
    setup("allow_network = true\n");
    mcp("mcp__fetch__fetch", "{\"url\": \"https://example.com/\"}", NULL, NULL);
    mcp("mcp__fetch__fetch", "{\"url\": \"file://{WS}/.env\"}", PD_REASON_SECRET, NULL);
}

/* allow_hosts: a URL under a URL-like key is judged by its host and port */
Test(mcp_gate, network_by_name, .fini = teardown)
{
    setup("allow_hosts = [\"example.com\", \"10.0.0.1:9\"]\n");
    mcp("mcp__fetch__fetch", "{\"url\": \"https://example.com/\"}", NULL, NULL);
    mcp("mcp__x__call", "{\"cfg\": {\"base_url\": \"ws://10.0.0.1:9\"}}", NULL, NULL);
    mcp("mcp__fetch__fetch", "{\"url\": \"https://evil.test/x\"}", PD_REASON_HOST_NOT_ALLOWED,
        "argument 'url': https://evil.test/x: evil.test:443 (not in allow_hosts)");
    mcp("mcp__x__call", "{\"cfg\": {\"base_url\": \"ws://10.0.0.1:10\"}}",
        PD_REASON_HOST_NOT_ALLOWED, "argument 'cfg.base_url': ws://10.0.0.1:10: 10.0.0.1:10");
    mcp("mcp__x__call", "{\"endpoint\": \"ftp://example.com/x\"}", PD_REASON_HOST_NOT_ALLOWED,
        "example.com:21");
    mcp("mcp__x__call", "{\"endpoint\": \"https://0x7f.0.0.1/\"}", PD_REASON_HOST_MALFORMED,
        "(malformed host)");
    /* a URL in prose is data, as with the network off */
    mcp("mcp__x__create_issue", "{\"body\": \"see https://evil.test\"}", NULL, NULL);
    mcp("mcp__fetch__fetch", "{\"url\": \"file://{WS}/.env\"}", PD_REASON_SECRET, NULL);
}
