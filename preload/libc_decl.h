/* preload/libc_decl.h - the headers every wrapper file needs, and the
 * prototypes glibc declares only when _FORTIFY_SOURCE is on (the preload
 * is built without it: fortify turns open() into an inline function that
 * could not be defined here). */
#ifndef PALDRON_PRELOAD_LIBC_DECL_H
#define PALDRON_PRELOAD_LIBC_DECL_H

#include <fcntl.h>
#include <netdb.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

/* With _GNU_SOURCE glibc declares connect, bind and sendto with a
 * transparent union for the address; PD_SOCKADDR gets the pointer back. */
#if !defined __cplusplus && defined __USE_GNU
#define PD_SOCKADDR(a) ((a).__sockaddr__)
#else
#define PD_SOCKADDR(a) (a)
#endif

#endif
