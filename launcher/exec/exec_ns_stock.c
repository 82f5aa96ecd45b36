/* launcher/exec/exec_ns_stock.c - the run's user, IPC and network
 * namespaces taken from the stock the last run left (platform/linux/
 * ns_stock.c), or made while the run is prepared (ns_early.c) when there is
 * none; and, once the run is over, the stock for the next.
 *
 * The stock is named in <cache base>/namespaces[-net].stock (one for runs
 * without the network, one for runs with it). A launcher takes it by
 * locking the file (flock), so that two runs never take the same
 * namespaces, and holds the lock until the process it names is gone; it
 * believes the file only of a process that is still a paldron started at
 * that time (launcher/kept.c), confined as this launcher is (the same
 * no_new_privs and seccomp filters: namespaces made where this launcher
 * could not make them - outside a container that refuses them, say - are
 * not taken), whose namespaces are new ones of this user's
 * (pd_ns_stock_adopt). It ends that process once its child has started
 * (exec_supervise.c). Anything else and the run makes its own, as it always
 * did. The next kept process writes its file over the spent one. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <stdio.h>
#include <unistd.h>

#include "launcher/exec/exec.h"
#include "launcher/launcher.h"

unsigned pd_ns_stock_keep_sec = 15;

/* One run per launcher: what it took, or found spent, until its end. */
static struct {
    int lock;   /* the stock file, locked (flock) from its taking to the run's end */
    int pidfd;  /* the kept process whose namespaces were taken */
    bool ended; /* it was sent SIGKILL */
} taken = {-1, -1, false};

static const char *stock_name(bool net)
{
    return net ? "namespaces-net.stock" : "namespaces.stock";
}

static int open_base(void)
{
    char base[PD_PATH_MAX];
    if (pd_cache_base(base, sizeof base, NULL, 0) != 0)
        return -1;
    return pd_cache_base_open(base);
}

static bool take_stock(struct pd_ns_early *e, bool net)
{
    int base = open_base();
    if (base < 0)
        return false;
    /* taken by whoever locks it first; held until the kept process is gone
     * (release_taken), and spent from then on: the next kept process writes
     * its file over it */
    int fd = openat(base, stock_name(net), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    close(base);
    if (fd < 0)
        return false;
    pid_t pid = 0;
    unsigned long long start = 0;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 || !pd_kept_parse_fd(fd, &pid, &start)) {
        close(fd);
        return false;
    }
    taken.lock = fd; /* whatever follows, the file is spent */
    int pidfd = pd_kept_pidfd(pid, start);
    if (pidfd < 0)
        return false;
    bool ok = pd_proc_same_confinement(pid) && pd_ns_stock_adopt(e, pid, net);
    /* still that process now that its namespaces are open */
    if (ok && !pd_kept_signal(pidfd, 0)) {
        pd_ns_early_close(e);
        ok = false;
    }
    if (!ok) {
        close(pidfd);
        return false;
    }
    taken.pidfd = pidfd;
    return true;
}

void pd_exec_ns_begin(struct pd_exec_plan *p, bool net)
{
    if (pd_ns_early_built() && take_stock(&p->early, net))
        return;
    pd_ns_early_start(&p->early, net);
}

void pd_exec_ns_end_taken(void)
{
    if (taken.pidfd < 0 || taken.ended)
        return;
    (void)pd_kept_signal(taken.pidfd, SIGKILL);
    taken.ended = true;
}

/* The lock goes only once the process is gone (its exit is what a pidfd
 * reports readable): until then another launcher that locked the file
 * could still open the namespaces. Killed when the child started, it is
 * gone long before; a run that failed earlier waits for it here. */
static void release_taken(void)
{
    pd_exec_ns_end_taken();
    if (taken.pidfd >= 0) {
        struct pollfd pf = {.fd = taken.pidfd, .events = POLLIN};
        while (poll(&pf, 1, 1000) < 0 && errno == EINTR)
            ;
        close(taken.pidfd);
        taken.pidfd = -1;
    }
}

bool pd_exec_ns_stock_due(const struct pd_exec_plan *p)
{
    const struct pd_ns_report *r = p->ns.report;
    return pd_ns_early_built() && p->early.started && r && r->state == PD_NS_ACTIVE;
}

void pd_exec_ns_stock_leave(bool due, bool net)
{
    release_taken();
    int base = open_base();
    /* the file this run took names no one now: the next kept process
     * replaces it (removed here, it would cost this run the unlink) */
    const bool spent = taken.lock >= 0;
    if (taken.lock >= 0) {
        close(taken.lock);
        taken.lock = -1;
    }
    /* one is enough: otherwise the kept process links its file only where
     * none is */
    if (base >= 0 && due &&
        (spent ||
         (faccessat(base, stock_name(net), F_OK, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)))
        (void)pd_ns_stock_make(base, stock_name(net), net, spent, pd_ns_stock_keep_sec);
    if (base >= 0)
        close(base); /* the kept process has its own copy */
}
