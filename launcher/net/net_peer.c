/* launcher/net/net_peer.c - see net_peer.h. */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/net/net_peer.h"

unsigned long pd_net_peer_netns(int sock)
{
    int ns = ioctl(sock, SIOCGSKNS);
    if (ns < 0)
        return 0;
    struct stat st;
    unsigned long ino = fstat(ns, &st) == 0 ? (unsigned long)st.st_ino : 0;
    close(ns);
    return ino;
}

static bool numeric(const char *s)
{
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

static bool in_netns(const char *pid, unsigned long netns)
{
    char path[64], link[64];
    snprintf(path, sizeof path, "/proc/%s/ns/net", pid);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0)
        return false;
    link[n] = '\0';
    char want[40];
    snprintf(want, sizeof want, "net:[%lu]", netns);
    return strcmp(link, want) == 0;
}

/* The hex form /proc/net/tcp{,6} gives the local address of peer:
 * "0100007F:1F90" (IPv4: the address as a host-order word), or the four
 * words of an IPv6 address the same way. */
static void hex_addr(const struct sockaddr_storage *ss, char *out, size_t len)
{
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)ss;
        snprintf(out, len, "%08X:%04X", (unsigned)in->sin_addr.s_addr,
                 (unsigned)ntohs(in->sin_port));
        return;
    }
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)ss;
    uint32_t w[4];
    memcpy(w, &in6->sin6_addr, sizeof w);
    snprintf(out, len, "%08X%08X%08X%08X:%04X", (unsigned)w[0], (unsigned)w[1], (unsigned)w[2],
             (unsigned)w[3], (unsigned)ntohs(in6->sin6_port));
}

/* The inode of the socket whose local address is peer, from a process of
 * the namespace; 0 if none. A UDP socket that sent without binding (a
 * plain sendto) is listed with the wildcard address and its port: that
 * is the match when no socket has the exact address. */
static unsigned long socket_inode(const char *pid, bool tcp, const struct sockaddr_storage *peer)
{
    char path[64], want[64], line[512];
    snprintf(path, sizeof path, "/proc/%s/net/%s%s", pid, tcp ? "tcp" : "udp",
             peer->ss_family == AF_INET6 ? "6" : "");
    hex_addr(peer, want, sizeof want);
    const char *port = strrchr(want, ':');
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    unsigned long ino = 0, wild = 0;
    while (!ino && fgets(line, sizeof line, f)) {
        char local[64];
        unsigned long inode;
        /* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
        // NOLINTNEXTLINE(cert-err34-c): the kernel's table; an inode fits an unsigned long
        if (sscanf(line, " %*s %63s %*s %*s %*s %*s %*s %*s %*s %lu", local, &inode) != 2)
            continue;
        if (strcasecmp(local, want) == 0) {
            ino = inode;
        } else if (!tcp && !wild && port) {
            const char *lp = strrchr(local, ':');
            if (lp && strcasecmp(lp, port) == 0 && strspn(local, "0") == (size_t)(lp - local))
                wild = inode;
        }
    }
    fclose(f);
    return ino ? ino : wild;
}

static bool holds(const char *pid, unsigned long inode)
{
    char dirpath[64], want[48];
    snprintf(dirpath, sizeof dirpath, "/proc/%s/fd", pid);
    snprintf(want, sizeof want, "socket:[%lu]", inode);
    DIR *d = opendir(dirpath);
    if (!d)
        return false;
    bool hit = false;
    for (struct dirent *e; !hit && (e = readdir(d));) {
        char p[300], link[64];
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", dirpath, e->d_name);
        ssize_t n = readlink(p, link, sizeof link - 1);
        if (n > 0) {
            link[n] = '\0';
            hit = strcmp(link, want) == 0;
        }
    }
    closedir(d);
    return hit;
}

void pd_net_peer_program(unsigned long netns, bool tcp, const struct sockaddr_storage *peer,
                         char *out, size_t outlen, long *pid)
{
    snprintf(out, outlen, "?");
    *pid = 0;
    if (!netns)
        return;
    DIR *d = opendir("/proc");
    if (!d)
        return;
    unsigned long inode = 0;
    long found = 0;
    for (struct dirent *e; !found && (e = readdir(d));) {
        if (!numeric(e->d_name) || !in_netns(e->d_name, netns))
            continue;
        if (!inode && !(inode = socket_inode(e->d_name, tcp, peer)))
            break; /* the socket is gone from the namespace */
        if (holds(e->d_name, inode))
            found = strtol(e->d_name, NULL, 10);
    }
    closedir(d);
    if (!found)
        return;
    char path[64], comm[64];
    snprintf(path, sizeof path, "/proc/%ld/comm", found);
    FILE *f = fopen(path, "re");
    if (f && fgets(comm, sizeof comm, f)) {
        comm[strcspn(comm, "\n")] = '\0';
        snprintf(out, outlen, "%s", comm[0] ? comm : "?");
        *pid = found;
    }
    if (f)
        fclose(f);
}
