/* launcher/net/net_resolve.c - the resolver pool of net_resolve.h: a queue of
 * questions, THREADS workers calling getaddrinfo, a list of answers, and
 * the names resolved so far (kept for the run: a run is short, and the
 * answer the DNS server gave is the one the proxy dials). Questions for a
 * name already in flight wait for that lookup. */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "launcher/net/net_resolve.h"

#define THREADS   4
#define IN_FLIGHT 256 /* questions queued at once */
#define NAMES_MAX 4096
#define NAME_LEN  256

struct question {
    uint64_t id;
    size_t name; /* index into names */
    struct question *next;
};

struct answer {
    uint64_t id;
    struct pd_addrs a;
    struct answer *next;
};

struct name {
    char text[NAME_LEN];
    bool done, busy; /* resolved; being resolved */
    struct pd_addrs a;
};

struct pd_resolver {
    pthread_mutex_t mu;
    pthread_cond_t work;
    pthread_t threads[THREADS];
    size_t nthreads;
    bool stop;
    int notify;
    struct question *queue, *queue_tail; /* not yet started */
    struct question *waiting;            /* for a name being resolved */
    size_t nquestions;
    struct answer *answers;
    struct name *names;
    size_t nnames;
    size_t lookups;
};

static void notify(struct pd_resolver *r)
{
    uint64_t one = 1;
    ssize_t n = write(r->notify, &one, sizeof one);
    (void)n; /* a full counter still wakes the reader */
}

static void lookup(const char *name, struct pd_addrs *out)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_ADDRCONFIG;
    memset(out, 0, sizeof *out);
    out->err = getaddrinfo(name, NULL, &hints, &res);
    for (struct addrinfo *ai = res; ai && out->n < PD_ADDRS_MAX; ai = ai->ai_next) {
        if ((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) ||
            ai->ai_addrlen > sizeof out->a[0])
            continue;
        bool dup = false;
        for (size_t k = 0; k < out->n && !dup; k++)
            dup = memcmp(&out->a[k], ai->ai_addr, ai->ai_addrlen) == 0;
        if (!dup) {
            memset(&out->a[out->n], 0, sizeof out->a[0]);
            memcpy(&out->a[out->n++], ai->ai_addr, ai->ai_addrlen);
        }
    }
    if (res)
        freeaddrinfo(res);
}

/* Move the waiting questions for name k to the answers (locked). */
static void answer_waiting(struct pd_resolver *r, size_t k)
{
    struct question **pp = &r->waiting;
    while (*pp) {
        struct question *q = *pp;
        if (q->name != k) {
            pp = &q->next;
            continue;
        }
        *pp = q->next;
        struct answer *a = malloc(sizeof *a);
        if (a) {
            a->id = q->id;
            a->a = r->names[k].a;
            a->next = r->answers;
            r->answers = a;
            notify(r);
        }
        free(q);
        r->nquestions--;
    }
}

static void *worker(void *arg)
{
    struct pd_resolver *r = arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->stop && !r->queue)
            pthread_cond_wait(&r->work, &r->mu);
        if (r->stop)
            break;
        struct question *q = r->queue;
        r->queue = q->next;
        if (!r->queue)
            r->queue_tail = NULL;
        size_t k = q->name;
        q->next = r->waiting;
        r->waiting = q;
        if (r->names[k].done || r->names[k].busy) {
            if (r->names[k].done)
                answer_waiting(r, k);
            continue; /* another worker's lookup answers it */
        }
        r->names[k].busy = true;
        char text[NAME_LEN];
        memcpy(text, r->names[k].text, sizeof text);
        r->lookups++;
        pthread_mutex_unlock(&r->mu);
        struct pd_addrs a;
        lookup(text, &a);
        pthread_mutex_lock(&r->mu);
        r->names[k].a = a;
        r->names[k].done = true;
        r->names[k].busy = false;
        answer_waiting(r, k);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

struct pd_resolver *pd_resolver_new(int fd)
{
    struct pd_resolver *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->names = calloc(NAMES_MAX, sizeof *r->names);
    if (!r->names) {
        free(r);
        return NULL;
    }
    r->notify = fd;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->work, NULL);
    return r; /* the workers start with the first question (most runs ask none) */
}

/* Start the workers (locked); false when none starts. */
static bool start_workers(struct pd_resolver *r)
{
    for (size_t k = r->nthreads; k < THREADS; k++)
        if (pthread_create(&r->threads[r->nthreads], NULL, worker, r) == 0)
            r->nthreads++;
    return r->nthreads > 0;
}

int pd_resolver_ask(struct pd_resolver *r, const char *name, uint64_t id, struct pd_addrs *out)
{
    size_t len = strlen(name);
    if (len == 0 || len >= NAME_LEN) {
        memset(out, 0, sizeof *out);
        out->err = EAI_NONAME;
        return 1;
    }
    pthread_mutex_lock(&r->mu);
    size_t k = 0;
    while (k < r->nnames && strcmp(r->names[k].text, name) != 0)
        k++;
    if (k < r->nnames && r->names[k].done) {
        *out = r->names[k].a;
        pthread_mutex_unlock(&r->mu);
        return 1;
    }
    int rc = -1;
    errno = EAGAIN;
    if (r->nthreads == 0 && !start_workers(r)) {
        errno = EAGAIN;
    } else if (k == r->nnames && r->nnames == NAMES_MAX) {
        errno = ENOMEM;
    } else if (r->nquestions < IN_FLIGHT) {
        struct question *q = malloc(sizeof *q);
        errno = ENOMEM;
        if (q) {
            if (k == r->nnames)
                memcpy(r->names[r->nnames++].text, name, len + 1);
            q->id = id;
            q->name = k;
            q->next = NULL;
            if (r->queue_tail)
                r->queue_tail->next = q;
            else
                r->queue = q;
            r->queue_tail = q;
            r->nquestions++;
            pthread_cond_signal(&r->work);
            rc = 0;
        }
    }
    pthread_mutex_unlock(&r->mu);
    return rc;
}

int pd_resolver_take(struct pd_resolver *r, uint64_t *id, struct pd_addrs *out)
{
    pthread_mutex_lock(&r->mu);
    struct answer *a = r->answers;
    if (a)
        r->answers = a->next;
    pthread_mutex_unlock(&r->mu);
    if (!a)
        return 0;
    *id = a->id;
    *out = a->a;
    free(a);
    return 1;
}

size_t pd_resolver_lookups(const struct pd_resolver *r)
{
    pthread_mutex_lock((pthread_mutex_t *)(uintptr_t)&r->mu);
    size_t n = r->lookups;
    pthread_mutex_unlock((pthread_mutex_t *)(uintptr_t)&r->mu);
    return n;
}

void pd_resolver_free(struct pd_resolver *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->mu);
    r->stop = true;
    pthread_cond_broadcast(&r->work);
    pthread_mutex_unlock(&r->mu);
    /* a worker inside getaddrinfo would keep the launcher for seconds with
     * an unreachable resolver: it is left to finish on its own (the memory
     * it uses stays: the launcher is about to exit) */
    bool all = true;
    for (size_t k = 0; k < r->nthreads; k++) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 50 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        if (pthread_timedjoin_np(r->threads[k], NULL, &until) != 0) {
            pthread_detach(r->threads[k]);
            all = false;
        }
    }
    if (!all)
        return;
    for (struct question *q = r->queue, *n; q; q = n) {
        n = q->next;
        free(q);
    }
    for (struct question *q = r->waiting, *n; q; q = n) {
        n = q->next;
        free(q);
    }
    for (struct answer *a = r->answers, *n; a; a = n) {
        n = a->next;
        free(a);
    }
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->work);
    free(r->names);
    free(r);
}
