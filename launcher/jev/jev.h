/* launcher/jev/jev.h - the optional remote output verdict ("jev verdict"). After a
 * successful run whose local checks were clean, the launcher may ask a remote
 * model two questions about the run's (already redacted) output: does it expose
 * secrets, does it show hostile action. Each answer is a probability; at or
 * above the policy's jev_threshold the run is denied.
 *
 * Use:
 *   struct pd_jev_request rq = {.argv = argv, .exit_code = 0,
 *                               .stdout_buf = out, .stdout_len = out_len,
 *                               .stderr_buf = errout, .stderr_len = errout_len};
 *   struct pd_jev_verdict v;
 *   char err[PD_MSG_MAX], msg[PD_MSG_MAX];
 *   int rc = pd_jev_judge(&rq, &v, err, sizeof(err));
 *   switch (pd_jev_decide(policy, rc, &v, err, msg, sizeof(msg))) {
 *   case PD_JEV_DENY:  "paldron: deny: <msg>", exit 2
 *   case PD_JEV_WARN:  "paldron: <msg>", go on
 *   case PD_JEV_ALLOW: go on
 *   }
 *
 * The wire protocol (request and response JSON, headers, errors) is the
 * original Paldron's; docs/jev.md describes it and where this module is
 * stricter. Environment: JEV_API_KEY (required), JEV_API_URL (optional), the
 * proxy variables libcurl reads (http_proxy, https_proxy, all_proxy,
 * no_proxy; loopback is never proxied).
 *
 * The module never prints and never exits. It is meant for one thread at a
 * time (the timeout setter is a plain global); libcurl is initialised once. */
#ifndef PALDRON_JEV_H
#define PALDRON_JEV_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"

#define PD_JEV_DEFAULT_URL        "https://api.typesafe.ai/v1/systemone"
#define PD_JEV_MODEL              "jev-latest"
#define PD_JEV_TIMEOUT_MS         10000L          /* whole request, connect included */
#define PD_JEV_CONNECT_TIMEOUT_MS 5000L           /* connect phase (capped by the above) */
#define PD_JEV_STDOUT_MAX_CP      8000u           /* code points of stdout sent */
#define PD_JEV_STDERR_MAX_CP      4000u           /* code points of stderr sent */
#define PD_JEV_RESPONSE_MAX       (1024u * 1024u) /* bytes of response body accepted */
#define PD_JEV_DEFAULT_THRESHOLD  0.7

/* What the remote model judges. The buffers are bytes: they may hold NUL bytes
 * and invalid UTF-8 (sent as U+FFFD). The caller passes output that the local
 * output scan has already redacted. */
struct pd_jev_request {
    char *const *argv;      /* NULL-terminated; NULL is sent as JSON null */
    int exit_code;          /* always 0 when the launcher asks */
    const void *stdout_buf; /* may be NULL when stdout_len is 0 */
    size_t stdout_len;
    const void *stderr_buf; /* may be NULL when stderr_len is 0 */
    size_t stderr_len;
};

/* The two answers, each a probability in [0, 1]. */
struct pd_jev_verdict {
    double secret_exposure;
    double hostile_action;
};

/* Ask the remote verdict. Returns 0 with *out filled, or -1 with err set to
 * one of (text after "jev verdict unavailable: "):
 *   jev: JEV_API_KEY is not set                      (no request is made)
 *   jev: JEV_API_KEY contains control characters    (no request is made)
 *   jev: bad JEV_API_URL: <why>                      (no request is made)
 *   jev: request failed: <libcurl's error text>     (connect, TLS, timeout...)
 *   jev: endpoint returned <code> <reason phrase>   (status other than 200)
 *   jev: response body larger than 1048576 bytes
 *   jev: decode response: <what>                    (not JSON, wrong shape,
 *                                                    probability not in [0, 1])
 *   jev: response missing secret_exposure | hostile_action
 * errlen: PD_MSG_MAX is plenty. */
int pd_jev_judge(const struct pd_jev_request *req, struct pd_jev_verdict *out, char *err,
                 size_t errlen);

enum pd_jev_outcome {
    PD_JEV_ALLOW = 0, /* msg is "" */
    PD_JEV_DENY = 1,  /* msg follows "paldron: deny: " */
    PD_JEV_WARN = 2,  /* msg follows "paldron: " (verdict unavailable, jev_on_error=allow) */
};

/* Turn pd_jev_judge's result into the decision and the original's message:
 *   deny  "jev verdict: output exposes secrets (p=0.93)"   secret >= threshold
 *   deny  "jev verdict: output shows hostile action (p=0.88)" hostile >= threshold
 *   deny  "jev verdict unavailable: <err>"                  error, jev_on_error = deny
 *   warn  "warning: jev verdict unavailable, allowing run (jev_on_error=allow): <err>"
 *   allow ""
 * The secret answer is checked first. threshold = p->jev_threshold when it is
 * in (0, 1], else 0.7. A verdict that is not two numbers in [0, 1] counts as an
 * error. p may be NULL (defaults: 0.7, deny on error). */
enum pd_jev_outcome pd_jev_decide(const struct pd_policy *p, int judge_rc,
                                  const struct pd_jev_verdict *v, const char *err, char *msg,
                                  size_t msglen);

/* ---- building blocks (used by pd_jev_judge; public for the unit tests) ---- */

/* jev_request.c: the request body, compact JSON with keys in sorted order at
 * every level, stdout/stderr cut to PD_JEV_STDOUT_MAX_CP / PD_JEV_STDERR_MAX_CP
 * code points. Returns a malloc'd NUL-terminated string (length in *len), or
 * NULL with errno = ENOMEM. */
char *pd_jev_request_json(const struct pd_jev_request *req, size_t *len);

/* jev_request.c: one JSON string literal (with its quotes) for len bytes of s:
 * each maximal invalid UTF-8 subpart becomes U+FFFD, at most max_cp code points
 * are kept, and the text is escaped as Go's encoder does: \" \\ \n \r \t,
 * other controls and < > & U+2028 U+2029 as \u00XX / \u2028 / \u2029, all
 * else raw UTF-8. Returns a malloc'd string, or NULL with errno = ENOMEM. */
char *pd_jev_json_string(const void *s, size_t len, size_t max_cp, size_t *out_len);

/* jev_response.c: decode a 200 response body (len bytes, need not be
 * NUL-terminated). Returns 0, or -1 with the "jev: decode response: ..." or
 * "jev: response missing ..." message in err. */
int pd_jev_parse_response(const char *body, size_t len, struct pd_jev_verdict *out, char *err,
                          size_t errlen);

/* jev_http.c: POST body to url with the bearer key. On status 200 returns 0
 * and a malloc'd NUL-terminated response body (*resp, *resp_len); otherwise -1
 * with err set ("jev: bad JEV_API_URL: ...", "jev: request failed: ...",
 * "jev: endpoint returned ...", "jev: response body larger than ..."). Plain
 * http is refused unless the host is a loopback address. */
int pd_jev_http_post(const char *url, const char *key, const char *body, size_t body_len,
                     char **resp, size_t *resp_len, char *err, size_t errlen);

/* jev_http.c: the standard reason phrase of an HTTP status ("Unauthorized"),
 * or NULL for a code without one. */
const char *pd_jev_status_text(long code);

/* jev_http.c: the overall request timeout in milliseconds (PD_JEV_TIMEOUT_MS
 * unless changed). The setter exists for the unit tests only, so that a slow
 * endpoint test does not wait 10 s; ms <= 0 restores the default. */
long pd_jev_timeout_ms(void);
void pd_jev_set_timeout_ms(long ms);

#endif
