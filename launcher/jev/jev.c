/* launcher/jev/jev.c - the jev verdict: read the environment, build the request
 * (jev_request.c), send it (jev_http.c), decode the answer (jev_response.c),
 * and map the result to allow / deny / warn with the original's messages. */
#include "launcher/jev/jev.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t errlen, const char *fmt,
                                                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err != NULL && errlen > 0)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static bool has_control(const char *s)
{
    for (; *s != '\0'; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

int pd_jev_judge(const struct pd_jev_request *req, struct pd_jev_verdict *out, char *err,
                 size_t errlen)
{
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (req == NULL || out == NULL)
        return fail(err, errlen, "jev: no request");

    const char *key = getenv("JEV_API_KEY");
    if (key == NULL || key[0] == '\0')
        return fail(err, errlen, "jev: JEV_API_KEY is not set");
    if (has_control(key))
        return fail(err, errlen, "jev: JEV_API_KEY contains control characters");
    const char *url = getenv("JEV_API_URL");
    if (url == NULL || url[0] == '\0')
        url = PD_JEV_DEFAULT_URL;

    size_t body_len = 0;
    char *body = pd_jev_request_json(req, &body_len);
    if (body == NULL)
        return fail(err, errlen, "jev: encode request: out of memory");

    char *resp = NULL;
    size_t resp_len = 0;
    int rc = pd_jev_http_post(url, key, body, body_len, &resp, &resp_len, err, errlen);
    free(body);
    if (rc != 0)
        return -1;
    rc = pd_jev_parse_response(resp, resp_len, out, err, errlen);
    free(resp);
    return rc;
}

static bool probability_ok(double p)
{
    return isfinite(p) && p >= 0.0 && p <= 1.0;
}

enum pd_jev_outcome pd_jev_decide(const struct pd_policy *p, int judge_rc,
                                  const struct pd_jev_verdict *v, const char *err, char *msg,
                                  size_t msglen)
{
    char tmp[1];
    if (msg == NULL || msglen == 0) {
        msg = tmp;
        msglen = sizeof(tmp);
    }
    msg[0] = '\0';

    const char *why = NULL;
    if (judge_rc != 0)
        why = err != NULL && err[0] != '\0' ? err : "jev: no verdict";
    else if (v == NULL || !probability_ok(v->secret_exposure) || !probability_ok(v->hostile_action))
        why = "jev: verdict is not two probabilities between 0 and 1";
    if (why != NULL) {
        if (p != NULL && p->jev_on_error == PD_ON_ERROR_ALLOW) {
            snprintf(msg, msglen,
                     "warning: jev verdict unavailable, allowing run (jev_on_error=allow): %s",
                     why);
            return PD_JEV_WARN;
        }
        snprintf(msg, msglen, "jev verdict unavailable: %s", why);
        return PD_JEV_DENY;
    }

    double threshold = PD_JEV_DEFAULT_THRESHOLD;
    if (p != NULL && p->jev_threshold > 0.0 && p->jev_threshold <= 1.0)
        threshold = p->jev_threshold;
    if (v->secret_exposure >= threshold) {
        snprintf(msg, msglen, "jev verdict: output exposes secrets (p=%.2f)", v->secret_exposure);
        return PD_JEV_DENY;
    }
    if (v->hostile_action >= threshold) {
        snprintf(msg, msglen, "jev verdict: output shows hostile action (p=%.2f)",
                 v->hostile_action);
        return PD_JEV_DENY;
    }
    return PD_JEV_ALLOW;
}
