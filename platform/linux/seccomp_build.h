/* platform/linux/seccomp_build.h - the seccomp filter built with libseccomp
 * from the deny list (seccomp_rules.c). Build-time code: the generator
 * (seccomp_gen.c) exports it as the BPF programs paldron loads
 * (seccomp_prog.h), and the unit tests rebuild it to prove the generated
 * programs are what the table says. Not part of the paldron binary, which
 * therefore does not load libseccomp. */
#ifndef PALDRON_PLATFORM_LINUX_SECCOMP_BUILD_H
#define PALDRON_PLATFORM_LINUX_SECCOMP_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <seccomp.h>

/* The filter for one architecture (a libseccomp token: SCMP_ARCH_NATIVE,
 * SCMP_ARCH_X86_64, SCMP_ARCH_AARCH64, ...), not loaded. variant: bits of
 * seccomp_rules.h - PD_SECCOMP_ANY_SOCKET: every socket family may be
 * created (the network is on, or a network namespace holds it), else only
 * AF_UNIX and AF_NETLINK; PD_SECCOMP_EXEC: the exec floor's rules
 * (allow_binaries). Only that architecture is
 * in the filter: every other one's system calls kill the process (on
 * x86_64, i386 and x32). NULL with err on failure; the caller releases it
 * with seccomp_release. */
scmp_filter_ctx pd_seccomp_build_arch(uint32_t arch, unsigned variant, char *err, size_t errlen);

/* The same for the architecture this code runs on. */
scmp_filter_ctx pd_seccomp_build(unsigned variant, char *err, size_t errlen);

#endif
