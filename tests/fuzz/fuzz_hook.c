/* tests/fuzz/fuzz_hook.c - libFuzzer target for the hook input
 * (launcher/hook/hook_input.c, hook_route.c): the PreToolUse JSON a client
 * (Claude Code, Codex) writes to `paldron check --hook`, taken through what
 * launcher/cli/cmd_hook.c does with it short of printing. Built by
 * tests/fuzz/CMakeLists.txt, run by tests/fuzz/run.sh (corpus
 * tests/fuzz/corpus/hook: the payloads of tests/data/hook_payloads.json,
 * dictionary tests/fuzz/hook.dict).
 * Invariants checked:
 *   - pd_hook_parse: a refusal has a reason and no tree; an accepted input
 *     is a JSON object of the bytes given (no NUL, raw or escaped), whose
 *     printed form parses again to the same print;
 *   - the shell command as one text (pd_hook_command_text): an argv array
 *     quoted back for the shell parses to exactly those words;
 *   - the routed command (pd_hook_routed_command) parses to paldron's own
 *     argv with the command text as its last word, untouched;
 *   - the client's timeout lies in its documented range;
 *   - tool_name with tool_input judged as cmd_hook judges them
 *     (pd_gate_tool_call on the printed tool_input) gives a well-formed
 *     verdict. */
#include "tests/fuzz/fuzz_common.h"

#include <cjson/cJSON.h>

#include "launcher/hook/hook.h"
#include "policy/gate_agent.h"
#include "policy/shell/shell.h"

static struct fz_ctx ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_tree("hook");
    fz_workspace();
    fz_ctx_make(&ctx, "", "src");
    return 0;
}

/* The words of the one top-level simple command of text (or NULL). */
static const struct pd_sh_cmd *only_cmd(const char *text, struct pd_sh_script *s)
{
    char err[256];
    if (pd_sh_parse(text, s, err, sizeof err) != 0) {
        fprintf(stderr, "`%s` does not parse: %s\n", text, err);
        FAIL("quoted text parses");
    }
    CHECK(s->ncmds >= 1);
    CHECK(s->cmds[0].kind == PD_SH_K_SIMPLE && s->cmds[0].depth == 0);
    return &s->cmds[0];
}

static void check_argv_text(const cJSON *argv, const char *text)
{
    struct pd_sh_script s;
    const struct pd_sh_cmd *c = only_cmd(text, &s);
    CHECK(c->nwords == (size_t)cJSON_GetArraySize(argv) && c->nassigns == 0 && c->nredirs == 0);
    size_t k = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, argv)
    {
        CHECK(strcmp(c->words[k].text, it->valuestring) == 0);
        CHECK(!(c->words[k].flags &
                (PD_SH_W_EXPANSION | PD_SH_W_GLOB | PD_SH_W_BRACE | PD_SH_W_TILDE)));
        k++;
    }
    pd_sh_script_free(&s);
}

static void check_routed(const char *text, long long timeout)
{
    static const char *const policies[] = {NULL, "/etc/pal dron/it's.toml"};
    for (size_t p = 0; p < 2; p++) {
        const struct pd_hook_route r = {.paldron = "/usr/bin/paldron",
                                        .policy = policies[p],
                                        .workspace = ctx.ctx.workspace,
                                        .timeout = timeout};
        char *routed = pd_hook_routed_command(&r, text);
        CHECK(routed != NULL);
        struct pd_sh_script s;
        const struct pd_sh_cmd *c = only_cmd(routed, &s);
        const size_t want = p ? 11 : 9;
        CHECK(c->nwords == want && c->nassigns == 0 && c->nredirs == 0);
        CHECK(c->prog == 0 && !c->dynamic);
        CHECK(strcmp(c->words[0].text, "/usr/bin/paldron") == 0);
        CHECK(strcmp(c->words[1].text, "exec") == 0 && strcmp(c->words[2].text, "--routed") == 0);
        if (p)
            CHECK(strcmp(c->words[4].text, policies[p]) == 0);
        CHECK(strcmp(c->words[want - 2].text, "--") == 0);
        CHECK(strcmp(c->words[want - 1].text, text) == 0);
        pd_sh_script_free(&s);
        free(routed);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_cstr(data, size);
    cJSON *in = (cJSON *)0x1;
    char why[PD_MSG_MAX];
    why[0] = '\0';
    if (pd_hook_parse(text, size, &in, why, sizeof why) != 0) {
        CHECK(in == NULL);
        CHECK(fz_terminated(why, sizeof why) && why[0] != '\0');
        free(text);
        return 0;
    }
    CHECK(in != NULL && cJSON_IsObject(in));
    CHECK(memchr(data, '\0', size) == NULL);

    /* printed, it parses again to the same print */
    char *p1 = cJSON_PrintUnformatted(in);
    CHECK(p1 != NULL);
    cJSON *in2 = NULL;
    if (pd_hook_parse(p1, strlen(p1), &in2, why, sizeof why) != 0) {
        fprintf(stderr, "the print %s is refused: %s\n", p1, why);
        FAIL("a printed input parses");
    }
    char *p2 = cJSON_PrintUnformatted(in2);
    CHECK(p2 != NULL && strcmp(p1, p2) == 0);
    free(p2);
    free(p1);
    cJSON_Delete(in2);

    const cJSON *tool = cJSON_GetObjectItemCaseSensitive(in, "tool_name");
    const cJSON *input = cJSON_GetObjectItemCaseSensitive(in, "tool_input");
    if (cJSON_IsObject(input)) {
        long long t = pd_hook_client_timeout(input);
        CHECK(t >= 1 && (t <= 604800 || t == 86400));
        const cJSON *cmd = pd_hook_command_item(input);
        char *ctext = pd_hook_command_text(input);
        if (cJSON_IsString(cmd)) {
            CHECK(ctext != NULL && strcmp(ctext, cmd->valuestring) == 0);
        } else if (ctext) {
            CHECK(cJSON_IsArray(cmd));
            /* not the script of ["bash", "-lc", S]: the argv quoted back */
            const cJSON *second = cJSON_GetArrayItem(cmd, 1);
            bool script =
                cJSON_GetArraySize(cmd) == 3 && cJSON_IsString(second) &&
                (strcmp(second->valuestring, "-c") == 0 || strcmp(second->valuestring, "-lc") == 0);
            if (!script)
                check_argv_text(cmd, ctext);
        }
        if (ctext) {
            check_routed(ctext, t);
            free(ctext);
        }
    }
    if (cJSON_IsString(tool) && tool->valuestring[0] && (!input || cJSON_IsObject(input))) {
        char *args = input ? cJSON_PrintUnformatted(input) : NULL;
        if (fz_walks_outside(&ctx.ctx, tool->valuestring, args ? args : "{}")) {
            free(args); /* a walk of the real file system: slow */
            cJSON_Delete(in);
            free(text);
            return 0;
        }
        struct pd_verdict v;
        struct pd_error err;
        memset(&v, 0x5a, sizeof v);
        int rc = pd_gate_tool_call(&ctx.ctx, tool->valuestring, args ? args : "{}", true, &v, &err);
        if (rc != 0) {
            fprintf(stderr, "tool_input %s: %s\n", args ? args : "{}", err.msg);
            FAIL("a printed object is good JSON args");
        }
        fz_check_verdict(&v);
        free(args);
    }
    cJSON_Delete(in);
    free(text);
    return 0;
}
