/* launcher/jev/curl_dl.c - load libcurl on first use (see curl_dl.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "launcher/jev/curl_dl.h"

static struct pd_curl_api api;
static char load_error[256];
static int loaded; /* 1 ok, -1 failed */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* dlsym returns an object pointer; POSIX guarantees it converts to a
 * function pointer, which the union spells out without a cast warning. */
static int bind_symbol(void *lib, const char *name, void *slot, size_t size)
{
    union {
        void *obj;
        void (*fn)(void);
    } u;
    u.obj = dlsym(lib, name);
    if (!u.obj) {
        snprintf(load_error, sizeof load_error, "libcurl has no %s", name);
        return -1;
    }
    if (size != sizeof u.fn)
        return -1;
    *(void (**)(void))slot = u.fn;
    return 0;
}

static void load(void)
{
    void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(load_error, sizeof load_error, "cannot load libcurl.so.4: %s", dlerror());
        loaded = -1;
        return;
    }
#define BIND(field, sym)                                                                           \
    if (bind_symbol(lib, sym, &api.field, sizeof api.field) != 0) {                                \
        loaded = -1;                                                                               \
        return;                                                                                    \
    }
    BIND(global_init, "curl_global_init")
    BIND(easy_init, "curl_easy_init")
    BIND(easy_setopt, "curl_easy_setopt")
    BIND(easy_perform, "curl_easy_perform")
    BIND(easy_getinfo, "curl_easy_getinfo")
    BIND(easy_cleanup, "curl_easy_cleanup")
    BIND(easy_strerror, "curl_easy_strerror")
    BIND(slist_append, "curl_slist_append")
    BIND(slist_free_all, "curl_slist_free_all")
    BIND(url, "curl_url")
    BIND(url_set, "curl_url_set")
    BIND(url_get, "curl_url_get")
    BIND(url_cleanup, "curl_url_cleanup")
    BIND(url_strerror, "curl_url_strerror")
    BIND(free, "curl_free")
#undef BIND
    loaded = 1;
}

const struct pd_curl_api *pd_curl(char *err, size_t errlen)
{
    pthread_once(&once, load);
    if (loaded == 1)
        return &api;
    snprintf(err, errlen, "%s", load_error);
    return NULL;
}
