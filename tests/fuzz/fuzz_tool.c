/* tests/fuzz/fuzz_tool.c - libFuzzer target for the tool-call gate
 * (pd_gate_tool_call: policy/gate_tool.c, gate_agent.c, gate_patch.c,
 * gate_search.c, gate_mcp.c, gate_shell.c ...): the JSON argument object of
 * one tool call. Built by tests/fuzz/CMakeLists.txt, run by
 * tests/fuzz/run.sh (corpus tests/fuzz/corpus/tool: the tool inputs of
 * tests/data/hook_payloads.json and the original's five tools, dictionary
 * tests/fuzz/tool.dict).
 * The input's first byte picks the tool (of the known ones below), the
 * second the policy (fuzz_common.h), the client's cwd and whether OS
 * isolation is available; the rest, up to a NUL, is the JSON text.
 * Invariants checked: bad JSON is refused with a message; otherwise a
 * well-formed verdict (a deny has a reason, a key and a message), the
 * same twice (where it judged a place that does not change meanwhile).
 * A Grep whose path leads out of the fixed temp tree is not judged: its
 * walk of the real file system is slow and never the same twice. */
#include "tests/fuzz/fuzz_common.h"

static struct fz_ctx ctxs[FZ_NPOLICIES * 2];

/* Every tool the gate knows by name, and two it does not. */
static const char *const tools[] = {
    /* the original's five (policy/tool_schema.c) */
    "read_file", "write_file", "edit_file", "execute_code", "git_ops",
    /* the original's network tools */
    "http_request", "web_search", "web_scrape", "wolfram", "ask_cloud_model", "analyze_image",
    /* the agents' shell tools */
    "Bash", "shell", "exec_command", "local_shell", "container.exec", "shell_command",
    /* files, searches, patches, web */
    "Write", "Edit", "MultiEdit", "NotebookEdit", "Read", "NotebookRead", "view_image", "Grep",
    "grep_files", "Glob", "LS", "apply_patch", "WebFetch", "WebSearch",
    /* inert ones */
    "TodoWrite", "Task", "update_plan",
    /* MCP tools */
    "mcp__filesystem__read_file", "mcp__fetch__fetch", "mcp__github__create_issue",
    /* unknown */
    "frobnicate", ""};
#define NTOOLS (sizeof tools / sizeof tools[0])

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_tree("tool");
    fz_workspace();
    for (size_t k = 0; k < FZ_NPOLICIES; k++) {
        fz_ctx_make(&ctxs[2 * k], fz_policies[k], "");
        fz_ctx_make(&ctxs[2 * k + 1], fz_policies[k], "src");
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const char *tool = tools[data[0] % NTOOLS];
    const struct pd_ctx *c = &ctxs[data[1] % (FZ_NPOLICIES * 2)].ctx;
    const bool isolated = (data[1] / (FZ_NPOLICIES * 2)) & 1;
    char *json = fz_cstr(data + 2, size - 2);
    if (fz_walks_outside(c, tool, json)) { /* slow, and what it finds changes */
        free(json);
        return 0;
    }

    struct pd_verdict v, v2;
    struct pd_error err, err2;
    memset(&v, 0x5a, sizeof v);
    int rc = pd_gate_tool_call(c, tool, json, isolated, &v, &err);
    CHECK(rc == 0 || rc == -1);
    CHECK(fz_terminated(err.msg, sizeof err.msg));
    int rc2 = pd_gate_tool_call(c, tool, json, isolated, &v2, &err2);
    CHECK(rc2 == rc);
    if (rc != 0) {
        CHECK(strncmp(err.msg, "bad JSON args: ", 15) == 0);
        CHECK(strcmp(err.msg, err2.msg) == 0);
    } else {
        CHECK(err.msg[0] == '\0');
        fz_check_verdict(&v);
        if (fz_stable_place(&v) && fz_stable_place(&v2))
            fz_same_verdict(&v, &v2);
    }
    free(json);
    return 0;
}
