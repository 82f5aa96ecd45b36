/* preload/wrap_vfork.c - vfork, as a real vfork when the program itself
 * calls it, and the scratch memory the exec wrappers may map in its child.
 *
 * Why a real vfork is safe here: the child of a vfork shares the parent's
 * memory and runs on its stack until it execs or exits, so everything the
 * exec wrappers do in it lands in the parent too. They are written for
 * that: the policy is mapped and the real functions are bound before the
 * vfork (pd_vfork_prepare), so the child maps or binds nothing that
 * takes a lock; what they still build - the materialized policy of a slow
 * path, the cached working directory, the report channel - is published
 * with one atomic word each and is as valid in the parent as in the child
 * (the channel is checked by inode before each use, channel.c); the
 * recursion guard and errno are restored before the real exec; scratch
 * memory for a new argv or environment (pd_scratch_map) is unmapped by the
 * parent when vfork returns there. Nothing allocates with malloc.
 *
 * Why only for the program itself: vfork is only usable from the function
 * that calls it (the child must not return from it). A program's own vfork
 * (sh, make, busybox) follows that rule, as it must without us; a caller
 * in a shared library may be a foreign-function layer (Python's ctypes)
 * that returns through frames the child would clobber. Such callers get
 * fork, as every caller did before, and so does every architecture but
 * x86-64 (the entry point cannot be written in C: it must not have a frame
 * of its own when the child returns). */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "preload/guard.h"
#include "preload/state.h"
#include "preload/symtab.h"
#include "preload/vfork.h"

#define PD_EXPORT     __attribute__((visibility("default")))
#define SCRATCH_SLOTS 4 /* an exec maps at most 3: argv, environment, script argv */

/* Per thread: a vfork child runs on its parent's thread (and TLS). */
struct vfork_tls {
    bool child; /* from the vfork until it returns in the parent */
    void *addr[SCRATCH_SLOTS];
    size_t len[SCRATCH_SLOTS];
};
static __thread struct vfork_tls vf __attribute__((tls_model("initial-exec")));

void *pd_scratch_map(size_t len)
{
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        errno = ENOMEM;
        return NULL;
    }
    for (size_t k = 0; vf.child && k < SCRATCH_SLOTS; k++) {
        if (!vf.addr[k]) {
            vf.addr[k] = m;
            vf.len[k] = len;
            break;
        }
    }
    return m;
}

void pd_scratch_unmap(void *p, size_t len)
{
    int err = errno;
    for (size_t k = 0; k < SCRATCH_SLOTS; k++)
        if (vf.addr[k] == p)
            vf.addr[k] = NULL;
    munmap(p, len);
    errno = err;
}

#if defined(__x86_64__)

/* Called from the entry point below (hidden; no C caller). */
int pd_vfork_prepare(const void *caller);
pid_t pd_vfork_as_fork(void);
pid_t pd_vfork_return(long rc);

/* Does pc lie in the executable segments of the main program? Read from
 * the auxiliary vector: no lock, no system call. */
static bool in_main_program(const void *pc)
{
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)getauxval(AT_PHDR);
    size_t n = (size_t)getauxval(AT_PHNUM);
    uintptr_t bias = 0, at = (uintptr_t)pc;
    bool have = false;
    for (size_t k = 0; ph && k < n; k++) {
        if (ph[k].p_type == PT_PHDR) {
            bias = (uintptr_t)ph - (uintptr_t)ph[k].p_vaddr;
            have = true;
        }
    }
    for (size_t k = 0; have && k < n; k++) {
        uintptr_t start = bias + (uintptr_t)ph[k].p_vaddr;
        if (ph[k].p_type == PT_LOAD && (ph[k].p_flags & PF_X) && at >= start &&
            at - start < (uintptr_t)ph[k].p_memsz)
            return true;
    }
    return false;
}

/* 1: vfork for real (everything the child's wrappers need is ready);
 * 0: run as fork. */
int pd_vfork_prepare(const void *caller)
{
    if (!in_main_program(caller))
        return 0;
    pd_bind();
    int g = pd_guard_enter();
    struct pd_state s;
    pd_state_load(&s);
    pd_guard_leave(g);
    vf.child = true;
    return 1;
}

pid_t pd_vfork_as_fork(void)
{
    return fork();
}

/* Back in the parent: the child has exec'd or exited. Unmap the scratch
 * memory it left (its exec succeeded while holding it). */
pid_t pd_vfork_return(long rc)
{
    int err = errno;
    for (size_t k = 0; k < SCRATCH_SLOTS; k++) {
        if (vf.addr[k])
            munmap(vf.addr[k], vf.len[k]);
        vf.addr[k] = NULL;
    }
    vf.child = false;
    if (rc < 0) {
        errno = (int)-rc;
        return -1;
    }
    errno = err;
    return (pid_t)rc;
}

/* The entry point, as glibc's own vfork: the return address is held in
 * %rdi (kept by the system call) while the child may use the stack, and
 * the child goes back to the caller by a jump, leaving a shadow stack it
 * shares with the parent as the parent needs it. */
__asm__(".text\n"
        ".globl vfork\n"
        ".type vfork, @function\n"
        ".p2align 4\n"
        "vfork:\n"
        ".cfi_startproc\n"
        "    movq (%rsp), %rdi\n" /* the caller, for pd_vfork_prepare */
        "    subq $8, %rsp\n"
        ".cfi_adjust_cfa_offset 8\n"
        "    call pd_vfork_prepare\n"
        "    addq $8, %rsp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "    testl %eax, %eax\n"
        "    jz pd_vfork_as_fork\n"
        "    popq %rdi\n"
        ".cfi_adjust_cfa_offset -8\n"
        ".cfi_register %rip, %rdi\n"
        "    movl $58, %eax\n" /* __NR_vfork */
        "    syscall\n"
        "    pushq %rdi\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".cfi_rel_offset %rip, 0\n"
        "    testq %rax, %rax\n"
        "    jnz 1f\n"
        ".cfi_remember_state\n"
        "    popq %rdi\n" /* the child */
        ".cfi_adjust_cfa_offset -8\n"
        ".cfi_register %rip, %rdi\n"
        "    jmp *%rdi\n"
        ".cfi_restore_state\n"
        "1:\n" /* the parent, or an error: pid or -errno in %rax */
        "    movq %rax, %rdi\n"
        "    jmp pd_vfork_return\n"
        ".cfi_endproc\n"
        ".size vfork, .-vfork\n");

#else

PD_EXPORT pid_t vfork(void)
{
    return fork();
}

#endif
