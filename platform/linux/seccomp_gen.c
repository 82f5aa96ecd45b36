/* platform/linux/seccomp_gen.c - build-time generator of seccomp_prog.c:
 *
 *   paldron_seccomp_gen ARCH OUTPUT.c
 *
 * builds both variants of the filter (seccomp_build.c) for ARCH ("native",
 * or libseccomp's name: x86_64, aarch64, riscv64) and writes them as
 * arrays of struct sock_filter. It runs on the build machine: for a cross
 * build it is built for the host and given the target's name. The table
 * takes its constants (errno values, ioctl numbers, clone's argument
 * order) from the host's headers, so a foreign target must number them as
 * the host does: both must be among the architectures that use the
 * kernel's generic numbering. The output refuses to compile for another
 * architecture than the one it was generated for. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/filter.h>

#include "platform/linux/seccomp_build.h"
#include "platform/linux/seccomp_rules.h"

/* Where the host's headers and the target's kernel agree on the numbers the
 * table uses, and the preprocessor test that the output compiles for. */
static const struct {
    const char *name;
    uint32_t token;
    const char *cc_test;
} generic[] = {
    {"x86_64", SCMP_ARCH_X86_64, "defined(__x86_64__) && !defined(__ILP32__)"},
    {"aarch64", SCMP_ARCH_AARCH64, "defined(__aarch64__) && !defined(__ILP32__)"},
    {"riscv64", SCMP_ARCH_RISCV64, "defined(__riscv) && __riscv_xlen == 64"},
};
#define N_GENERIC (sizeof generic / sizeof generic[0])

static int generic_index(uint32_t token)
{
    for (size_t i = 0; i < N_GENERIC; i++)
        if (generic[i].token == token)
            return (int)i;
    return -1;
}

/* The exported program of one variant, read back into prog; its length in
 * instructions, or -1. */
static int export(uint32_t arch, unsigned variant, struct sock_filter *prog, size_t cap)
{
    char err[256] = "";
    scmp_filter_ctx ctx = pd_seccomp_build_arch(arch, variant, err, sizeof err);
    if (ctx == NULL) {
        fprintf(stderr, "paldron_seccomp_gen: %s\n", err);
        return -1;
    }
    int fd = memfd_create("seccomp-bpf", MFD_CLOEXEC);
    int rc = fd < 0 ? -errno : seccomp_export_bpf(ctx, fd);
    seccomp_release(ctx);
    if (rc < 0) {
        fprintf(stderr, "paldron_seccomp_gen: export: %s\n", strerror(-rc));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    ssize_t n = pread(fd, prog, cap * sizeof *prog, 0);
    int e = errno;
    close(fd);
    if (n <= 0 || (size_t)n % sizeof *prog != 0 || (size_t)n == cap * sizeof *prog ||
        (size_t)n / sizeof *prog > BPF_MAXINSNS) {
        fprintf(stderr, "paldron_seccomp_gen: read back the program: %s\n",
                n < 0 ? strerror(e) : "bad size");
        return -1;
    }
    return (int)((size_t)n / sizeof *prog);
}

static void print_prog(FILE *out, const char *name, const struct sock_filter *prog, int len)
{
    fprintf(out, "static const struct sock_filter %s[%d] = {\n", name, len);
    for (int i = 0; i < len; i++)
        fprintf(out, "    {0x%04x, %3u, %3u, 0x%08x},\n", prog[i].code, prog[i].jt, prog[i].jf,
                prog[i].k);
    fprintf(out, "};\n\n");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: paldron_seccomp_gen ARCH|native OUTPUT.c\n");
        return 2;
    }
    const uint32_t native = seccomp_arch_native();
    const uint32_t arch =
        strcmp(argv[1], "native") == 0 ? native : seccomp_arch_resolve_name(argv[1]);
    if (arch == 0) {
        fprintf(stderr, "paldron_seccomp_gen: unknown architecture %s\n", argv[1]);
        return 2;
    }
    const int target = generic_index(arch);
    if (arch != native && (target < 0 || generic_index(native) < 0)) {
        fprintf(stderr,
                "paldron_seccomp_gen: cannot generate for %s here: a cross build needs host and "
                "target among x86_64, aarch64, riscv64\n",
                argv[1]);
        return 2;
    }
    /* The programs are for the kernel that will load them, not for the
     * one this runs on (under qemu-user in a cross build, seccomp() itself
     * is missing): libseccomp is told the API level of a kernel with every
     * feature the rules use (SECCOMP_RET_KILL_PROCESS and the rest, 4.14+),
     * instead of probing. The launcher checks the running kernel. */
    if (seccomp_api_get() < 3 && seccomp_api_set(3) != 0) {
        fprintf(stderr, "paldron_seccomp_gen: libseccomp refuses API level 3\n");
        return 1;
    }
    static struct sock_filter progs[PD_SECCOMP_VARIANTS][BPF_MAXINSNS + 1];
    int len[PD_SECCOMP_VARIANTS];
    for (unsigned v = 0; v < PD_SECCOMP_VARIANTS; v++)
        if ((len[v] = export(arch, v, progs[v], BPF_MAXINSNS + 1)) < 0)
            return 1;

    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]) >= (int)sizeof tmp) {
        fprintf(stderr, "paldron_seccomp_gen: output path too long\n");
        return 2;
    }
    FILE *out = fopen(tmp, "w");
    if (out == NULL) {
        fprintf(stderr, "paldron_seccomp_gen: %s: %s\n", tmp, strerror(errno));
        return 1;
    }
    const struct scmp_version *v = seccomp_version();
    const char *arch_name = target >= 0 ? generic[target].name : argv[1];
    fprintf(out,
            "/* Generated by paldron_seccomp_gen (platform/linux/seccomp_gen.c) from\n"
            " * platform/linux/seccomp_rules.c with libseccomp %u.%u.%u. Do not edit. */\n"
            "#include \"platform/linux/seccomp_prog.h\"\n\n",
            v->major, v->minor, v->micro);
    if (target >= 0)
        fprintf(out, "#if !(%s)\n#error \"seccomp programs generated for %s\"\n#endif\n\n",
                generic[target].cc_test, arch_name);
    static const char *const names[PD_SECCOMP_VARIANTS] = {"restricted_sockets", "any_socket",
                                                           "restricted_sockets_exec_floor",
                                                           "any_socket_exec_floor"};
    for (unsigned i = 0; i < PD_SECCOMP_VARIANTS; i++)
        print_prog(out, names[i], progs[i], len[i]);
    fprintf(out, "const struct pd_seccomp_prog pd_seccomp_progs[%u] = {\n", PD_SECCOMP_VARIANTS);
    for (unsigned i = 0; i < PD_SECCOMP_VARIANTS; i++)
        fprintf(out, "    {%s, %d},\n", names[i], len[i]);
    fprintf(out, "};\n\nconst char pd_seccomp_prog_arch[] = \"%s\";\n", arch_name);
    if (fclose(out) != 0 || rename(tmp, argv[2]) != 0) {
        fprintf(stderr, "paldron_seccomp_gen: write %s: %s\n", argv[2], strerror(errno));
        unlink(tmp);
        return 1;
    }
    return 0;
}
