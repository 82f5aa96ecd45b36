/* platform/linux/raw_syscall.h - system calls that never touch errno, for a
 * task that shares the launcher's memory while the launcher runs on
 * (ns_early.c): glibc's wrappers write errno, a thread-local of the task
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
#else
#define PD_RAW_SYSCALL 0
#endif

#endif
