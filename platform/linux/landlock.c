/* platform/linux/landlock.c - the Landlock layer: one ruleset that handles
 * every right the kernel's ABI offers, so that whatever no rule grants is
 * denied; path rules from the spec's lists; TCP bind/connect handled
 * with no port rules when the network is off and no network namespace
 * holds it; signal and abstract UNIX
 * socket scopes so that the command cannot reach processes outside its
 * sandbox (the launcher among them). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "platform/linux/backend.h"
#include "platform/linux/landlock_compat.h"

/* clang-format off */
#define FS_ABI1 (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
                 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | \
                 LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
                 LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | \
                 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | \
                 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | \
                 LANDLOCK_ACCESS_FS_MAKE_SYM)

/* What each ABI added, oldest first. */
static const struct {
    int abi;
    uint64_t fs, net, scopes;
} abi_rights[] = {
    {1, FS_ABI1, 0, 0},
    {2, LANDLOCK_ACCESS_FS_REFER, 0, 0},
    {3, LANDLOCK_ACCESS_FS_TRUNCATE, 0, 0},
    {4, 0, LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP, 0},
    {5, LANDLOCK_ACCESS_FS_IOCTL_DEV, 0, 0},
    {6, 0, 0, LANDLOCK_SCOPE_SIGNAL | LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET},
    /* 7: audit logging flags only. */
};

/* Rights that apply to a file that is not a directory: the kernel refuses
 * (EINVAL) a rule that grants a directory right on a file. */
#define FS_FILE (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
                 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
                 LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* What each list grants, before masking with the handled set. */
#define GRANT_EXEC  (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | \
                     LANDLOCK_ACCESS_FS_READ_DIR)
#define GRANT_READ  (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define GRANT_WRITE UINT64_MAX
#define GRANT_DEV   (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
                     LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_IOCTL_DEV)
/* clang-format on */

int pd_landlock_abi(char *reason, size_t reasonlen)
{
    if (reasonlen > 0)
        reason[0] = '\0';
    int abi = pd_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi > 0)
        return abi;
    if (abi == 0)
        pd_errf(reason, reasonlen, "kernel reports Landlock ABI 0");
    else if (errno == ENOSYS)
        pd_errf(reason, reasonlen, "kernel built without Landlock");
    else if (errno == EOPNOTSUPP)
        pd_errf(reason, reasonlen, "Landlock disabled at boot");
    else
        pd_errf(reason, reasonlen, "landlock_create_ruleset: %s", strerror(errno));
    return 0;
}

uint64_t pd_landlock_handled_fs(int abi)
{
    uint64_t r = 0;
    for (size_t i = 0; i < sizeof abi_rights / sizeof abi_rights[0]; i++)
        if (abi_rights[i].abi <= abi)
            r |= abi_rights[i].fs;
    return r;
}

uint64_t pd_landlock_handled_net(int abi)
{
    uint64_t r = 0;
    for (size_t i = 0; i < sizeof abi_rights / sizeof abi_rights[0]; i++)
        if (abi_rights[i].abi <= abi)
            r |= abi_rights[i].net;
    return r;
}

uint64_t pd_landlock_handled_scopes(int abi)
{
    uint64_t r = 0;
    for (size_t i = 0; i < sizeof abi_rights / sizeof abi_rights[0]; i++)
        if (abi_rights[i].abi <= abi)
            r |= abi_rights[i].scopes;
    return r;
}

/* Grant `grant` (masked) beneath each path of list. The rule is first
 * tried as given: a directory takes it. The kernel refuses directory
 * rights on any other file with EINVAL (the rights are a subset of the
 * handled ones, and flags are 0, so that is its only cause here), and the
 * rule is added again with the rights a file can have. This spares a stat
 * per directory, the common case. */
static int add_paths(int ruleset, const struct pd_path_list *list, uint64_t grant, uint64_t handled,
                     char *err, size_t errlen)
{
    for (size_t i = 0; i < list->n; i++) {
        const char *path = list->v[i];
        if (path == NULL || path[0] != '/') {
            pd_errf(err, errlen, "landlock: path is not absolute: %s", path ? path : "(null)");
            return -1;
        }
        int fd = open(path, O_PATH | O_CLOEXEC);
        if (fd < 0) {
            /* Nothing there, nothing to grant. */
            if (errno == ENOENT || errno == ENOTDIR)
                continue;
            pd_errf(err, errlen, "landlock: open %s: %s", path, strerror(errno));
            return -1;
        }
        struct pd_landlock_path_beneath_attr rule = {
            .allowed_access = grant & handled,
            .parent_fd = fd,
        };
        int rc = 0;
        if (rule.allowed_access != 0)
            rc = pd_landlock_add_rule(ruleset, PD_LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
        if (rc != 0 && errno == EINVAL && (rule.allowed_access & ~(uint64_t)FS_FILE) != 0) {
            rule.allowed_access &= FS_FILE;
            rc = rule.allowed_access != 0
                     ? pd_landlock_add_rule(ruleset, PD_LANDLOCK_RULE_PATH_BENEATH, &rule, 0)
                     : 0;
        }
        int saved = errno;
        close(fd);
        if (rc != 0) {
            pd_errf(err, errlen, "landlock: add rule %s: %s", path, strerror(saved));
            return -1;
        }
    }
    return 0;
}

int pd_landlock_apply(const struct pd_sandbox_spec *spec, const struct pd_ns_report *ns, int abi,
                      char *err, size_t errlen)
{
    if (abi > PD_LANDLOCK_ABI_KNOWN)
        abi = PD_LANDLOCK_ABI_KNOWN;
    const bool private_tmp = ns && ns->state == PD_NS_ACTIVE;
    const bool net_ns = ns && ns->state == PD_NS_ACTIVE && ns->net_ns;
    const struct pd_landlock_ruleset_attr attr = {
        .handled_access_fs = pd_landlock_handled_fs(abi),
        /* Handled with no port rule: every TCP bind and connect is denied.
         * A network namespace with only lo holds the network instead, and
         * servers on 127.0.0.1 inside the run keep working. */
        .handled_access_net = spec->allow_network || net_ns ? 0 : pd_landlock_handled_net(abi),
        .scoped = pd_landlock_handled_scopes(abi),
    };
    int ruleset = pd_landlock_create_ruleset(&attr, sizeof attr, 0);
    if (ruleset < 0) {
        pd_errf(err, errlen, "landlock: create ruleset: %s", strerror(errno));
        return -1;
    }
    const uint64_t fs = attr.handled_access_fs;
    /* The kernel floor of allow_binaries: nothing the run writes may be
     * executed, unless exec_paths says so. */
    const uint64_t write =
        spec->no_exec_writes ? GRANT_WRITE & ~(uint64_t)LANDLOCK_ACCESS_FS_EXECUTE : GRANT_WRITE;
    if (add_paths(ruleset, &spec->exec_paths, GRANT_EXEC, fs, err, errlen) < 0 ||
        add_paths(ruleset, &spec->read_paths, GRANT_READ, fs, err, errlen) < 0 ||
        add_paths(ruleset, &spec->write_paths, write, fs, err, errlen) < 0 ||
        add_paths(ruleset, &spec->dev_paths, GRANT_DEV, fs, err, errlen) < 0 ||
        add_paths(ruleset, &spec->list_paths, LANDLOCK_ACCESS_FS_READ_DIR, fs, err, errlen) < 0)
        goto fail;
    /* The run's own /tmp (a fresh tmpfs): writable like the temp home. What
     * was bound back beneath it keeps its mount's read-only flag. So is its
     * own /dev/shm where the host's holds the run directory: the host's is
     * then never writable (without the namespace, only the temp home in it). */
    if (private_tmp) {
        const char *tmp[] = {"/tmp", "/dev/shm"};
        const struct pd_path_list l = {tmp, spec->shm_private ? 2 : 1};
        if (add_paths(ruleset, &l, write, fs, err, errlen) < 0)
            goto fail;
    }
    /* Required by landlock_restrict_self without CAP_SYS_ADMIN, and what keeps
     * set-user-ID programs from running with more than the sandbox allows. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        pd_errf(err, errlen, "no_new_privs: prctl: %s", strerror(errno));
        goto fail;
    }
    if (pd_landlock_restrict_self(ruleset, 0) != 0) {
        pd_errf(err, errlen, "landlock: restrict self: %s", strerror(errno));
        goto fail;
    }
    close(ruleset);
    return 0;
fail:
    close(ruleset);
    return -1;
}
