/* preload/loader_started.c - see loader_started.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "preload/judge.h"
#include "preload/loader_started.h"

#define PD_EXIT_NOT_RUN 126 /* the shell's "found but could not run" */

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(uintptr_t *)data = (uintptr_t)info->dlpi_phdr;
    return 1; /* the first entry is the main program: stop */
}

/* The file mapped at addr, from /proc/self/maps: its path (out) and the
 * device and inode the kernel says it has. false when none is found. */
static bool mapped_file(uintptr_t addr, char *out, size_t len, dev_t *dev, ino_t *ino)
{
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return false;
    }
    char line[PD_PATH_MAX + 128];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        uintptr_t lo, hi;
        unsigned maj, min;
        uint64_t inode;
        int path_at = 0;
        // NOLINTNEXTLINE(cert-err34-c): /proc/self/maps is the kernel's, its numbers fit
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %*s %x:%x %" SCNu64 " %n", &lo, &hi, &maj,
                   &min, &inode, &path_at) < 5 ||
            addr < lo || addr >= hi)
            continue;
        char *p = line + path_at;
        p[strcspn(p, "\n")] = '\0';
        snprintf(out, len, "%s", p);
        *dev = makedev(maj, min);
        *ino = (ino_t)inode;
        found = inode != 0 && p[0] == '/';
    }
    fclose(f);
    return found;
}

void pd_loader_started_check(char **argv)
{
    if (getauxval(AT_BASE) != 0)
        return; /* the kernel loaded an interpreter: a program as usual */
    uintptr_t phdr = 0;
    dl_iterate_phdr(first_object, &phdr);
    char path[PD_PATH_MAX];
    dev_t dev = 0;
    ino_t ino = 0;
    if (!phdr)
        return;
    bool known = mapped_file(phdr, path, sizeof path, &dev, &ino);
    int fd = known ? (int)syscall(SYS_openat, AT_FDCWD, path, O_PATH | O_CLOEXEC) : -1;
    struct stat st;
    /* the file at that path now must be the one mapped, else the
     * descriptor names something else: judged as no file (denied when
     * allow_binaries is set) */
    if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_dev != dev || st.st_ino != ino)) {
        close(fd);
        fd = -1;
    }
    /* fd -1 (a memfd, a deleted or replaced file): judged by the path
     * alone, which then names no program allow_binaries lists */
    if (!known)
        snprintf(path, sizeof path, "%s", "(the program the dynamic loader mapped)");
    bool ok = pd_exec_mapped_allowed(path, fd, argv);
    if (fd >= 0)
        close(fd);
    if (!ok)
        _exit(PD_EXIT_NOT_RUN);
}
