/* launcher/net/net_peer.h - which program of the run a proxy or DNS client
 * is, for the deny line ("paldron: deny: curl connect ..."): the launcher
 * sees only a connection. Its source address and port, as the run's
 * network namespace knows them, lead to the socket's inode
 * (/proc/<pid>/net/{tcp,tcp6,udp,udp6} of a process in that namespace),
 * the inode to the process holding it (/proc/<pid>/fd), the process to its
 * name. Only on a denial: it reads /proc. */
#ifndef PALDRON_LAUNCHER_NET_PEER_H
#define PALDRON_LAUNCHER_NET_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* The inode of the network namespace a socket belongs to (SIOCGSKNS); 0
 * when the kernel does not say. */
unsigned long pd_net_peer_netns(int sock);

/* The program (its /proc/<pid>/comm) holding the socket of the run's
 * namespace netns whose local address is peer (what the launcher's end
 * sees as the peer); tcp: a TCP socket, else UDP. "?" and *pid 0 when it
 * cannot be found (the process has gone). */
void pd_net_peer_program(unsigned long netns, bool tcp, const struct sockaddr_storage *peer,
                         char *out, size_t outlen, long *pid);

#endif
