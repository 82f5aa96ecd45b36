/* platform/linux/raw_syscall.h - system calls that never touch errno, for a
 * task that shares the launcher's memory while the launcher runs on
 * (ns_early.c, ns_stock.c): glibc's wrappers write errno, a thread-local of the task
 * they are called from, and that task shares the launcher's thread pointer.
 * Returns the kernel's result (a negative errno on failure). Defined for
 * the architectures Paldron builds for; PD_RAW_SYSCALL says whether. */
#ifndef PALDRON_PLATFORM_RAW_SYSCALL_H
#define PALDRON_PLATFORM_RAW_SYSCALL_H

#if defined(__x86_64__)
#define PD_RAW_SYSCALL 1
static inline long pd_raw_syscall3(long n, long a, long b, long c)
{
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c)
                     : "rcx", "r11", "memory");
    return ret;
}
static inline long pd_raw_syscall4(long n, long a, long b, long c, long d)
{
    long ret;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
                     : "rcx", "r11", "memory");
    return ret;
}
static inline long pd_raw_syscall5(long n, long a, long b, long c, long d, long e)
{
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
                     : "rcx", "r11", "memory");
    return ret;
}
#elif defined(__aarch64__)
#define PD_RAW_SYSCALL 1
static inline long pd_raw_syscall3(long n, long a, long b, long c)
{
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
    return x0;
}
static inline long pd_raw_syscall4(long n, long a, long b, long c, long d)
{
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    return x0;
}
static inline long pd_raw_syscall5(long n, long a, long b, long c, long d, long e)
{
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    register long x4 __asm__("x4") = e;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4) : "memory");
    return x0;
}
#else
#define PD_RAW_SYSCALL 0
#endif

#if PD_RAW_SYSCALL
#include <fcntl.h>
#include <sys/syscall.h>

static inline long pd_raw_open(const char *path, int flags)
{
    return pd_raw_syscall3(SYS_openat, AT_FDCWD, (long)path, flags);
}

/* Write text (NUL-terminated) to the file at path, in one write. */
static inline long pd_raw_write_file(const char *path, const char *text)
{
    long fd = pd_raw_open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return fd;
    size_t n = 0;
    while (text[n])
        n++;
    long w = pd_raw_syscall3(SYS_write, fd, (long)text, (long)n);
    pd_raw_syscall3(SYS_close, fd, 0, 0);
    return w == (long)n ? 0 : (w < 0 ? w : -5 /* EIO */);
}
#endif

#endif
