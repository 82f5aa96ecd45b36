/* preload/wrap_ids.c - fchown and the set*id/setgroups family: not gated
 * (the descriptor of fchown was judged when it was opened; the kernel
 * decides who may become whom), but made to fail as they fail bare.
 *
 * The run's user namespace maps only the user's own uid and gid. The kernel
 * turns every id into its namespace's view before it checks permission, so
 * chown(f, 65534, -1) or setuid(65534) fails with EINVAL (no such id here)
 * where the same unprivileged user gets EPERM bare, and programs test for
 * EPERM (CPython's test_os and test_subprocess, install -o, package
 * managers probing whether they may chown). So when the real call fails
 * with EINVAL and an id it names is unmapped here, the error becomes EPERM.
 * Nothing else changes: -1 where it means "unchanged" (chown, setre*id,
 * setres*id) is no id; -1 where it is an id (setuid(-1), setgroups) and bad
 * flags or sizes are invalid bare too and keep EINVAL; a call the kernel
 * allowed is untouched. glibc's set*id in a threaded process broadcast the
 * change to every thread (nptl setxid) inside the real function, which the
 * wrapper calls as is.
 *
 * Everything here may run in a fork or vfork child and from a signal
 * handler: raw system calls and the stack only. */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>

#include "preload/ids.h"
#include "preload/judge.h"

#define NO_ID              UINT32_MAX /* (uid_t)-1 */
#define MAP_MAX_BYTES      4096
#define MAP_MAX_LINES      128
#define KERNEL_NGROUPS_MAX 65536 /* the kernel's limit, above it EINVAL */

/* A user namespace's id map (/proc/self/uid_map or gid_map): the inside
 * ranges. known is false when it could not be read whole. */
struct idmap {
    bool known;
    size_t n;
    uint32_t first[MAP_MAX_LINES];
    uint64_t end[MAP_MAX_LINES];
};

static bool next_number(const char **p, const char *end, uint64_t *v)
{
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (s == end || *s < '0' || *s > '9')
        return false;
    uint64_t x = 0;
    for (; s < end && *s >= '0' && *s <= '9'; s++)
        x = x * 10 + (uint64_t)(*s - '0');
    *v = x;
    *p = s;
    return true;
}

static void load_map(struct idmap *m, const char *path)
{
    char buf[MAP_MAX_BYTES];
    size_t len = 0;
    m->known = false;
    m->n = 0;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    for (;;) {
        long r = syscall(SYS_read, fd, buf + len, sizeof buf - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
        if (len == sizeof buf)
            break;
    }
    syscall(SYS_close, fd);
    if (len == 0 || len == sizeof buf) /* unreadable, or longer than we parse */
        return;
    const char *p = buf, *end = buf + len;
    while (p < end && m->n < MAP_MAX_LINES) {
        uint64_t inside, outside, count;
        if (!next_number(&p, end, &inside) || !next_number(&p, end, &outside) ||
            !next_number(&p, end, &count))
            return;
        m->first[m->n] = (uint32_t)inside;
        m->end[m->n] = inside + count;
        m->n++;
        while (p < end && *p != '\n')
            p++;
        if (p < end)
            p++;
    }
    m->known = p == end;
}

/* Is id unmapped here? When the map could not be read (no descriptor
 * left), only our own ids count as mapped: the run's namespace maps
 * nothing else. */
static bool unmapped(const struct idmap *m, uint32_t id, bool gid)
{
    if (m->known) {
        for (size_t i = 0; i < m->n; i++)
            if (id >= m->first[i] && id < m->end[i])
                return false;
        return true;
    }
    unsigned int r, e, s;
    if (gid ? getresgid(&r, &e, &s) != 0 : getresuid(&r, &e, &s) != 0)
        return false;
    return id != r && id != e && id != s;
}

/* Does the map leave some id out (it does in the run's namespace, not in
 * the initial one)? */
static bool partial(const struct idmap *m)
{
    return !m->known || m->n != 1 || m->first[0] != 0 || m->end[0] < UINT32_MAX;
}

/* rc and errno of a call that named the n ids (NO_ID entries: "unchanged"
 * if keep_is_sentinel, else an invalid id): EPERM for an EINVAL that an
 * unmapped id explains, otherwise as they are. */
static int as_bare(int rc, bool gid, const uint32_t *ids, size_t n, bool keep_is_sentinel)
{
    if (rc != -1 || errno != EINVAL)
        return rc;
    bool explained = false;
    for (size_t i = 0; i < n; i++)
        if (ids[i] == NO_ID && !keep_is_sentinel)
            return rc; /* EINVAL bare too */
    struct idmap m;
    load_map(&m, gid ? "/proc/self/gid_map" : "/proc/self/uid_map");
    for (size_t i = 0; i < n && !explained; i++)
        explained = ids[i] != NO_ID && unmapped(&m, ids[i], gid);
    errno = explained ? EPERM : EINVAL;
    return rc;
}

int pd_chown_as_bare(int rc, uid_t owner, gid_t group, int flags)
{
    /* the kernel refuses unknown flags before it looks at the ids */
    if (rc != -1 || errno != EINVAL || (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)))
        return rc;
    struct idmap m;
    bool explained = false;
    if (owner != NO_ID) {
        load_map(&m, "/proc/self/uid_map");
        explained = unmapped(&m, owner, false);
    }
    if (!explained && group != NO_ID) {
        load_map(&m, "/proc/self/gid_map");
        explained = unmapped(&m, group, true);
    }
    errno = explained ? EPERM : EINVAL;
    return rc;
}

int pdw_fchown(int fd, uid_t owner, gid_t group)
{
    PD_NEED(fchown, -1);
    return pd_chown_as_bare(pd_real.fchown(fd, owner, group), owner, group, 0);
}

int pdw_setuid(uid_t uid)
{
    PD_NEED(setuid, -1);
    uint32_t ids[] = {uid};
    return as_bare(pd_real.setuid(uid), false, ids, 1, false);
}

int pdw_setgid(gid_t gid)
{
    PD_NEED(setgid, -1);
    uint32_t ids[] = {gid};
    return as_bare(pd_real.setgid(gid), true, ids, 1, false);
}

int pdw_setreuid(uid_t ruid, uid_t euid)
{
    PD_NEED(setreuid, -1);
    uint32_t ids[] = {ruid, euid};
    return as_bare(pd_real.setreuid(ruid, euid), false, ids, 2, true);
}

int pdw_setregid(gid_t rgid, gid_t egid)
{
    PD_NEED(setregid, -1);
    uint32_t ids[] = {rgid, egid};
    return as_bare(pd_real.setregid(rgid, egid), true, ids, 2, true);
}

int pdw_setresuid(uid_t ruid, uid_t euid, uid_t suid)
{
    PD_NEED(setresuid, -1);
    uint32_t ids[] = {ruid, euid, suid};
    return as_bare(pd_real.setresuid(ruid, euid, suid), false, ids, 3, true);
}

int pdw_setresgid(gid_t rgid, gid_t egid, gid_t sgid)
{
    PD_NEED(setresgid, -1);
    uint32_t ids[] = {rgid, egid, sgid};
    return as_bare(pd_real.setresgid(rgid, egid, sgid), true, ids, 3, true);
}

int pdw_setgroups(size_t size, const gid_t *list)
{
    PD_NEED(setgroups, -1);
    int rc = pd_real.setgroups(size, list);
    if (rc != -1 || errno != EINVAL || size > KERNEL_NGROUPS_MAX || (size && !list))
        return rc;
    bool explained = false;
    struct idmap m;
    load_map(&m, "/proc/self/gid_map");
    for (size_t i = 0; i < size; i++) {
        if (list[i] == NO_ID) {
            errno = EINVAL; /* invalid bare too */
            return rc;
        }
        explained = explained || unmapped(&m, list[i], true);
    }
    errno = explained ? EPERM : EINVAL;
    return rc;
}

/* The groups come from the group database, where bare each is a valid id:
 * an EINVAL in a namespace that leaves ids out is theirs. */
int pdw_initgroups(const char *user, gid_t group)
{
    PD_NEED(initgroups, -1);
    int rc = pd_real.initgroups(user, group);
    if (rc != -1 || errno != EINVAL)
        return rc;
    struct idmap m;
    load_map(&m, "/proc/self/gid_map");
    errno = partial(&m) ? EPERM : EINVAL;
    return rc;
}
