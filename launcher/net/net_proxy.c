/* launcher/net/net_proxy.c - the proxy and DNS server of allow_hosts
 * (net_proxy.h): one thread, one epoll loop over the listeners the run's
 * namespace handed over, the connections they accept, the upstream
 * connections and the resolver's answers.
 *
 * A proxy connection goes HEAD (the request head, at most PD_HTTP_HEAD_MAX
 * bytes within HEAD_TIMEOUT) -> RESOLVE (the resolver pool) -> DIAL (a
 * non-blocking connect to each vetted address in turn, DIAL_TIMEOUT each)
 * -> SEND (the reply to the client, and for absolute-form HTTP the origin
 * head to the server, and whatever the client sent after its head) ->
 * RELAY (splice through a pipe each way, TCP_NODELAY on both legs, half
 * closes passed on) -> closed. A refusal goes to CLOSING: the error reply
 * is written, then the connection closes. No idle timeout once relaying:
 * a tunnel lives as long as both ends keep it.
 *
 * A DNS question over UDP is answered from the resolver (an allowed name)
 * or at once (NXDOMAIN; REFUSED over the rate); over TCP the same, framed,
 * on a connection that may ask several. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "launcher/net/net_dns.h"
#include "launcher/net/net_http.h"
#include "launcher/net/net_peer.h"
#include "launcher/net/net_proxy.h"
#include "launcher/net/net_resolve.h"
#include "launcher/net/net_socks.h"
#include "platform/platform.h"
#include "policy/hosts.h"

#define MAX_CONNS    1024
#define HEAD_TIMEOUT 10000 /* ms */
#define DIAL_TIMEOUT 10000 /* ms per address */
#define PIPE_BYTES   (1 << 20)
#define DNS_RATE     200 /* questions per second, and the burst */
#define MAX_UDP_WAIT 256 /* UDP questions waiting for the resolver */
#define MAX_RECORDS  4096
#define OUT_MAX      (PD_HTTP_HEAD_MAX + 1024)
#define UP_MAX       (2 * PD_HTTP_HEAD_MAX + 1024)

enum state { HEAD, RESOLVE, DIAL, SEND, RELAY, CLOSING, DNS_READ, DNS_RESOLVE, DNS_WRITE };
enum kind { K_HTTP_CONNECT, K_HTTP_ABS, K_SOCKS, K_DNS };

/* What an epoll event points at. */
enum tag {
    T_CHAN,
    T_STOP,
    T_RESOLVED,
    T_LISTEN_PROXY,
    T_LISTEN_DNS_TCP,
    T_DNS_UDP,
    T_CLIENT,
    T_UPSTREAM
};

struct endpoint {
    enum tag tag;
    struct conn *c; /* T_CLIENT, T_UPSTREAM */
    int fd;         /* listeners */
    uint32_t events;
};

struct conn {
    uint64_t id;
    enum state st;
    enum kind kind;
    int fd, up;
    struct endpoint ep_c, ep_u;
    struct sockaddr_storage peer; /* the client, as the run's namespace has it */
    uint8_t in[PD_HTTP_HEAD_MAX + 4];
    size_t nin;
    bool socks_greeted;
    char out[OUT_MAX]; /* to the client */
    size_t nout, offout;
    char upbuf[UP_MAX]; /* to the server before the relay */
    size_t nup, offup;
    struct pd_http_req req;
    char host[256]; /* canonical */
    unsigned port;
    char subject[300];
    struct pd_addrs addrs;
    size_t next_addr;
    bool timed_out; /* an address did not answer within DIAL_TIMEOUT */
    long long deadline;
    /* relay: client -> server, server -> client */
    int cu[2], uc[2];
    size_t in_cu, in_uc;
    bool eof_c, eof_u, shut_u, shut_c;
    bool hup_c, hup_u; /* that end hung up: no more events from it, reads go on */
    /* DNS over TCP */
    struct pd_dns_query q;
    struct conn *next;
};

struct udp_wait {
    uint64_t id;
    int fd;
    struct sockaddr_storage peer;
    socklen_t peerlen;
    struct pd_dns_query q;
    uint8_t msg[PD_DNS_MAX];
    size_t len;
};

struct record {
    char kind[16], op[16], key[32], reason[160], program[64];
    char path[300], pattern[300];
    long pid;
};

struct pd_net_proxy {
    const struct pd_policy *p;
    bool audit; /* --audit: what allow_hosts would refuse passes, recorded as audit */
    int chan, ep, stopfd, resfd;
    struct endpoint ep_chan, ep_stop, ep_res;
    struct endpoint listeners[PD_LISTEN_MAX];
    size_t nlisteners;
    unsigned long netns;
    struct pd_resolver *res;
    pthread_t thread;
    bool running, served;
    struct conn *conns;
    /* freed during a round of epoll events, released after it: a later
     * event of the same round may still name it (loop) */
    struct conn *dead;
    size_t nconns;
    uint64_t next_id;
    struct udp_wait udp[MAX_UDP_WAIT];
    size_t nudp;
    double tokens;
    long long token_ms;
    bool rate_said;
    pthread_mutex_t mu; /* records */
    struct record *recs;
    size_t nrecs;
    size_t lookups;
};

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* ---- records -------------------------------------------------------------- */

static void add_record(struct pd_net_proxy *x, const char *kind, const char *op, const char *path,
                       const char *key, const char *pattern, const char *reason,
                       const struct sockaddr_storage *peer, bool tcp)
{
    struct record r;
    memset(&r, 0, sizeof r);
    snprintf(r.kind, sizeof r.kind, "%s", kind);
    snprintf(r.op, sizeof r.op, "%s", op);
    snprintf(r.path, sizeof r.path, "%s", path);
    snprintf(r.key, sizeof r.key, "%s", key ? key : "");
    snprintf(r.pattern, sizeof r.pattern, "%s", pattern ? pattern : "");
    snprintf(r.reason, sizeof r.reason, "%s", reason ? reason : "");
    pd_net_peer_program(x->netns, tcp, peer, r.program, sizeof r.program, &r.pid);
    pthread_mutex_lock(&x->mu);
    if (x->nrecs < MAX_RECORDS) {
        struct record *v = realloc(x->recs, (x->nrecs + 1) * sizeof *v);
        if (v) {
            x->recs = v;
            x->recs[x->nrecs++] = r;
        }
    }
    pthread_mutex_unlock(&x->mu);
}

/* ---- epoll ---------------------------------------------------------------- */

static void watch(struct pd_net_proxy *x, int fd, struct endpoint *e, uint32_t events)
{
    if (fd < 0)
        return;
    struct epoll_event ev = {.events = events, .data.ptr = e};
    if (e->events == events)
        return;
    int op = e->events == (uint32_t)-1 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
    if (epoll_ctl(x->ep, op, fd, &ev) == 0)
        e->events = events;
}

/* No more events from fd (a hung-up end: epoll would report it forever). */
static void unwatch(struct pd_net_proxy *x, int fd, struct endpoint *e)
{
    if (fd >= 0 && e->events != (uint32_t)-1)
        epoll_ctl(x->ep, EPOLL_CTL_DEL, fd, NULL);
    e->events = (uint32_t)-1;
}

static void nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void nodelay(int fd)
{
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* ---- connections ---------------------------------------------------------- */

static void conn_free(struct pd_net_proxy *x, struct conn *c)
{
    for (struct conn **pp = &x->conns; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    x->nconns--;
    if (c->fd >= 0)
        close(c->fd);
    if (c->up >= 0)
        close(c->up);
    for (int k = 0; k < 2; k++) {
        if (c->cu[k] >= 0)
            close(c->cu[k]);
        if (c->uc[k] >= 0)
            close(c->uc[k]);
    }
    c->fd = c->up = -1;
    c->next = x->dead;
    x->dead = c;
}

/* After a round of events: the memory of the connections it closed. */
static void release_dead(struct pd_net_proxy *x)
{
    while (x->dead) {
        struct conn *c = x->dead;
        x->dead = c->next;
        free(c);
    }
}

static struct conn *conn_new(struct pd_net_proxy *x, int fd, enum kind kind,
                             const struct sockaddr_storage *peer)
{
    struct conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->id = ++x->next_id;
    c->fd = fd;
    c->up = -1;
    c->cu[0] = c->cu[1] = c->uc[0] = c->uc[1] = -1;
    c->kind = kind;
    c->st = kind == K_DNS ? DNS_READ : HEAD;
    c->peer = *peer;
    c->deadline = now_ms() + HEAD_TIMEOUT;
    c->ep_c = (struct endpoint){.tag = T_CLIENT, .c = c, .events = (uint32_t)-1};
    c->ep_u = (struct endpoint){.tag = T_UPSTREAM, .c = c, .events = (uint32_t)-1};
    c->next = x->conns;
    x->conns = c;
    x->nconns++;
    return c;
}

/* The events each end waits for in c's state. A client that goes away
 * while its request waits (EPOLLRDHUP) ends it. */
static void update(struct pd_net_proxy *x, struct conn *c)
{
    uint32_t ce = 0, ue = 0;
    switch (c->st) {
    case HEAD:
    case DNS_READ:
        ce = EPOLLIN | EPOLLRDHUP;
        break;
    case RESOLVE:
    case DNS_RESOLVE:
        ce = EPOLLRDHUP;
        break;
    case DIAL:
        ce = EPOLLRDHUP;
        ue = EPOLLOUT;
        break;
    case SEND:
        ce = c->offout < c->nout ? EPOLLOUT : 0;
        ue = c->offup < c->nup ? EPOLLOUT : 0;
        break;
    case CLOSING:
    case DNS_WRITE:
        ce = EPOLLOUT;
        break;
    case RELAY:
        ce = (!c->eof_c && c->in_cu == 0 ? EPOLLIN : 0) | (c->in_uc ? EPOLLOUT : 0);
        ue = (!c->eof_u && c->in_uc == 0 ? EPOLLIN : 0) | (c->in_cu ? EPOLLOUT : 0);
        break;
    }
    if (c->hup_c)
        unwatch(x, c->fd, &c->ep_c);
    else
        watch(x, c->fd, &c->ep_c, ce);
    if (c->up >= 0 && c->hup_u)
        unwatch(x, c->up, &c->ep_u);
    else if (c->up >= 0)
        watch(x, c->up, &c->ep_u, ue);
}

/* Answer the client with an error and close (the reply is small: it fits
 * the socket buffer; CLOSING finishes a partial write). */
static void refuse_http(struct pd_net_proxy *x, struct conn *c, int code, const char *reason)
{
    c->nout = pd_http_error(code, reason, c->out, sizeof c->out);
    c->offout = 0;
    c->st = CLOSING;
    c->deadline = now_ms() + HEAD_TIMEOUT;
    update(x, c);
}

static void refuse_socks(struct pd_net_proxy *x, struct conn *c, uint8_t rep)
{
    c->nout = pd_socks_reply(rep, (uint8_t *)c->out, sizeof c->out);
    c->offout = 0;
    c->st = CLOSING;
    c->deadline = now_ms() + HEAD_TIMEOUT;
    update(x, c);
}

static void refuse(struct pd_net_proxy *x, struct conn *c, int code, uint8_t socks_rep,
                   const char *reason)
{
    if (c->kind == K_SOCKS)
        refuse_socks(x, c, socks_rep);
    else
        refuse_http(x, c, code, reason);
}

/* The target is known (c->req.host / port, or the SOCKS5 request): judge
 * it, then resolve an allowed name (an allowed IP literal is dialled as it
 * is). */
static void resolve_or_dial(struct pd_net_proxy *x, struct conn *c);

static void judge_target(struct pd_net_proxy *x, struct conn *c, const char *host, unsigned port)
{
    struct pd_verdict v;
    pd_host_decide(x->p, host, port, &v);
    snprintf(c->subject, sizeof c->subject, "%s", v.subject[0] ? v.subject : host);
    if (v.deny) {
        add_record(x, x->audit ? PD_REPORT_AUDIT : PD_REPORT_DENY, "connect", c->subject, v.key,
                   v.pattern, v.reason, &c->peer, true);
        if (!x->audit) {
            char why[PD_MSG_MAX];
            snprintf(why, sizeof why, "%s", v.message);
            refuse(x, c, 403, 0x02, why);
            return;
        }
    }
    char msg[128];
    if (pd_host_canonical(host, c->host, sizeof c->host, msg, sizeof msg) != 0) {
        refuse(x, c, 400, 0x01, msg);
        return;
    }
    c->port = port;
    resolve_or_dial(x, c);
}

static void dial_next(struct pd_net_proxy *x, struct conn *c);

static void resolve_or_dial(struct pd_net_proxy *x, struct conn *c)
{
    struct in6_addr a6;
    struct in_addr a4;
    memset(&c->addrs, 0, sizeof c->addrs);
    if (inet_pton(AF_INET, c->host, &a4) == 1) {
        struct sockaddr_in *in = (struct sockaddr_in *)(void *)&c->addrs.a[0];
        in->sin_family = AF_INET;
        in->sin_addr = a4;
        c->addrs.n = 1;
    } else if (inet_pton(AF_INET6, c->host, &a6) == 1) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)(void *)&c->addrs.a[0];
        in6->sin6_family = AF_INET6;
        in6->sin6_addr = a6;
        c->addrs.n = 1;
    } else {
        int rc = pd_resolver_ask(x->res, c->host, c->id, &c->addrs);
        if (rc < 0) {
            refuse(x, c, 502, 0x01, "the launcher's resolver is busy");
            return;
        }
        if (rc == 0) {
            c->st = RESOLVE;
            update(x, c);
            return;
        }
    }
    c->next_addr = 0;
    dial_next(x, c);
}

/* Dial the next vetted address of c->addrs. */
static void dial_next(struct pd_net_proxy *x, struct conn *c)
{
    if (c->up >= 0) {
        epoll_ctl(x->ep, EPOLL_CTL_DEL, c->up, NULL);
        close(c->up);
        c->up = -1;
        c->ep_u.events = (uint32_t)-1;
    }
    char why[160] = "";
    while (c->next_addr < c->addrs.n) {
        struct sockaddr_storage *ss = &c->addrs.a[c->next_addr++];
        if (pd_addr_refused(x->p, (struct sockaddr *)ss, why, sizeof why))
            continue;
        socklen_t len;
        if (ss->ss_family == AF_INET) {
            ((struct sockaddr_in *)(void *)ss)->sin_port = htons((uint16_t)c->port);
            len = sizeof(struct sockaddr_in);
        } else {
            ((struct sockaddr_in6 *)(void *)ss)->sin6_port = htons((uint16_t)c->port);
            len = sizeof(struct sockaddr_in6);
        }
        int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            continue;
        nodelay(fd);
        if (connect(fd, (struct sockaddr *)ss, len) != 0 && errno != EINPROGRESS) {
            close(fd);
            continue;
        }
        c->up = fd;
        c->st = DIAL;
        c->deadline = now_ms() + DIAL_TIMEOUT;
        update(x, c);
        return;
    }
    if (why[0]) {
        /* every address of an allowed name was refused: metadata */
        add_record(x, PD_REPORT_DENY, "connect", c->subject, "allow_hosts", NULL, why, &c->peer,
                   true);
        refuse(x, c, 403, 0x02, why);
        return;
    }
    char msg[PD_MSG_MAX];
    if (c->timed_out) {
        snprintf(msg, sizeof msg, "%s did not answer within %d s", c->subject, DIAL_TIMEOUT / 1000);
        refuse(x, c, 504, 0x04, msg);
        return;
    }
    if (c->addrs.err)
        snprintf(msg, sizeof msg, "%s: %s", c->host, gai_strerror(c->addrs.err));
    else if (c->addrs.n == 0)
        snprintf(msg, sizeof msg, "%s: no address", c->host);
    else
        snprintf(msg, sizeof msg, "%s: connection refused or unreachable", c->subject);
    refuse(x, c, 502, c->addrs.n ? 0x05 : 0x04, msg);
}

static void send_queued(struct pd_net_proxy *x, struct conn *c);

/* The upstream connect finished (or failed). */
static void dialled(struct pd_net_proxy *x, struct conn *c)
{
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(c->up, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
        dial_next(x, c);
        return;
    }
    /* the relay's pipes before the client hears 200: without descriptors
     * for them the answer is a 502, not a tunnel that drops */
    if (pipe2(c->cu, O_NONBLOCK | O_CLOEXEC) != 0 || pipe2(c->uc, O_NONBLOCK | O_CLOEXEC) != 0) {
        char why[128];
        snprintf(why, sizeof why, "the launcher cannot relay %s: %s", c->subject, strerror(errno));
        refuse(x, c, 502, 0x01, why);
        return;
    }
    fcntl(c->cu[1], F_SETPIPE_SZ, PIPE_BYTES);
    fcntl(c->uc[1], F_SETPIPE_SZ, PIPE_BYTES);
    /* the client's reply, the server's first bytes */
    c->offout = c->offup = 0;
    c->nout = c->nup = 0;
    size_t rest = c->nin;
    const uint8_t *after = c->in;
    if (c->kind == K_HTTP_CONNECT) {
        c->nout = pd_http_connected(c->out, sizeof c->out);
        rest = c->nin - c->req.head_len;
        after = c->in + c->req.head_len;
    } else if (c->kind == K_HTTP_ABS) {
        c->nup = pd_http_origin_head(c->in, c->req.head_len, &c->req, c->upbuf, sizeof c->upbuf);
        if (c->nup == 0) {
            refuse_http(x, c, 400, "the request head cannot be rewritten for the server");
            return;
        }
        rest = c->nin - c->req.head_len;
        after = c->in + c->req.head_len;
    } else {
        c->nout = pd_socks_reply(0x00, (uint8_t *)c->out, sizeof c->out);
        /* c->in holds what came after the SOCKS5 request (SOCKS: moved there) */
    }
    if (rest > sizeof c->upbuf - c->nup)
        rest = sizeof c->upbuf - c->nup;
    memcpy(c->upbuf + c->nup, after, rest);
    c->nup += rest;
    c->nin = 0;
    c->st = SEND;
    /* both sockets are almost always writable now: send at once rather than
     * after another round of epoll (send_queued waits when they are not) */
    send_queued(x, c);
}

/* ---- relay ---------------------------------------------------------------- */

static bool start_relay(struct conn *c)
{
    c->st = RELAY; /* its pipes were made when the server answered (dialled) */
    return c->cu[0] >= 0 && c->uc[0] >= 0;
}

/* Move what can move one way: src -> pipe -> dst. false on an error that
 * ends the connection. */
static bool pump(int src, int p[2], int dst, size_t *inpipe, bool *eof, bool *shut)
{
    for (;;) {
        bool moved = false;
        if (!*eof && *inpipe == 0) {
            ssize_t n =
                splice(src, NULL, p[1], NULL, PIPE_BYTES, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
            if (n > 0) {
                *inpipe += (size_t)n;
                moved = true;
            } else if (n == 0) {
                *eof = true;
            } else if (errno != EAGAIN && errno != EINTR) {
                return false;
            }
        }
        if (*inpipe > 0) {
            ssize_t n = splice(p[0], NULL, dst, NULL, *inpipe, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
            if (n > 0) {
                *inpipe -= (size_t)n;
                moved = true;
            } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
                return false;
            }
        }
        if (*eof && *inpipe == 0 && !*shut) {
            shutdown(dst, SHUT_WR);
            *shut = true;
        }
        if (!moved)
            return true;
    }
}

static void relay(struct pd_net_proxy *x, struct conn *c)
{
    if (!pump(c->fd, c->cu, c->up, &c->in_cu, &c->eof_c, &c->shut_u) ||
        !pump(c->up, c->uc, c->fd, &c->in_uc, &c->eof_u, &c->shut_c) ||
        (c->eof_c && c->eof_u && c->in_cu == 0 && c->in_uc == 0)) {
        conn_free(x, c);
        return;
    }
    update(x, c);
}

/* Send buf[*off, len) to fd until it is out or the socket is full; *off
 * moves past what went. 0, or -1 when the connection failed. */
static int flush(int fd, const char *buf, size_t len, size_t *off)
{
    while (*off < len) {
        ssize_t n = send(fd, buf + *off, len - *off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return 0;
        if (n <= 0)
            return -1;
        *off += (size_t)n;
    }
    return 0;
}

/* Write what is queued for the client and the server; then relay. */
static void send_queued(struct pd_net_proxy *x, struct conn *c)
{
    if (flush(c->fd, c->out, c->nout, &c->offout) != 0 ||
        (c->up >= 0 && flush(c->up, c->upbuf, c->nup, &c->offup) != 0)) {
        conn_free(x, c);
        return;
    }
    if (c->offout < c->nout || c->offup < c->nup) {
        update(x, c);
        return;
    }
    if (!start_relay(c)) {
        conn_free(x, c);
        return;
    }
    relay(x, c);
}

/* ---- the head ------------------------------------------------------------- */

static void on_head(struct pd_net_proxy *x, struct conn *c)
{
    if (c->kind == K_SOCKS) {
        size_t used = 0;
        if (!c->socks_greeted) {
            enum pd_socks_parse g = pd_socks_greeting(c->in, c->nin, &used);
            if (g == PD_SOCKS_MORE)
                return;
            if (g == PD_SOCKS_BAD) {
                static const uint8_t no[2] = {5, 0xff};
                memcpy(c->out, no, 2);
                c->nout = 2;
                c->offout = 0;
                c->st = CLOSING;
                update(x, c);
                return;
            }
            static const uint8_t yes[2] = {5, 0};
            if (send(c->fd, yes, 2, MSG_NOSIGNAL) != 2) {
                conn_free(x, c);
                return;
            }
            c->socks_greeted = true;
            memmove(c->in, c->in + used, c->nin - used);
            c->nin -= used;
        }
        struct pd_socks_req sr;
        enum pd_socks_parse r = pd_socks_request(c->in, c->nin, &sr, &used);
        if (r == PD_SOCKS_MORE)
            return;
        if (r == PD_SOCKS_BAD) {
            refuse_socks(x, c, sr.reply_code ? sr.reply_code : 0x01);
            return;
        }
        memmove(c->in, c->in + used, c->nin - used);
        c->nin -= used;
        judge_target(x, c, sr.host, sr.port);
        return;
    }
    enum pd_http_parse h = pd_http_parse_request(c->in, c->nin, &c->req);
    if (h == PD_HTTP_MORE)
        return;
    if (h == PD_HTTP_TOO_BIG) {
        refuse_http(x, c, 431, "request head larger than 8 KiB");
        return;
    }
    if (h == PD_HTTP_BAD) {
        refuse_http(x, c, 400, c->req.why[0] ? c->req.why : "malformed request");
        return;
    }
    c->kind = c->req.connect ? K_HTTP_CONNECT : K_HTTP_ABS;
    judge_target(x, c, c->req.host, c->req.port);
}

static void read_head(struct pd_net_proxy *x, struct conn *c)
{
    for (;;) {
        if (c->nin >= sizeof c->in - 4) {
            if (c->kind == K_SOCKS)
                refuse_socks(x, c, 0x01);
            else
                refuse_http(x, c, 431, "request head larger than 8 KiB");
            return;
        }
        ssize_t n = recv(c->fd, c->in + c->nin, sizeof c->in - 4 - c->nin, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n <= 0) {
            conn_free(x, c);
            return;
        }
        /* the first byte tells SOCKS5 from HTTP */
        if (c->nin == 0 && pd_socks_first_byte(c->in[0]))
            c->kind = K_SOCKS;
        c->nin += (size_t)n;
        enum state before = c->st;
        on_head(x, c);
        /* the connection may be gone (conn_free) or have moved on */
        if (before != HEAD)
            return;
        struct conn *still = x->conns;
        while (still && still != c)
            still = still->next;
        if (!still || c->st != HEAD)
            return;
    }
}

/* ---- DNS ------------------------------------------------------------------- */

/* May a question be answered now (the rate)? */
static bool rate_ok(struct pd_net_proxy *x, const struct sockaddr_storage *peer, bool tcp)
{
    long long t = now_ms();
    x->tokens += (double)(t - x->token_ms) * DNS_RATE / 1000.0;
    if (x->tokens > DNS_RATE)
        x->tokens = DNS_RATE;
    x->token_ms = t;
    if (x->tokens >= 1.0) {
        x->tokens -= 1.0;
        x->rate_said = false;
        return true;
    }
    if (!x->rate_said) {
        add_record(x, PD_REPORT_BLOCKED, "resolve", "(questions)", "allow_hosts", NULL,
                   "more than 200 DNS questions a second", peer, tcp);
        x->rate_said = true;
    }
    return false;
}

/* The reply to q (msg, len: the question as sent) for an allowed name
 * whose addresses are a (NULL: none). */
static size_t dns_reply(struct pd_net_proxy *x, const struct pd_dns_query *q, const uint8_t *msg,
                        size_t len, const struct pd_addrs *a, uint8_t *out, size_t outlen)
{
    int family = q->qtype == PD_DNS_A ? AF_INET : q->qtype == PD_DNS_AAAA ? AF_INET6 : 0;
    uint8_t addrs[PD_ADDRS_MAX * 16] = {0};
    size_t n = 0;
    (void)len;
    for (size_t k = 0; family && a && k < a->n; k++) {
        const struct sockaddr_storage *ss = &a->a[k];
        char why[160];
        if (ss->ss_family != family ||
            pd_addr_refused(x->p, (const struct sockaddr *)ss, why, sizeof why))
            continue;
        if (family == AF_INET)
            memcpy(addrs + 4 * n++, &((const struct sockaddr_in *)(const void *)ss)->sin_addr, 4);
        else
            memcpy(addrs + 16 * n++, &((const struct sockaddr_in6 *)(const void *)ss)->sin6_addr,
                   16);
    }
    /* fewer addresses when all do not fit (a UDP client's 512 bytes) */
    for (;;) {
        size_t r = pd_dns_answer(q, msg, family ? family : AF_UNSPEC, addrs, n, out, outlen);
        if (r || n == 0)
            return r;
        n--;
    }
}

/* Judge a parsed question. 1: the reply is in out (*outn); 0: an allowed
 * name waits for the resolver (id). */
static int dns_question(struct pd_net_proxy *x, const struct pd_dns_query *q, const uint8_t *msg,
                        size_t len, const struct sockaddr_storage *peer, bool tcp, uint64_t id,
                        uint8_t *out, size_t outlen, size_t *outn)
{
    if (!rate_ok(x, peer, tcp)) {
        *outn = pd_dns_rcode(q, msg, len, PD_DNS_REFUSED, out, outlen);
        return 1;
    }
    if (q->qclass != PD_DNS_CLASS_IN) {
        *outn = pd_dns_rcode(q, msg, len, PD_DNS_REFUSED, out, outlen);
        return 1;
    }
    if (!pd_host_resolvable(x->p, q->name)) {
        add_record(x, x->audit ? PD_REPORT_AUDIT : PD_REPORT_BLOCKED, "resolve",
                   q->name[0] ? q->name : ".", "allow_hosts", NULL, PD_REASON_HOST_NOT_ALLOWED,
                   peer, tcp);
        if (!x->audit || !q->name[0]) {
            *outn = pd_dns_rcode(q, msg, len, PD_DNS_NXDOMAIN, out, outlen);
            return 1;
        }
    }
    if (q->qtype != PD_DNS_A && q->qtype != PD_DNS_AAAA) {
        *outn = dns_reply(x, q, msg, len, NULL, out, outlen); /* NOERROR, no data */
        return 1;
    }
    struct pd_addrs a;
    int rc = pd_resolver_ask(x->res, q->name, id, &a);
    if (rc == 1) {
        *outn = dns_reply(x, q, msg, len, &a, out, outlen);
        return 1;
    }
    if (rc < 0) {
        *outn = pd_dns_rcode(q, msg, len, PD_DNS_SERVFAIL, out, outlen);
        return 1;
    }
    return 0;
}

static void dns_udp(struct pd_net_proxy *x, int fd)
{
    for (;;) {
        uint8_t msg[PD_DNS_MAX], out[PD_DNS_MAX];
        struct sockaddr_storage peer;
        socklen_t plen = sizeof peer;
        ssize_t n = recvfrom(fd, msg, sizeof msg, MSG_DONTWAIT, (struct sockaddr *)&peer, &plen);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return;
        struct pd_dns_query q;
        char why[64];
        size_t outn = 0;
        if (pd_dns_parse_query(msg, (size_t)n, &q, why, sizeof why) != 0) {
            outn = pd_dns_rcode(&q, msg, (size_t)n, PD_DNS_FORMERR, out, sizeof out);
        } else {
            uint64_t id = ++x->next_id;
            size_t cap = pd_dns_udp_size(msg, (size_t)n);
            if (dns_question(x, &q, msg, (size_t)n, &peer, false, id, out,
                             cap < sizeof out ? cap : sizeof out, &outn) == 0) {
                if (x->nudp == MAX_UDP_WAIT) {
                    outn = pd_dns_rcode(&q, msg, (size_t)n, PD_DNS_SERVFAIL, out, sizeof out);
                } else {
                    struct udp_wait *w = &x->udp[x->nudp++];
                    w->id = id;
                    w->fd = fd;
                    w->peer = peer;
                    w->peerlen = plen;
                    w->q = q;
                    memcpy(w->msg, msg, (size_t)n);
                    w->len = (size_t)n;
                    continue;
                }
            }
        }
        if (outn)
            (void)sendto(fd, out, outn, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&peer,
                         plen);
    }
}

/* A framed reply to the TCP client c. */
static void dns_tcp_reply(struct pd_net_proxy *x, struct conn *c, const uint8_t *out, size_t n)
{
    if (n == 0 || n + 2 > sizeof c->out) {
        conn_free(x, c);
        return;
    }
    c->out[0] = (char)(n >> 8);
    c->out[1] = (char)(n & 0xff);
    memcpy(c->out + 2, out, n);
    c->nout = n + 2;
    c->offout = 0;
    c->st = DNS_WRITE;
    update(x, c);
}

static void dns_tcp_read(struct pd_net_proxy *x, struct conn *c)
{
    for (;;) {
        size_t mlen;
        int f = pd_dns_tcp_frame(c->in, c->nin, &mlen);
        if (f < 0) {
            conn_free(x, c);
            return;
        }
        if (f == 1) {
            uint8_t out[PD_DNS_MAX];
            size_t outn = 0;
            char why[64];
            const uint8_t *msg = c->in + 2;
            if (pd_dns_parse_query(msg, mlen, &c->q, why, sizeof why) != 0) {
                outn = pd_dns_rcode(&c->q, msg, mlen, PD_DNS_FORMERR, out, sizeof out);
            } else if (dns_question(x, &c->q, msg, mlen, &c->peer, true, c->id, out, sizeof out,
                                    &outn) == 0) {
                c->st = DNS_RESOLVE;
                update(x, c);
                return;
            }
            dns_tcp_reply(x, c, out, outn);
            return;
        }
        ssize_t n = recv(c->fd, c->in + c->nin, sizeof c->in - c->nin, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            conn_free(x, c);
            return;
        }
        c->nin += (size_t)n;
    }
}

/* A written DNS reply: drop its question from the buffer, read the next. */
static void dns_tcp_next(struct pd_net_proxy *x, struct conn *c)
{
    size_t mlen;
    if (pd_dns_tcp_frame(c->in, c->nin, &mlen) == 1) {
        memmove(c->in, c->in + 2 + mlen, c->nin - 2 - mlen);
        c->nin -= 2 + mlen;
    }
    c->st = DNS_READ;
    c->deadline = now_ms() + HEAD_TIMEOUT;
    update(x, c);
    dns_tcp_read(x, c);
}

/* ---- the resolver's answers ------------------------------------------------ */

static void resolved(struct pd_net_proxy *x)
{
    uint64_t v;
    while (read(x->resfd, &v, sizeof v) > 0)
        ;
    uint64_t id;
    struct pd_addrs a;
    while (pd_resolver_take(x->res, &id, &a) == 1) {
        for (size_t k = 0; k < x->nudp; k++) {
            if (x->udp[k].id != id)
                continue;
            struct udp_wait *w = &x->udp[k];
            uint8_t out[PD_DNS_MAX];
            size_t cap = pd_dns_udp_size(w->msg, w->len);
            size_t n =
                dns_reply(x, &w->q, w->msg, w->len, &a, out, cap < sizeof out ? cap : sizeof out);
            if (n)
                (void)sendto(w->fd, out, n, MSG_DONTWAIT | MSG_NOSIGNAL,
                             (struct sockaddr *)&w->peer, w->peerlen);
            x->udp[k] = x->udp[--x->nudp];
            goto next;
        }
        for (struct conn *c = x->conns; c; c = c->next) {
            if (c->id != id)
                continue;
            if (c->st == RESOLVE) {
                c->addrs = a;
                c->next_addr = 0;
                dial_next(x, c);
            } else if (c->st == DNS_RESOLVE) {
                uint8_t out[PD_DNS_MAX];
                size_t mlen = 0;
                pd_dns_tcp_frame(c->in, c->nin, &mlen);
                size_t n = dns_reply(x, &c->q, c->in + 2, mlen, &a, out, sizeof out);
                dns_tcp_reply(x, c, out, n);
            }
            break;
        }
    next:;
    }
}

/* ---- the listeners ------------------------------------------------------------ */

static void take_listeners(struct pd_net_proxy *x)
{
    unsigned char mask = 0;
    union {
        char buf[CMSG_SPACE(sizeof(int) * PD_LISTEN_MAX)];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = {&mask, 1};
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
    ssize_t n = recvmsg(x->chan, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    /* one message only: the channel is done either way */
    epoll_ctl(x->ep, EPOLL_CTL_DEL, x->chan, NULL);
    int fds[PD_LISTEN_MAX];
    size_t nfds = 0;
    for (struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t j = 0; j < k && nfds < PD_LISTEN_MAX; j++)
                memcpy(&fds[nfds++], CMSG_DATA(c) + j * sizeof(int), sizeof(int));
        }
    static const unsigned bits[PD_LISTEN_MAX] = {PD_LISTEN_PROXY4,   PD_LISTEN_PROXY6,
                                                 PD_LISTEN_DNS_UDP,  PD_LISTEN_DNS_TCP,
                                                 PD_LISTEN_DNS_UDP1, PD_LISTEN_DNS_TCP1};
    size_t next = 0;
    for (size_t b = 0; b < PD_LISTEN_MAX && next < nfds; b++) {
        if (!(mask & bits[b]))
            continue;
        int fd = fds[next++];
        nonblock(fd);
        struct endpoint *e = &x->listeners[x->nlisteners++];
        e->fd = fd;
        e->events = (uint32_t)-1;
        e->tag = bits[b] & (PD_LISTEN_PROXY4 | PD_LISTEN_PROXY6)      ? T_LISTEN_PROXY
                 : bits[b] & (PD_LISTEN_DNS_UDP | PD_LISTEN_DNS_UDP1) ? T_DNS_UDP
                                                                      : T_LISTEN_DNS_TCP;
        watch(x, fd, e, EPOLLIN);
        if (!x->netns)
            x->netns = pd_net_peer_netns(fd);
    }
    for (; next < nfds; next++)
        close(fds[next]);
    x->served = x->nlisteners > 0;
}

static void accept_all(struct pd_net_proxy *x, struct endpoint *l)
{
    for (;;) {
        struct sockaddr_storage peer;
        socklen_t plen = sizeof peer;
        int fd = accept4(l->fd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        if (x->nconns >= MAX_CONNS) {
            close(fd);
            continue;
        }
        if (l->tag == T_LISTEN_PROXY)
            nodelay(fd);
        struct conn *c = conn_new(x, fd, l->tag == T_LISTEN_PROXY ? K_HTTP_CONNECT : K_DNS, &peer);
        if (!c) {
            close(fd);
            continue;
        }
        update(x, c);
    }
}

/* ---- the loop ------------------------------------------------------------------- */

static bool alive(struct pd_net_proxy *x, struct conn *c)
{
    for (struct conn *k = x->conns; k; k = k->next)
        if (k == c)
            return true;
    return false;
}

static void on_conn(struct pd_net_proxy *x, struct conn *c, bool upstream, uint32_t ev)
{
    if (ev & (EPOLLHUP | EPOLLERR)) {
        if (c->st == RELAY) {
            /* what it sent before is still read; then its EOF or error */
            if (upstream)
                c->hup_u = true;
            else
                c->hup_c = true;
        } else if (c->st == DIAL && upstream) {
            dial_next(x, c); /* refused: the next address */
            return;
        } else if (c->st != CLOSING && c->st != SEND) {
            conn_free(x, c);
            return;
        }
    }
    if (!upstream && (ev & EPOLLRDHUP) &&
        (c->st == RESOLVE || c->st == DNS_RESOLVE || c->st == DIAL)) {
        conn_free(x, c); /* the client gave up waiting */
        return;
    }
    switch (c->st) {
    case HEAD:
        read_head(x, c);
        break;
    case DIAL:
        if (upstream)
            dialled(x, c);
        break;
    case SEND:
        if (ev & (EPOLLHUP | EPOLLERR)) {
            conn_free(x, c);
            break;
        }
        send_queued(x, c);
        break;
    case RELAY:
        relay(x, c);
        break;
    case CLOSING:
        (void)flush(c->fd, c->out, c->nout, &c->offout); /* an error: HUP or ERR next */
        if (c->offout >= c->nout || (ev & (EPOLLERR | EPOLLHUP))) {
            /* the whole reply is out: no more from here, and what the
             * client still sent is read away, so that the close is a FIN
             * and not a reset that could cost it the reply */
            shutdown(c->fd, SHUT_WR);
            char sink[4096];
            for (int k = 0; k < 16 && recv(c->fd, sink, sizeof sink, MSG_DONTWAIT) > 0; k++)
                ;
            conn_free(x, c);
        }
        break;
    case DNS_READ:
        dns_tcp_read(x, c);
        break;
    case DNS_WRITE:
        (void)flush(c->fd, c->out, c->nout, &c->offout); /* an error: HUP or ERR next */
        if (ev & (EPOLLERR | EPOLLHUP))
            conn_free(x, c);
        else if (c->offout >= c->nout)
            dns_tcp_next(x, c);
        break;
    case RESOLVE:
    case DNS_RESOLVE:
        break;
    }
}

static void timeouts(struct pd_net_proxy *x)
{
    long long t = now_ms();
    for (struct conn *c = x->conns, *n; c; c = n) {
        n = c->next;
        if (c->st == RELAY || c->deadline > t)
            continue;
        if (c->st == DIAL) {
            c->timed_out = true;
            dial_next(x, c); /* this address did not answer: the next */
        } else if (c->st == HEAD && c->kind != K_DNS)
            refuse(x, c, 400, 0x01, "no complete request head within 10 s");
        else
            conn_free(x, c);
    }
}

static int next_timeout(const struct pd_net_proxy *x)
{
    long long t = now_ms(), soon = -1;
    for (const struct conn *c = x->conns; c; c = c->next)
        if (c->st != RELAY && (soon < 0 || c->deadline < soon))
            soon = c->deadline;
    if (soon < 0)
        return -1;
    return soon <= t ? 0 : (int)(soon - t > 60000 ? 60000 : soon - t);
}

static void *loop(void *arg)
{
    struct pd_net_proxy *x = arg;
    struct epoll_event evs[64];
    for (;;) {
        int n = epoll_wait(x->ep, evs, 64, next_timeout(x));
        if (n < 0 && errno != EINTR)
            break;
        bool stop = false;
        for (int k = 0; k < n; k++) {
            struct endpoint *e = evs[k].data.ptr;
            switch (e->tag) {
            case T_STOP:
                stop = true;
                break;
            case T_CHAN:
                take_listeners(x);
                break;
            case T_RESOLVED:
                resolved(x);
                break;
            case T_LISTEN_PROXY:
            case T_LISTEN_DNS_TCP:
                accept_all(x, e);
                break;
            case T_DNS_UDP:
                dns_udp(x, e->fd);
                break;
            case T_CLIENT:
            case T_UPSTREAM:
                /* an earlier event of this round may have closed it (its
                 * memory stays until the round is over: release_dead) */
                if (alive(x, e->c))
                    on_conn(x, e->c, e->tag == T_UPSTREAM, evs[k].events);
                break;
            }
        }
        release_dead(x);
        if (stop)
            break;
        timeouts(x);
        release_dead(x);
    }
    return NULL;
}

/* ---- the interface --------------------------------------------------------------- */

/* Each tunnel holds six descriptors (two sockets, two pipes): the
 * launcher's soft limit goes up to its hard one (at most 65536), which
 * only the launcher has; the run's own limit is the policy's
 * (max_open_files), set in the child. */
static void raise_nofile(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) != 0)
        return;
    rlim_t want = r.rlim_max == RLIM_INFINITY || r.rlim_max > 65536 ? 65536 : r.rlim_max;
    if (r.rlim_cur < want) {
        r.rlim_cur = want;
        (void)setrlimit(RLIMIT_NOFILE, &r);
    }
}

struct pd_net_proxy *pd_net_proxy_start(const struct pd_policy *p, int chan, bool audit, char *err,
                                        size_t errlen)
{
    struct pd_net_proxy *x = calloc(1, sizeof *x);
    if (!x) {
        snprintf(err, errlen, "allow_hosts: out of memory");
        return NULL;
    }
    x->p = p;
    x->audit = audit;
    x->chan = chan;
    x->stopfd = x->resfd = x->ep = -1;
    x->tokens = DNS_RATE;
    x->token_ms = now_ms();
    pthread_mutex_init(&x->mu, NULL);
    raise_nofile();
    x->ep = epoll_create1(EPOLL_CLOEXEC);
    x->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    x->resfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (x->ep < 0 || x->stopfd < 0 || x->resfd < 0 || !(x->res = pd_resolver_new(x->resfd))) {
        snprintf(err, errlen, "allow_hosts: start the proxy: %s", strerror(errno));
        pd_net_proxy_free(x);
        return NULL;
    }
    x->ep_chan = (struct endpoint){.tag = T_CHAN, .events = (uint32_t)-1};
    x->ep_stop = (struct endpoint){.tag = T_STOP, .events = (uint32_t)-1};
    x->ep_res = (struct endpoint){.tag = T_RESOLVED, .events = (uint32_t)-1};
    watch(x, chan, &x->ep_chan, EPOLLIN);
    watch(x, x->stopfd, &x->ep_stop, EPOLLIN);
    watch(x, x->resfd, &x->ep_res, EPOLLIN);
    if (pthread_create(&x->thread, NULL, loop, x) != 0) {
        snprintf(err, errlen, "allow_hosts: start the proxy thread: %s", strerror(errno));
        pd_net_proxy_free(x);
        return NULL;
    }
    x->running = true;
    return x;
}

void pd_net_proxy_stop(struct pd_net_proxy *x)
{
    if (!x || !x->running)
        return;
    uint64_t one = 1;
    ssize_t n = write(x->stopfd, &one, sizeof one);
    (void)n;
    pthread_join(x->thread, NULL);
    x->running = false;
    while (x->conns)
        conn_free(x, x->conns);
    release_dead(x);
    for (size_t k = 0; k < x->nlisteners; k++)
        close(x->listeners[k].fd);
    x->nlisteners = 0;
    if (x->res) {
        x->lookups = pd_resolver_lookups(x->res);
        pd_resolver_free(x->res);
        x->res = NULL;
    }
}

void pd_net_proxy_records(const struct pd_net_proxy *x,
                          void (*fn)(const struct pd_report *r, void *user), void *user)
{
    for (size_t k = 0; x && k < x->nrecs; k++) {
        const struct record *r = &x->recs[k];
        struct pd_report rep = {.kind = r->kind,
                                .op = r->op,
                                .path = r->path,
                                .resolved = "",
                                .key = r->key,
                                .pattern = r->pattern,
                                .reason = r->reason,
                                .pid = r->pid,
                                .program = r->program};
        fn(&rep, user);
    }
}

bool pd_net_proxy_served(const struct pd_net_proxy *x)
{
    return x && x->served;
}

size_t pd_net_proxy_lookups(const struct pd_net_proxy *x)
{
    return x ? x->lookups : 0;
}

void pd_net_proxy_free(struct pd_net_proxy *x)
{
    if (!x)
        return;
    pd_net_proxy_stop(x);
    if (x->res)
        pd_resolver_free(x->res);
    if (x->ep >= 0)
        close(x->ep);
    if (x->stopfd >= 0)
        close(x->stopfd);
    if (x->resfd >= 0)
        close(x->resfd);
    pthread_mutex_destroy(&x->mu);
    free(x->recs);
    free(x);
}
