/* launcher/jev/curl_dl.h - libcurl, loaded with dlopen the first time the jev
 * verdict needs it. Linking libcurl would load it and its dozen dependencies
 * (TLS, HTTP/2, LDAP, Kerberos ...) at every start of paldron, which costs
 * several times a hook call; only runs with jev_verdict = true need it. */
#ifndef PALDRON_CURL_DL_H
#define PALDRON_CURL_DL_H

#include <stddef.h>

#include <curl/curl.h>

struct pd_curl_api {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
    CURLcode (*easy_perform)(CURL *h);
    CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
    void (*easy_cleanup)(CURL *h);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
    void (*slist_free_all)(struct curl_slist *list);
    CURLU *(*url)(void);
    CURLUcode (*url_set)(CURLU *u, CURLUPart part, const char *content, unsigned int flags);
    CURLUcode (*url_get)(const CURLU *u, CURLUPart part, char **out, unsigned int flags);
    void (*url_cleanup)(CURLU *u);
    const char *(*url_strerror)(CURLUcode code);
    void (*free)(void *p);
};

/* The API, loaded once (thread-safe); NULL with err filled when libcurl
 * cannot be loaded. */
const struct pd_curl_api *pd_curl(char *err, size_t errlen);

#endif
