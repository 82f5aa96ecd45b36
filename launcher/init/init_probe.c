/* launcher/init/init_probe.c - doctor's checks of one configured hook command.
 *
 * The command is read the way the client's sh reads it (init_command.c)
 * to name what is wrong - a paldron that is not there, a relative or
 * missing policy, one that does not load, no `|| exit 2` - and then it is
 * run exactly as configured (`sh -c COMMAND`, in the project, with the
 * client's variables) on two calls shaped as the client sends them
 * (tests/clients/README.md): `cat .env` must be blocked by the policy, and
 * a harmless `echo` must be allowed - rewritten to run under `paldron exec
 * --routed` unless the hook is static-only. The result is what the client
 * would see, so a hook that would not block shows here without a model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "launcher/init/init.h"

#define HOOK_RUN_TIMEOUT_MS 30000 /* the timeout init writes */
#define SAMPLE_ECHO         "echo paldron-doctor"

struct lookup_ctx {
    const struct pd_doctor *d;
};

/* The variables the client gives its hooks, then the environment. */
static const char *lookup(const char *name, void *arg)
{
    const struct lookup_ctx *c = arg;
    if (c->d->client == PD_CLIENT_CLAUDE_CODE && strcmp(name, "CLAUDE_PROJECT_DIR") == 0)
        return c->d->project;
    return getenv(name);
}

/* The PreToolUse input of a Bash call `command`, as the client sends it. */
static char *payload(const struct pd_doctor *d, const char *command)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *in;
    cJSON_AddStringToObject(o, "session_id", "paldron-doctor");
    if (d->client == PD_CLIENT_CODEX) {
        cJSON_AddStringToObject(o, "turn_id", "paldron-doctor");
        cJSON_AddNullToObject(o, "transcript_path");
        cJSON_AddStringToObject(o, "cwd", d->project);
        cJSON_AddStringToObject(o, "hook_event_name", "PreToolUse");
        cJSON_AddStringToObject(o, "model", "gpt-5.5");
        cJSON_AddStringToObject(o, "permission_mode", "bypassPermissions");
        cJSON_AddStringToObject(o, "tool_name", "Bash");
        in = cJSON_AddObjectToObject(o, "tool_input");
        cJSON_AddStringToObject(in, "command", command);
        cJSON_AddStringToObject(o, "tool_use_id", "call_paldron_doctor");
    } else {
        cJSON_AddStringToObject(o, "transcript_path", "/dev/null");
        cJSON_AddStringToObject(o, "cwd", d->project);
        cJSON_AddStringToObject(o, "permission_mode", "default");
        cJSON_AddStringToObject(o, "hook_event_name", "PreToolUse");
        cJSON_AddStringToObject(o, "tool_name", "Bash");
        in = cJSON_AddObjectToObject(o, "tool_input");
        cJSON_AddStringToObject(in, "command", command);
        cJSON_AddStringToObject(in, "description", "paldron doctor sample call");
        cJSON_AddStringToObject(o, "tool_use_id", "toolu_paldron_doctor");
    }
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

/* Run the hook command on the sample call; -1 when sh could not run. */
static int run_hook(const struct pd_doctor *d, const char *command, const char *sample,
                    struct pd_run_result *r)
{
    char *in = payload(d, sample);
    if (!in)
        return -1;
    char project_env[PD_PATH_MAX + 32];
    snprintf(project_env, sizeof project_env, "CLAUDE_PROJECT_DIR=%s", d->project);
    const char *env[] = {d->client == PD_CLIENT_CLAUDE_CODE ? project_env : NULL, NULL};
    const char *argv[] = {"sh", "-c", command, NULL};
    struct pd_run_opts o = {.argv = argv,
                            .cwd = d->project,
                            .env = env,
                            .input = in,
                            .inputlen = strlen(in),
                            .timeout_ms = HOOK_RUN_TIMEOUT_MS};
    char why[PD_MSG_MAX];
    int rc = pd_run(&o, r, why, sizeof why);
    free(in);
    return rc;
}

/* The first line of text that holds needle, else the first line. */
static void pick_line(const char *text, const char *needle, char *out, size_t outlen)
{
    const char *at = needle ? strstr(text, needle) : NULL;
    if (at)
        while (at > text && at[-1] != '\n')
            at--;
    else
        at = text;
    size_t n = strcspn(at, "\n");
    snprintf(out, outlen, "%.*s", (int)(n < 300 ? n : 300), at);
}

static bool check_program(struct pd_doctor *d, const char *where, const char *prog, const char *fix)
{
    char found[PD_PATH_MAX];
    struct stat st;
    if (prog[0] == '/') {
        if (stat(prog, &st) == 0 && S_ISREG(st.st_mode) && access(prog, X_OK) == 0) {
            pd_doctor_ok(d, "%s: the hook runs %s", where, prog);
            return true;
        }
        pd_doctor_problem(d, fix, "%s: the hook runs %s, which is not an executable file", where,
                          prog);
    } else if (strchr(prog, '/')) {
        pd_doctor_problem(d, fix,
                          "%s: the hook runs %s, a relative path: it depends on the folder the "
                          "client was started in",
                          where, prog);
    } else if (pd_init_which(prog, found, sizeof found)) {
        pd_doctor_ok(d,
                     "%s: the hook runs %s, found on PATH here as %s (the client's PATH may "
                     "differ: an absolute path does not depend on it)",
                     where, prog, found);
        return true;
    } else {
        pd_doctor_problem(d, fix, "%s: the hook runs %s, which is not on PATH", where, prog);
    }
    return false;
}

/* Check the policy; *route: whether it routes (hook_route), when it loads. */
static bool check_policy(struct pd_doctor *d, const char *where, const struct pd_hook_cmd *c,
                         const char *fix, bool *route)
{
    char path[PD_PATH_MAX], root[PD_PATH_MAX];
    if (c->from_git_root) {
        if (!pd_git_work_tree(d->project, root, sizeof root)) {
            pd_doctor_problem(d, "git init (or point --policy at the policy)",
                              "%s: the hook takes its policy from the git root "
                              "(--policy-from-git-root), but %s is in no git work tree: it "
                              "blocks every call there",
                              where, d->project);
            return false;
        }
        snprintf(path, sizeof path, "%s/.paldron.toml", strcmp(root, "/") == 0 ? "" : root);
    } else if (!c->policy) {
        pd_doctor_problem(d, fix,
                          "%s: the hook names no policy: it judges with the built-in defaults, "
                          "not the project's .paldron.toml",
                          where);
        return false;
    } else if (c->policy[0] != '/') {
        pd_doctor_problem(d, fix,
                          "%s: the hook's policy %s is a relative path: it is found only when "
                          "the client starts in the folder that holds it",
                          where, c->policy);
        return false;
    } else {
        snprintf(path, sizeof path, "%s", c->policy);
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        pd_doctor_problem(d, fix,
                          "%s: the hook's policy %s does not exist: the hook blocks every "
                          "call",
                          where, path);
        return false;
    }
    struct pd_policy pol;
    struct pd_error err;
    if (pd_policy_load(&pol, path, &err) != 0) {
        char msg[PD_MSG_MAX + PD_PATH_MAX];
        pd_error_format(&err, msg, sizeof msg);
        pd_doctor_problem(d, "correct the policy (docs/policy.md lists every key)",
                          "%s: the hook's policy does not load, so the hook blocks every call: %s",
                          where, msg);
        return false;
    }
    *route = pol.hook_route;
    pd_policy_free(&pol);
    pd_doctor_ok(d, "%s: the policy %s loads", where, path);
    return true;
}

static void check_deny(struct pd_doctor *d, const char *where, const char *command, const char *fix)
{
    struct pd_run_result r;
    char line[PD_MSG_MAX];
    if (run_hook(d, command, "cat .env", &r) != 0) {
        pd_doctor_problem(d, NULL, "%s: cannot run the hook command with sh", where);
        return;
    }
    pick_line(r.err, "paldron: deny:", line, sizeof line);
    if (r.timed_out)
        pd_doctor_problem(d, "keep the hook fast; check what it waits for",
                          "%s: a sample `cat .env` call did not finish in %d s: on a timeout "
                          "the client runs the call",
                          where, HOOK_RUN_TIMEOUT_MS / 1000);
    else if (r.status == 2 && strstr(r.err, "paldron: deny:"))
        pd_doctor_ok(d, "%s: a sample `cat .env` call is blocked (exit 2, %s)", where, line);
    else if (r.status == 2)
        pd_doctor_problem(d, fix,
                          "%s: a sample `cat .env` call is blocked, but not by the policy: the "
                          "hook blocks every call (%s)",
                          where, line[0] ? line : "no message");
    else
        pd_doctor_problem(d, fix,
                          "%s: a sample `cat .env` call is not blocked: the hook exits %d, and "
                          "the client runs the call%s%s",
                          where, r.status, line[0] ? " - " : "", line);
    pd_run_result_free(&r);
}

/* The rewritten command of an allow answer, or NULL. */
static char *routed_command(const char *out)
{
    cJSON *o = cJSON_Parse(out);
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "hookSpecificOutput");
    const cJSON *dec = cJSON_GetObjectItemCaseSensitive(h, "permissionDecision");
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(h, "updatedInput"), "command");
    char *s = cJSON_IsString(dec) && strcmp(dec->valuestring, "allow") == 0 && cJSON_IsString(cmd)
                  ? strdup(cmd->valuestring)
                  : NULL;
    cJSON_Delete(o);
    return s;
}

static void check_route(struct pd_doctor *d, const char *where, const char *command, bool route,
                        const char *fix)
{
    struct pd_run_result r;
    char line[PD_MSG_MAX];
    if (run_hook(d, command, SAMPLE_ECHO, &r) != 0) {
        pd_doctor_problem(d, NULL, "%s: cannot run the hook command with sh", where);
        return;
    }
    char *routed = r.status == 0 ? routed_command(r.out) : NULL;
    pick_line(r.err, "paldron:", line, sizeof line);
    if (r.status != 0)
        pd_doctor_problem(d, fix, "%s: a harmless `%s` call is blocked (exit %d%s%s)", where,
                          SAMPLE_ECHO, r.status, line[0] ? ": " : "", line);
    else if (route && routed && strstr(routed, " exec --routed "))
        pd_doctor_ok(d, "%s: a harmless shell call is allowed and routed through paldron exec",
                     where);
    else if (route)
        pd_doctor_problem(d, fix,
                          "%s: a harmless shell call is allowed but not routed through paldron "
                          "exec: it would run bare",
                          where);
    else if (routed)
        pd_doctor_problem(d, fix, "%s: the hook is static-only, yet it rewrote a call", where);
    else
        pd_doctor_ok(d,
                     "%s: a harmless shell call is allowed; static-only hook (--no-route or "
                     "hook_route = false): allowed calls run bare, not under paldron exec",
                     where);
    free(routed);
    pd_run_result_free(&r);
}

void pd_doctor_check_command(struct pd_doctor *d, const char *where, const char *command,
                             const char *fix_init)
{
    struct lookup_ctx lc = {d};
    struct pd_hook_cmd c;
    pd_hook_cmd_read(command, lookup, &lc, &c);
    if (c.unreadable)
        pd_doctor_problem(d, fix_init,
                          "%s: the hook command has $(...), backquotes or an open quote: doctor "
                          "reads only plain commands (%s)",
                          where, command);
    bool program_ok = c.program && check_program(d, where, c.program, fix_init);
    bool route = true;
    bool policy_ok = c.paldron && check_policy(d, where, &c, fix_init, &route);
    if (!c.exit2)
        pd_doctor_problem(d, fix_init,
                          "%s: the hook does not end with `|| exit 2`: when paldron cannot "
                          "start or is killed, the client runs the call unchecked",
                          where);
    else
        pd_doctor_ok(d, "%s: the hook ends with `|| exit 2` (fail closed)", where);
    /* a sample blocked for the wrong reason: fix the cause named above */
    check_deny(d, where, command,
               program_ok && !policy_ok && c.paldron ? "correct the policy problem above"
                                                     : fix_init);
    if (policy_ok)
        check_route(d, where, command, route && !c.no_route, fix_init);
    pd_hook_cmd_free(&c);
}
