/* preload/libc_decl.h - the headers every wrapper file needs, and the
 * prototypes glibc declares only when _FORTIFY_SOURCE is on (the preload
 * is built without it: fortify turns open() into an inline function that
 * could not be defined here). */
#ifndef PALDRON_PRELOAD_LIBC_DECL_H
#define PALDRON_PRELOAD_LIBC_DECL_H

#include <fcntl.h>
#include <grp.h>
#include <netdb.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>
#include <utmp.h>
#include <utmpx.h>

/* glibc's own names, reserved to the implementation: the preload interposes
 * them, so it must declare them */
// NOLINTBEGIN(bugprone-reserved-identifier)
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

/* Exported by glibc, declared by no public header. */
int __open(const char *path, int flags, ...);
int __open64(const char *path, int flags, ...);
int __open_nocancel(const char *path, int flags, ...);
int __open64_nocancel(const char *path, int flags, ...);
FILE *_IO_fopen(const char *path, const char *mode);
FILE *_IO_file_fopen(FILE *fp, const char *path, const char *mode, int is32);
FILE *_IO_file_open(FILE *fp, const char *path, int flags, int prot, int read_write, int is32);
FILE *__nss_files_fopen(const char *path);
int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev);
int __xmknodat(int ver, int dirfd, const char *path, mode_t mode, dev_t *dev);
int __libc_system(const char *command);
FILE *_IO_popen(const char *command, const char *type);
FILE *_IO_proc_open(FILE *fp, const char *command, const char *type);
int __connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len);
// NOLINTEND(bugprone-reserved-identifier)

/* With _GNU_SOURCE glibc declares connect, bind and sendto with a
 * transparent union for the address; PD_SOCKADDR gets the pointer back. */
#if !defined __cplusplus && defined __USE_GNU
#define PD_SOCKADDR(a) ((a).__sockaddr__)
#else
#define PD_SOCKADDR(a) (a)
#endif

#endif
