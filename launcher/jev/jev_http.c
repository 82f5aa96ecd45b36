/* launcher/jev/jev_http.c - the jev transport: one HTTPS POST with libcurl.
 *
 * Settings: overall timeout pd_jev_timeout_ms() (10 s), connect timeout 5 s,
 * no redirects (a 3xx is an error like any status but 200), TLS peer and host
 * verification on, only http and https, proxies from the environment as
 * libcurl reads them, except that loopback addresses are never proxied (as
 * the original's Go client did). Plain http is accepted only for a loopback
 * host, so the bearer key and the output never cross a network in clear.
 * The response body is capped at PD_JEV_RESPONSE_MAX bytes. */
#include "launcher/jev/jev.h"

#include <arpa/inet.h>
#include "launcher/jev/curl_dl.h"
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static long timeout_ms = PD_JEV_TIMEOUT_MS;
static const struct pd_curl_api *C; /* libcurl, loaded by pd_jev_http_post */

long pd_jev_timeout_ms(void)
{
    return timeout_ms;
}

void pd_jev_set_timeout_ms(long ms)
{
    timeout_ms = ms > 0 ? ms : PD_JEV_TIMEOUT_MS;
}

const char *pd_jev_status_text(long code)
{
    /* The reason phrases of the HTTP status registry (RFC 9110 and friends),
     * in the spelling Go's net/http uses, which the original printed. */
    static const struct {
        long code;
        const char *text;
    } table[] = {
        {100, "Continue"},
        {101, "Switching Protocols"},
        {102, "Processing"},
        {103, "Early Hints"},
        {200, "OK"},
        {201, "Created"},
        {202, "Accepted"},
        {203, "Non-Authoritative Information"},
        {204, "No Content"},
        {205, "Reset Content"},
        {206, "Partial Content"},
        {207, "Multi-Status"},
        {208, "Already Reported"},
        {226, "IM Used"},
        {300, "Multiple Choices"},
        {301, "Moved Permanently"},
        {302, "Found"},
        {303, "See Other"},
        {304, "Not Modified"},
        {305, "Use Proxy"},
        {307, "Temporary Redirect"},
        {308, "Permanent Redirect"},
        {400, "Bad Request"},
        {401, "Unauthorized"},
        {402, "Payment Required"},
        {403, "Forbidden"},
        {404, "Not Found"},
        {405, "Method Not Allowed"},
        {406, "Not Acceptable"},
        {407, "Proxy Authentication Required"},
        {408, "Request Timeout"},
        {409, "Conflict"},
        {410, "Gone"},
        {411, "Length Required"},
        {412, "Precondition Failed"},
        {413, "Request Entity Too Large"},
        {414, "Request URI Too Long"},
        {415, "Unsupported Media Type"},
        {416, "Requested Range Not Satisfiable"},
        {417, "Expectation Failed"},
        {418, "I'm a teapot"},
        {421, "Misdirected Request"},
        {422, "Unprocessable Entity"},
        {423, "Locked"},
        {424, "Failed Dependency"},
        {425, "Too Early"},
        {426, "Upgrade Required"},
        {428, "Precondition Required"},
        {429, "Too Many Requests"},
        {431, "Request Header Fields Too Large"},
        {451, "Unavailable For Legal Reasons"},
        {500, "Internal Server Error"},
        {501, "Not Implemented"},
        {502, "Bad Gateway"},
        {503, "Service Unavailable"},
        {504, "Gateway Timeout"},
        {505, "HTTP Version Not Supported"},
        {506, "Variant Also Negotiates"},
        {507, "Insufficient Storage"},
        {508, "Loop Detected"},
        {510, "Not Extended"},
        {511, "Network Authentication Required"},
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (table[i].code == code)
            return table[i].text;
    return NULL;
}

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

static int status_error(long code, char *err, size_t errlen)
{
    const char *text = pd_jev_status_text(code);
    if (text != NULL)
        return fail(err, errlen, "jev: endpoint returned %ld %s", code, text);
    return fail(err, errlen, "jev: endpoint returned %ld", code);
}

/* ---- libcurl set-up ---------------------------------------------------------- */

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;

static void global_init(void)
{
    global_rc = C->global_init(CURL_GLOBAL_DEFAULT);
}

/* Is host (as the URL parser returns it) a loopback address? */
static bool host_is_loopback(const char *host)
{
    if (strcasecmp(host, "localhost") == 0)
        return true;
    struct in_addr a4;
    if (inet_pton(AF_INET, host, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127u;
    char v6[64];
    size_t n = strlen(host);
    if (n >= 2 && n < sizeof(v6) && host[0] == '[' && host[n - 1] == ']') {
        memcpy(v6, host + 1, n - 2);
        v6[n - 2] = '\0';
        char *zone = strchr(v6, '%');
        if (zone != NULL)
            *zone = '\0';
        struct in6_addr a6;
        if (inet_pton(AF_INET6, v6, &a6) == 1)
            return IN6_IS_ADDR_LOOPBACK(&a6) ||
                   (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127u);
    }
    return false;
}

/* Only https, or http to a loopback host. */
static int check_url(const char *url, char *err, size_t errlen)
{
    CURLU *u = C->url();
    if (u == NULL)
        return fail(err, errlen, "jev: request failed: out of memory");
    int rc = -1;
    char *scheme = NULL;
    char *host = NULL;
    CURLUcode uc = C->url_set(u, CURLUPART_URL, url, 0);
    if (uc != CURLUE_OK) {
        fail(err, errlen, "jev: bad JEV_API_URL: %s", C->url_strerror(uc));
        goto out;
    }
    if (C->url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        C->url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
        fail(err, errlen, "jev: bad JEV_API_URL: no scheme or host");
        goto out;
    }
    if (strcmp(scheme, "https") == 0 || (strcmp(scheme, "http") == 0 && host_is_loopback(host)))
        rc = 0;
    else if (strcmp(scheme, "http") == 0)
        fail(err, errlen, "jev: bad JEV_API_URL: plain http is allowed only to a loopback address");
    else
        fail(err, errlen, "jev: bad JEV_API_URL: scheme must be https");
out:
    C->free(scheme);
    C->free(host);
    C->url_cleanup(u);
    return rc;
}

/* The no_proxy list libcurl would use, plus the loopback names. NULL when
 * every host is exempt anyway ("*") or on allocation failure (then libcurl's
 * own reading of the environment stays in force). */
static char *no_proxy_list(void)
{
    static const char loopback[] = "localhost,127.0.0.0/8,::1";
    const char *env = getenv("no_proxy");
    if (env == NULL || env[0] == '\0')
        env = getenv("NO_PROXY");
    if (env == NULL)
        env = "";
    if (strcmp(env, "*") == 0)
        return NULL;
    size_t n = strlen(env);
    char *s = malloc(n + sizeof(loopback) + 1);
    if (s == NULL)
        return NULL;
    if (n > 0) {
        memcpy(s, env, n);
        s[n++] = ',';
    }
    memcpy(s + n, loopback, sizeof(loopback));
    return s;
}

/* ---- the request ------------------------------------------------------------ */

struct sink {
    CURL *h;
    char *buf;
    size_t len, cap;
    bool too_big;    /* body beyond PD_JEV_RESPONSE_MAX */
    bool bad_status; /* status is not 200: the body is not wanted */
    bool oom;
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *ud)
{
    struct sink *s = ud;
    size_t n = size * nmemb;
    long code = 0;
    if (C->easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK || code != 200) {
        s->bad_status = true;
        return 0;
    }
    if (n > PD_JEV_RESPONSE_MAX - s->len) {
        s->too_big = true;
        return 0;
    }
    if (s->len + n + 1 > s->cap) {
        size_t nc = s->cap < 4096 ? 4096 : s->cap;
        while (nc < s->len + n + 1)
            nc *= 2;
        if (nc > PD_JEV_RESPONSE_MAX + 1)
            nc = PD_JEV_RESPONSE_MAX + 1;
        char *p = realloc(s->buf, nc);
        if (p == NULL) {
            s->oom = true;
            return 0;
        }
        s->buf = p;
        s->cap = nc;
    }
    memcpy(s->buf + s->len, data, n);
    s->len += n;
    s->buf[s->len] = '\0';
    return n;
}

/* Wipe and free a header list (one entry holds the key). */
static void free_headers(struct curl_slist *list)
{
    for (struct curl_slist *l = list; l != NULL; l = l->next)
        if (l->data != NULL)
            explicit_bzero(l->data, strlen(l->data));
    C->slist_free_all(list);
}

int pd_jev_http_post(const char *url, const char *key, const char *body, size_t body_len,
                     char **resp, size_t *resp_len, char *err, size_t errlen)
{
    *resp = NULL;
    *resp_len = 0;
    char dl_err[256];
    if (!C && !(C = pd_curl(dl_err, sizeof dl_err)))
        return fail(err, errlen, "jev: request failed: %s", dl_err);
    pthread_once(&global_once, global_init);
    if (global_rc != CURLE_OK)
        return fail(err, errlen, "jev: request failed: %s", C->easy_strerror(global_rc));
    if (check_url(url, err, errlen) != 0)
        return -1;

    struct sink s = {0};
    struct curl_slist *headers = NULL;
    char *no_proxy = no_proxy_list();
    char curl_err[CURL_ERROR_SIZE] = "";
    int rc = -1;

    size_t auth_len = strlen("Authorization: Bearer ") + strlen(key) + 1;
    char *auth = malloc(auth_len);
    s.h = C->easy_init();
    if (auth == NULL || s.h == NULL) {
        fail(err, errlen, "jev: request failed: out of memory");
        goto out;
    }
    snprintf(auth, auth_len, "Authorization: Bearer %s", key);
    const char *const lines[] = {auth, "Content-Type: application/json", "Accept: application/json",
                                 "Expect:"};
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        struct curl_slist *l = C->slist_append(headers, lines[i]);
        if (l == NULL) {
            fail(err, errlen, "jev: request failed: out of memory");
            goto out;
        }
        headers = l;
    }

    long total = pd_jev_timeout_ms();
    long connect = total < PD_JEV_CONNECT_TIMEOUT_MS ? total : PD_JEV_CONNECT_TIMEOUT_MS;
    CURL *h = s.h;
    CURLcode set = CURLE_OK;
#define SET(opt, val)                                                                              \
    do {                                                                                           \
        if (set == CURLE_OK)                                                                       \
            set = C->easy_setopt(h, opt, val);                                                     \
    } while (0)
    SET(CURLOPT_URL, url);
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
    SET(CURLOPT_POST, 1L);
    SET(CURLOPT_POSTFIELDS, body);
    SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    SET(CURLOPT_HTTPHEADER, headers);
    SET(CURLOPT_USERAGENT, "paldron");
    SET(CURLOPT_FOLLOWLOCATION, 0L);
    SET(CURLOPT_SSL_VERIFYPEER, 1L);
    SET(CURLOPT_SSL_VERIFYHOST, 2L);
    SET(CURLOPT_TIMEOUT_MS, total);
    SET(CURLOPT_CONNECTTIMEOUT_MS, connect);
    SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)PD_JEV_RESPONSE_MAX);
    SET(CURLOPT_WRITEFUNCTION, on_body);
    SET(CURLOPT_WRITEDATA, &s);
    SET(CURLOPT_ERRORBUFFER, curl_err);
    if (no_proxy != NULL)
        SET(CURLOPT_NOPROXY, no_proxy);
#undef SET
    if (set != CURLE_OK) {
        fail(err, errlen, "jev: request failed: %s", C->easy_strerror(set));
        goto out;
    }

    CURLcode cc = C->easy_perform(h);
    long code = 0;
    if (C->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK)
        code = 0;
    if (s.bad_status || (code != 0 && code != 200)) {
        status_error(code, err, errlen);
    } else if (s.too_big || cc == CURLE_FILESIZE_EXCEEDED) {
        fail(err, errlen, "jev: response body larger than %u bytes", PD_JEV_RESPONSE_MAX);
    } else if (s.oom) {
        fail(err, errlen, "jev: request failed: out of memory");
    } else if (cc != CURLE_OK) {
        size_t n = strlen(curl_err);
        while (n > 0 && (curl_err[n - 1] == '\n' || curl_err[n - 1] == '\r'))
            curl_err[--n] = '\0';
        fail(err, errlen, "jev: request failed: %s", n > 0 ? curl_err : C->easy_strerror(cc));
    } else if (code != 200) {
        status_error(code, err, errlen);
    } else {
        if (s.buf == NULL) {
            s.buf = calloc(1, 1);
            if (s.buf == NULL) {
                fail(err, errlen, "jev: request failed: out of memory");
                goto out;
            }
        }
        *resp = s.buf;
        *resp_len = s.len;
        s.buf = NULL;
        rc = 0;
    }
out:
    if (s.h != NULL)
        C->easy_cleanup(s.h);
    free_headers(headers);
    if (auth != NULL) {
        explicit_bzero(auth, strlen(auth));
        free(auth);
    }
    free(no_proxy);
    free(s.buf);
    return rc;
}
