/* platform/linux/ns_net.c - the run's network namespace: a new one has
 * only lo, and lo is down. Bringing it up is all the configuration there
 * is: servers and clients on 127.0.0.1 and ::1 inside the run talk to each
 * other, and nothing else is reachable (no other interface, no route). */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "platform/linux/backend.h"

int pd_ns_loopback_up(char *err, size_t errlen)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        pd_errf(err, errlen, "network namespace: socket: %s", strerror(errno));
        return -1;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    memcpy(ifr.ifr_name, "lo", 3);
    int rc = ioctl(fd, SIOCGIFFLAGS, &ifr);
    if (rc == 0) {
        ifr.ifr_flags = (short)(ifr.ifr_flags | IFF_UP | IFF_RUNNING);
        rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
    }
    int e = errno;
    close(fd);
    if (rc != 0) {
        pd_errf(err, errlen, "network namespace: bring lo up: %s", strerror(e));
        return e == EPERM || e == EACCES ? PD_NS_REFUSE : -1;
    }
    return 0;
}
