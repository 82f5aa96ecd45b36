/* platform/linux/landlock_compat.h - the Landlock UAPI up to ABI 7.
 *
 * Debian 12's <linux/landlock.h> stops at ABI 2, so everything newer is
 * declared here, once, from the kernel's documented UAPI
 * (include/uapi/linux/landlock.h). Macros are guarded so that a newer system
 * header wins; structs and rule types carry a pd_ prefix because a struct or
 * an enum constant cannot be guarded. The three system call numbers are the
 * same on every architecture. */
#ifndef PALDRON_PLATFORM_LINUX_LANDLOCK_COMPAT_H
#define PALDRON_PLATFORM_LINUX_LANDLOCK_COMPAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<linux/landlock.h>)
#include <linux/landlock.h>
#endif
#endif

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

/* Argument of landlock_create_ruleset(). A kernel that knows fewer fields
 * accepts the larger struct as long as the fields it does not know are 0. */
struct pd_landlock_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4 */
    uint64_t scoped;             /* ABI 6 */
};

/* Argument of landlock_add_rule(PD_LANDLOCK_RULE_PATH_BENEATH). Packed like
 * the kernel's: no trailing padding. */
struct pd_landlock_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

/* Argument of landlock_add_rule(PD_LANDLOCK_RULE_NET_PORT), ABI 4. */
struct pd_landlock_net_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};

/* enum landlock_rule_type */
#define PD_LANDLOCK_RULE_PATH_BENEATH 1
#define PD_LANDLOCK_RULE_NET_PORT     2 /* ABI 4 */

/* clang-format off */

/* landlock_create_ruleset() flags */
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef LANDLOCK_CREATE_RULESET_ERRATA
#define LANDLOCK_CREATE_RULESET_ERRATA  (1U << 1)
#endif

/* landlock_restrict_self() flags, ABI 7: audit logging only. Paldron passes
 * none: the defaults (log until execve, not after) suit a launcher. */
#ifndef LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF
#define LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF  (1U << 0)
#endif
#ifndef LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON
#define LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON    (1U << 1)
#endif
#ifndef LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF
#define LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF (1U << 2)
#endif

/* File system access rights, ABI 1 unless noted. */
#ifndef LANDLOCK_ACCESS_FS_EXECUTE
#define LANDLOCK_ACCESS_FS_EXECUTE     (1ULL << 0)
#define LANDLOCK_ACCESS_FS_WRITE_FILE  (1ULL << 1)
#define LANDLOCK_ACCESS_FS_READ_FILE   (1ULL << 2)
#define LANDLOCK_ACCESS_FS_READ_DIR    (1ULL << 3)
#define LANDLOCK_ACCESS_FS_REMOVE_DIR  (1ULL << 4)
#define LANDLOCK_ACCESS_FS_REMOVE_FILE (1ULL << 5)
#define LANDLOCK_ACCESS_FS_MAKE_CHAR   (1ULL << 6)
#define LANDLOCK_ACCESS_FS_MAKE_DIR    (1ULL << 7)
#define LANDLOCK_ACCESS_FS_MAKE_REG    (1ULL << 8)
#define LANDLOCK_ACCESS_FS_MAKE_SOCK   (1ULL << 9)
#define LANDLOCK_ACCESS_FS_MAKE_FIFO   (1ULL << 10)
#define LANDLOCK_ACCESS_FS_MAKE_BLOCK  (1ULL << 11)
#define LANDLOCK_ACCESS_FS_MAKE_SYM    (1ULL << 12)
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER       (1ULL << 13) /* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE    (1ULL << 14) /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV   (1ULL << 15) /* ABI 5 */
#endif

/* Network access rights, ABI 4. */
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP    (1ULL << 0)
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif

/* IPC scopes, ABI 6. */
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL               (1ULL << 1)
#endif

/* clang-format on */

static inline int pd_landlock_create_ruleset(const struct pd_landlock_ruleset_attr *attr,
                                             size_t size, uint32_t flags)
{
    return (int)syscall(__NR_landlock_create_ruleset, attr, size, flags);
}

static inline int pd_landlock_add_rule(int ruleset_fd, int rule_type, const void *rule_attr,
                                       uint32_t flags)
{
    return (int)syscall(__NR_landlock_add_rule, ruleset_fd, rule_type, rule_attr, flags);
}

static inline int pd_landlock_restrict_self(int ruleset_fd, uint32_t flags)
{
    return (int)syscall(__NR_landlock_restrict_self, ruleset_fd, flags);
}

#endif
