/* launcher/exec/exec_json.c - `paldron exec --json`: the result as one JSON
 * object on stdout instead of the result block, for a program that reads the
 * verdict and the output together. stderr is unchanged (the deny, warning
 * and verdict lines are for a human; the object holds them too):
 *
 *   {"verdict": "allow" | "deny" | "broken", "exit": 0 | 2 | 1,
 *    "command": {"started": bool, "exit": N | null, "signal": "SIGKILL" | null,
 *                "timed_out": bool, "interrupted": "SIGINT" | null},
 *    "stdout": "...", "stderr": "...", "stdout_dropped": N, "stderr_dropped": N,
 *    "findings": [{"message": "..."}], "warnings": ["..."], "error": "..." | null}
 *
 * The streams are the redacted capture (head, the "[... N bytes dropped ...]"
 * line, tail when they were cut); bytes that are not UTF-8 become U+FFFD, NUL
 * is \u0000. A run refused before it started has the same shape: started
 * false, empty streams. */
#include <cjson/cJSON.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "launcher/exec/exec.h"
#include "launcher/jev/jev.h"
#include "launcher/launcher.h"

/* A JSON string of len bytes (raw, escaped; cJSON strings stop at a NUL). */
static cJSON *bytes_item(const char *buf, size_t len)
{
    size_t n;
    char *lit = pd_jev_json_string(buf ? buf : "", buf ? len : 0, SIZE_MAX, &n);
    if (!lit)
        return NULL;
    cJSON *item = cJSON_CreateRaw(lit);
    free(lit);
    return item;
}

/* The capture as the block shows it: head, the cut line, tail. */
static cJSON *capture_item(const struct pd_capture *c)
{
    if (!c->dropped)
        return bytes_item(c->buf, c->len);
    char line[128];
    int ln = snprintf(line, sizeof line, "%s[... %llu bytes dropped ...]\n",
                      c->cut && c->buf[c->cut - 1] != '\n' ? "\n" : "", c->dropped);
    size_t n = c->len + (size_t)ln;
    char *text = malloc(n);
    if (!text)
        return NULL;
    memcpy(text, c->buf, c->cut);
    memcpy(text + c->cut, line, (size_t)ln);
    memcpy(text + c->cut + ln, c->buf + c->cut, c->len - c->cut);
    cJSON *item = bytes_item(text, n);
    free(text);
    return item;
}

static const char *signal_name(int sig, char *buf, size_t len)
{
    const char *abbrev = sigabbrev_np(sig);
    snprintf(buf, len, "SIG%s", abbrev ? abbrev : "?");
    return buf;
}

static const char *verdict_word(int exit_code)
{
    return exit_code == PD_EXIT_ALLOW ? "allow" : exit_code == PD_EXIT_DENY ? "deny" : "broken";
}

/* Print the object and free it; a failure to build it is said on stderr
 * (the verdict lines and the exit code still tell the result). */
static void print_object(cJSON *o, bool ok)
{
    char *text = ok ? cJSON_PrintUnformatted(o) : NULL;
    if (text) {
        fputs(text, stdout);
        fputc('\n', stdout);
        fflush(stdout);
        free(text);
    } else {
        pd_err("--json: the result object could not be built (out of memory)");
    }
    cJSON_Delete(o);
}

/* The "error" member (a string or null), then the object printed; cmd is
 * freed when it was not attached. */
static void finish(cJSON *root, cJSON *cmd, bool ok, const char *error)
{
    if (ok && error)
        ok = cJSON_AddStringToObject(root, "error", error) != NULL;
    else if (ok)
        ok = cJSON_AddNullToObject(root, "error") != NULL;
    cJSON_Delete(cmd);
    print_object(root, ok);
}

static bool add(cJSON *parent, const char *key, cJSON *item)
{
    if (!item)
        return false;
    cJSON_AddItemToObject(parent, key, item);
    return true;
}

static cJSON *findings_item(const struct pd_findings *deny, const char *finding)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t k = 0; a && deny && k < deny->n; k++) {
        cJSON *f = cJSON_CreateObject();
        if (!f || !cJSON_AddStringToObject(f, "message", deny->v[k].message)) {
            cJSON_Delete(f);
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, f);
    }
    if (a && finding) {
        cJSON *f = cJSON_CreateObject();
        if (!f || !cJSON_AddStringToObject(f, "message", finding)) {
            cJSON_Delete(f);
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, f);
    }
    return a;
}

void pd_exec_json_result(const struct pd_exec_plan *p, const struct pd_exec_outcome *o,
                         const struct pd_findings *deny, int verdict_exit, const char *error)
{
    cJSON *root = cJSON_CreateObject(), *cmd = cJSON_CreateObject();
    char sig[32];
    bool ok = root && cmd;
    ok = ok && cJSON_AddStringToObject(root, "verdict", verdict_word(verdict_exit)) &&
         cJSON_AddNumberToObject(root, "exit", verdict_exit);
    const bool started = !o->sandbox_error[0];
    ok = ok && cJSON_AddBoolToObject(cmd, "started", started);
    if (ok && started && o->exited && WIFEXITED(o->status) && !o->timed_out)
        ok = cJSON_AddNumberToObject(cmd, "exit", WEXITSTATUS(o->status)) != NULL;
    else if (ok)
        ok = cJSON_AddNullToObject(cmd, "exit") != NULL;
    if (ok && started && o->exited && WIFSIGNALED(o->status))
        ok = cJSON_AddStringToObject(cmd, "signal",
                                     signal_name(WTERMSIG(o->status), sig, sizeof sig)) != NULL;
    else if (ok)
        ok = cJSON_AddNullToObject(cmd, "signal") != NULL;
    ok = ok && cJSON_AddBoolToObject(cmd, "timed_out", o->timed_out);
    if (ok && o->interrupted)
        ok = cJSON_AddStringToObject(cmd, "interrupted",
                                     signal_name(o->interrupted, sig, sizeof sig)) != NULL;
    else if (ok)
        ok = cJSON_AddNullToObject(cmd, "interrupted") != NULL;
    if (ok) {
        cJSON_AddItemToObject(root, "command", cmd);
        cmd = NULL;
    }
    /* an interactive run is refused with --json: its streams went to the terminal */
    ok = ok && add(root, "stdout", capture_item(&o->out)) &&
         add(root, "stderr", capture_item(&o->err)) &&
         cJSON_AddNumberToObject(root, "stdout_dropped", (double)o->out.dropped) &&
         cJSON_AddNumberToObject(root, "stderr_dropped", (double)o->err.dropped) &&
         add(root, "findings", findings_item(deny, NULL));
    cJSON *warnings = ok ? cJSON_CreateArray() : NULL;
    for (size_t k = 0; warnings && k < o->warnings.n; k++)
        cJSON_AddItemToArray(warnings, cJSON_CreateString(o->warnings.v[k]));
    if (warnings && o->left_running) {
        char w[PD_MSG_MAX];
        pd_exec_background_warning(p, o, w, sizeof w);
        cJSON_AddItemToArray(warnings, cJSON_CreateString(w));
    }
    ok = ok && add(root, "warnings", warnings);
    finish(root, cmd, ok, error);
}

void pd_exec_background_warning(const struct pd_exec_plan *p, const struct pd_exec_outcome *o,
                                char *out, size_t len)
{
    snprintf(out, len,
             "%zu background process(es) still running (keep_background = true): %s at the "
             "deadline; what they write from now on is not scanned",
             o->left_running, p->isolated ? "still sandboxed, and ended" : "ended");
}

void pd_exec_json_not_run(const char *finding, const char *error)
{
    cJSON *root = cJSON_CreateObject(), *cmd = cJSON_CreateObject();
    const int code = finding ? PD_EXIT_DENY : PD_EXIT_BROKEN;
    bool ok = root && cmd && cJSON_AddStringToObject(root, "verdict", verdict_word(code)) &&
              cJSON_AddNumberToObject(root, "exit", code) &&
              cJSON_AddBoolToObject(cmd, "started", false) && cJSON_AddNullToObject(cmd, "exit") &&
              cJSON_AddNullToObject(cmd, "signal") &&
              cJSON_AddBoolToObject(cmd, "timed_out", false) &&
              cJSON_AddNullToObject(cmd, "interrupted");
    if (ok) {
        cJSON_AddItemToObject(root, "command", cmd);
        cmd = NULL;
    }
    ok = ok && cJSON_AddStringToObject(root, "stdout", "") &&
         cJSON_AddStringToObject(root, "stderr", "") &&
         cJSON_AddNumberToObject(root, "stdout_dropped", 0) &&
         cJSON_AddNumberToObject(root, "stderr_dropped", 0) &&
         add(root, "findings", findings_item(NULL, finding)) &&
         add(root, "warnings", cJSON_CreateArray());
    finish(root, cmd, ok, error);
}
