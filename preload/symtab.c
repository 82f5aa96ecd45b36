/* preload/symtab.c - bind the real libc functions once, with
 * dlsym(RTLD_NEXT): the next definition after this library in lookup order
 * (libc, or another preload loaded after us). Binding happens on the first
 * wrapped call, never at load time (debuggers and valgrind have crashed on
 * interposers that bind from their constructor), under pthread_once, which
 * glibc makes safe across fork. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "preload/channel.h"
#include "preload/symtab.h"

struct pd_real pd_real;

static pthread_once_t bind_once = PTHREAD_ONCE_INIT;

static void bind_all(void)
{
    void *p;
#define PD_SYM(ret, name, params, args, gate)                                                      \
    p = dlsym(RTLD_NEXT, #name);                                                                   \
    memcpy(&pd_real.name, &p, sizeof p);
#define PD_SYM_VA(ret, name, params, gate)                                                         \
    p = dlsym(RTLD_NEXT, #name);                                                                   \
    memcpy(&pd_real.name, &p, sizeof p);
#include "preload/symbols.def"
}

void pd_bind(void)
{
    pthread_once(&bind_once, bind_all);
}

void pd_missing(const char *name)
{
    pd_say("paldron: preload: the C library has no ", name, "; refusing the call",
           (const char *)NULL);
    errno = ENOSYS;
}
