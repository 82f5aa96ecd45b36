/* policy/compiled_image.h - the compiled policy as a binary image: what the
 * launcher writes into <run>/policy.compiled and every process under the
 * live gate maps read-only and reads in place. No parse, no copy, no
 * allocation: the preload's hot paths (an open judged by the pattern index,
 * an exec of an allowed program judged by its identity) read the mapped
 * bytes; its slow paths materialize a struct pd_policy / pd_ctx /
 * pd_kernel_grants whose strings point into the mapping
 * (pd_image_materialize: pointer arrays only, in memory the caller gives).
 *
 * Layout (native byte order; every offset is from the start of the image
 * and checked by pd_image_check before anything is read through it):
 *
 *   struct pd_image                header: magic, sizes, checksum, scalars,
 *                                  string fields, the spans below
 *   uint32_t[]                     lists of string offsets (roots, ...)
 *   struct pd_image_pat[]          the pattern index (preload/match.c)
 *   struct pd_image_bin[]          allow_binaries, resolved by the launcher
 *   char[]                         the strings, each NUL-terminated; offset
 *                                  0 is ""
 *
 * The header starts with the text "paldron-compiled 2\n", so that the file
 * still says what it is, and an image of another version, another byte
 * order or another build's policy keys (schema) is refused, never misread.
 *
 * Life cycle:
 *   launcher:  pd_image_write(&ctx, &grants, NULL, "<run>/policy.compiled", 0400)
 *   preload:   map the file; pd_image_check(mem, size) == NULL, then read
 *              it with the accessors below; on a slow path
 *              pd_image_materialize(img, ptrs, &p, &c, &g). */
#ifndef PALDRON_POLICY_COMPILED_IMAGE_H
#define PALDRON_POLICY_COMPILED_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy/kernel_grants.h"
#include "policy/policy.h"

#define PD_IMAGE_MAGIC      "paldron-compiled 2\n"
#define PD_IMAGE_MAGIC_HEAD "paldron-compiled " /* any version */
#define PD_IMAGE_BYTE_ORDER 0x01020304u
#define PD_IMAGE_MAX_BYTES  (16u << 20)
#define PD_IMAGE_NONE       UINT32_MAX /* an absent string (the policy file) */

/* The lists of strings, in the order the header keeps their spans: the
 * context's, the kernel grants', then one per list key of
 * policy/policy_keys.def. */
enum pd_image_list {
    PD_IL_ROOTS,
    PD_IL_READ_ROOTS,
    PD_IL_GIT_DIRS,
    PD_IL_KERNEL_EXEC,
    PD_IL_KERNEL_READ,
    PD_IL_KERNEL_WRITE,
    PD_IL_KERNEL_DEV,
    PD_IL_KERNEL_READONLY,
#define PD_KEY_STRV(name, doc) PD_IL_##name,
#define PD_KEY_BOOL(name, def, doc)
#define PD_KEY_INT(name, def, lo, hi, doc)
#define PD_KEY_FLOAT(name, def, doc)
#define PD_KEY_ENUM(name, ctype, def, parse, doc)
#include "policy/policy_keys.def"
    PD_IL_COUNT
};

/* The scalar keys of policy/policy_keys.def, one slot each. */
enum pd_image_scalar {
#define PD_KEY_STRV(name, doc)
#define PD_KEY_BOOL(name, def, doc)               PD_IS_##name,
#define PD_KEY_INT(name, def, lo, hi, doc)        PD_IS_##name,
#define PD_KEY_FLOAT(name, def, doc)              PD_IS_##name,
#define PD_KEY_ENUM(name, ctype, def, parse, doc) PD_IS_##name,
#include "policy/policy_keys.def"
    PD_IS_COUNT
};

/* Header flags. */
#define PD_IMAGE_PRIVATE_NET         0x01u /* pd_ctx.private_net */
#define PD_IMAGE_GIT_DIRS_KNOWN      0x02u /* pd_ctx.git_dirs_known */
#define PD_IMAGE_KERNEL              0x04u /* pd_kernel_grants.on */
#define PD_IMAGE_NO_EXEC_WRITES      0x08u /* pd_kernel_grants.no_exec_writes */
#define PD_IMAGE_PROTECTED_PATHS_SET 0x10u /* pd_policy.protected_paths_set */
#define PD_IMAGE_TIMEOUT_SEC_SET     0x20u /* pd_policy.timeout_sec_set */

/* An array in the image: n elements from byte off. */
struct pd_image_span {
    uint32_t off;
    uint32_t n;
};

/* How a pattern of the index is tested (preload/match.h explains why it
 * is sound: each kind is a necessary condition of pd_glob_match). */
enum pd_image_pat_kind {
    PD_PAT_NEVER,  /* cannot match (a "~/" pattern without a home) */
    PD_PAT_ALWAYS, /* no usable necessary condition: always ask the gate */
    PD_PAT_ABS,    /* text: literal leading components of the absolute path */
    PD_PAT_REL,    /* text: literal leading components of the workspace-relative path */
    PD_PAT_KEY,    /* text: a component pattern one component must match */
};

struct pd_image_pat {
    uint32_t text; /* string offset */
    uint32_t len;  /* its length */
    uint8_t kind;  /* enum pd_image_pat_kind */
    uint8_t first; /* PD_PAT_KEY: folded first character, 0 = any */
    uint8_t last;  /* PD_PAT_KEY: folded last character, 0 = any */
    uint8_t pad;
};

/* One set of patterns, with the character filters of its PD_PAT_KEY ones. */
struct pd_image_set {
    struct pd_image_span pats;        /* struct pd_image_pat[] */
    uint32_t firstmap[8], lastmap[8]; /* characters some PD_PAT_KEY filter needs */
    uint8_t unfiltered;               /* a PD_PAT_KEY pattern without any filter */
    uint8_t always;                   /* a PD_PAT_ALWAYS pattern */
    uint8_t keys;                     /* any PD_PAT_KEY pattern */
    uint8_t pad;
    uint32_t nlead; /* the PD_PAT_ABS and PD_PAT_REL patterns come first: how many */
    /* the folded first characters of their texts, of each kind: a path
     * whose first character is in neither map is led by none of them */
    uint32_t absmap[8], relmap[8];
};

/* Why a program runs without the preload (pd_exec_unmonitored), as a code. */
enum pd_image_why {
    PD_WHY_NONE,
    PD_WHY_STATIC,
    PD_WHY_FOREIGN,
    PD_WHY_SETUID,
    PD_WHY_FCAPS,
};

/* A file an allow_binaries entry named when the launcher wrote the image,
 * allowed as it was then: the same inode, not changed since (ctime), at
 * the same physical path. Only files outside the writable roots that the
 * exec gate allows by identity alone (not a "#!" script, not the dynamic
 * loader, no deny_globs or secret on the path) are listed; any other start
 * takes the full gate. */
struct pd_image_bin {
    uint64_t dev, ino;
    int64_t ctime_sec, ctime_nsec;
    uint64_t size;
    uint32_t mode;
    uint32_t path;   /* string: the physical path */
    uint8_t why;     /* enum pd_image_why without no_new_privs */
    uint8_t why_nnp; /* ... with no_new_privs set */
    uint8_t pad[6];
};

/* The host's mounts as the writer saw them, for the live gate's view of a
 * sandbox that a program under it makes (bwrap, Codex's own; the
 * preload's private_fs.c): a write outside the writable roots to a tmpfs
 * that no host mount held, from another mount namespace, lands in memory
 * that only that sandbox sees. Written by `paldron env` only: under exec
 * seccomp refuses new namespaces, and the run's own /tmp is such a tmpfs.
 * With it the image also holds the identities of the writable roots, so
 * that a root bound elsewhere in such a sandbox (Codex's bwrap binds /tmp
 * at /newroot/tmp while it builds its tree) is still a root. */
struct pd_image_host {
    uint64_t mnt_ns;      /* inode of the writer's mount namespace (0: none) */
    const uint64_t *devs; /* st_dev of every mount it saw */
    size_t ndevs;
};

/* A file's identity. */
struct pd_image_id {
    uint64_t dev, ino;
};

struct pd_image {
    char magic[24];       /* PD_IMAGE_MAGIC, NUL-padded */
    uint32_t byte_order;  /* PD_IMAGE_BYTE_ORDER */
    uint32_t header_size; /* sizeof(struct pd_image) */
    uint64_t size;        /* bytes of the whole image */
    uint64_t checksum;    /* pd_image_hash of every byte after this field */
    uint64_t schema;      /* pd_image_schema() of the writer */
    uint32_t flags;       /* PD_IMAGE_* */
    uint32_t npolicy_roots;
    /* string offsets */
    uint32_t workspace, home, path_env, go_tmp, temp_home, connect_helper;
    uint32_t file;                           /* PD_IMAGE_NONE: built-in defaults */
    struct pd_image_span strings;            /* the string area: n bytes, last one NUL */
    struct pd_image_span lists[PD_IL_COUNT]; /* uint32_t string offsets */
    struct pd_image_set read_set;            /* deny_globs + built-in secrets: every op */
    struct pd_image_set protect_set;         /* protected paths: writes */
    struct pd_image_span bins;               /* struct pd_image_bin[] */
    struct pd_image_span host_devs;          /* uint64_t[]: pd_image_host.devs */
    struct pd_image_span root_ids;           /* struct pd_image_id[]: the writable roots */
    uint64_t host_mnt_ns;                    /* pd_image_host.mnt_ns (0: no host view) */
    union {
        int64_t i; /* bool, int, enum */
        double f;  /* float */
    } scalars[PD_IS_COUNT];
};

/* ---- writing (launcher) ----------------------------------------------- */

/* The image of c's policy and context, with g's grants (NULL: the kernel
 * layers are off) and the host's mounts (NULL: none). Resolves
 * allow_binaries and reads the files they name (stat, realpath, the ELF
 * header). 0 with *out (malloc'd) and *len, or -1 with errno. */
int pd_image_build(const struct pd_ctx *c, const struct pd_kernel_grants *g,
                   const struct pd_image_host *host, void **out, size_t *len);

/* pd_image_build into a new file at path (O_EXCL; mode, e.g. 0400).
 * 0, or -1 with errno (no file is left behind). */
int pd_image_write(const struct pd_ctx *c, const struct pd_kernel_grants *g,
                   const struct pd_image_host *host, const char *path, mode_t mode);

/* ---- reading (preload) ------------------------------------------------ */

/* Is mem (len bytes, 8-byte aligned) a whole, intact image of this build?
 * NULL when it is, else why not: "not a compiled policy (bad header)",
 * "truncated or incomplete compiled policy", "compiled policy of another
 * version", "corrupt compiled policy (checksum)", "corrupt compiled policy
 * (offsets)". Every offset the accessors below follow is checked here. */
const char *pd_image_check(const void *mem, size_t len);

/* The checksum of the header's checksum field: a 64-bit hash of n bytes. */
uint64_t pd_image_hash(const void *p, size_t n);

/* A hash of the image layout and of the policy keys this build knows. */
uint64_t pd_image_schema(void);

/* The string at offset off of the string area ("" for PD_IMAGE_NONE). */
static inline const char *pd_image_str(const struct pd_image *im, uint32_t off)
{
    if (off == PD_IMAGE_NONE)
        return "";
    return (const char *)im + im->strings.off + off;
}

/* List l: *n string offsets (pass each to pd_image_str). */
static inline const uint32_t *pd_image_list(const struct pd_image *im, enum pd_image_list l,
                                            size_t *n)
{
    *n = im->lists[l].n;
    return (const uint32_t *)(const void *)((const char *)im + im->lists[l].off);
}

/* The patterns of a set of the index. */
static inline const struct pd_image_pat *pd_image_pats(const struct pd_image *im,
                                                       const struct pd_image_set *s)
{
    return (const struct pd_image_pat *)(const void *)((const char *)im + s->pats.off);
}

/* The resolved allow_binaries entries: *n of them. */
static inline const struct pd_image_bin *pd_image_bins(const struct pd_image *im, size_t *n)
{
    *n = im->bins.n;
    return (const struct pd_image_bin *)(const void *)((const char *)im + im->bins.off);
}

/* The host's mount devices: *n of them. */
static inline const uint64_t *pd_image_host_devs(const struct pd_image *im, size_t *n)
{
    *n = im->host_devs.n;
    return (const uint64_t *)(const void *)((const char *)im + im->host_devs.off);
}

/* The identities of the writable roots (with a host view only): *n. */
static inline const struct pd_image_id *pd_image_root_ids(const struct pd_image *im, size_t *n)
{
    *n = im->root_ids.n;
    return (const struct pd_image_id *)(const void *)((const char *)im + im->root_ids.off);
}

/* The report text of a why code (policy/report.h), NULL for PD_WHY_NONE. */
const char *pd_image_why_text(unsigned why);

/* How many pointers pd_image_materialize needs in ptrs. */
size_t pd_image_nptrs(const struct pd_image *im);

/* Fill p, c and g (g may be NULL) from a checked image: scalars copied,
 * lists as pointer arrays in ptrs (pd_image_nptrs entries) whose strings
 * are the image's own. The result must not be freed (pd_policy_free,
 * pd_ctx_free), nor outlive the image or ptrs. c->policy = p. */
void pd_image_materialize(const struct pd_image *im, char **ptrs, struct pd_policy *p,
                          struct pd_ctx *c, struct pd_kernel_grants *g);

#endif
