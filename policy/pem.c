/* policy/pem.c - public certificates are not secrets.
 *
 * The built-in secret "*.pem" is there for private keys, but the same
 * suffix names every public certificate bundle: certifi's cacert.pem that
 * pip installs, the system's CA bundles, the ones Node packages ship. Where
 * the name cannot decide, the content does: a file that holds certificates
 * only is not a secret; one holding a private key (or anything else in PEM
 * armour) stays one, wherever it is. A name that does not exist yet may be
 * created - nothing can be read from it - and the post-run scan judges the
 * file it became by the same rule (launcher/scan/scan.c asks pd_gate_path).
 * User deny_globs are never lifted: a user who lists "*.pem" means it.
 *
 * The file is read in small chunks on the stack: the preload calls this
 * inside any wrapped call, in threads with small stacks, where malloc may
 * not be safe. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"

#define BEGIN     "-----BEGIN "
#define DASHES    "-----"
#define LABEL_MAX 64 /* longer than any PEM label in use */
/* Bytes carried from one chunk to the next: a marker and its whole label
 * are always seen in one window. */
#define OVERLAP (sizeof BEGIN - 1 + LABEL_MAX + sizeof DASHES)
#define CHUNK   2048

bool pd_secret_by_content(const char *pattern)
{
    /* A class of files by extension - the pattern "*.pem", or one whose
     * last component is it (certs/ then *.pem) - is where CA bundles fall
     * in; a pattern that names the file (keys/server.pem) keeps deciding by
     * name. */
    size_t n = strlen(pattern);
    return n >= 5 && strcmp(pattern + n - 5, "*.pem") == 0 && (n == 5 || pattern[n - 6] == '/');
}

/* 1: a certificate, 0: another public block (a CRL), -1: anything else. */
static int label_kind(const char *s, size_t n)
{
    if ((n == 11 && memcmp(s, "CERTIFICATE", 11) == 0) ||
        (n == 19 && memcmp(s, "TRUSTED CERTIFICATE", 19) == 0))
        return 1;
    if (n == 8 && memcmp(s, "X509 CRL", 8) == 0)
        return 0;
    return -1;
}

/* Judge the markers of buf[0, have). Returns false on anything that is not
 * public; a marker whose label may continue past the window (it starts in
 * the last OVERLAP bytes) is left for the next window unless eof. */
static bool scan_window(const char *buf, size_t have, bool eof, bool *cert)
{
    if (memmem(buf, have, "PRIVATE KEY", 11))
        return false;
    const char *end = buf + have;
    for (const char *p = buf; (p = memmem(p, (size_t)(end - p), BEGIN, sizeof BEGIN - 1));
         p += sizeof BEGIN - 1) {
        const char *label = p + sizeof BEGIN - 1;
        const char *dashes = memmem(label, (size_t)(end - label), DASHES, sizeof DASHES - 1);
        if (!dashes && !eof && (size_t)(end - p) < OVERLAP)
            break; /* seen whole in the next window */
        if (!dashes || dashes - label > LABEL_MAX)
            return false;
        int kind = label_kind(label, (size_t)(dashes - label));
        if (kind < 0)
            return false;
        if (kind > 0)
            *cert = true;
    }
    return true;
}

bool pd_pem_certificates_only(const char *abs)
{
    /* O_NONBLOCK: a FIFO named x.pem must not hang the gate */
    int fd = open(abs, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= (off_t)PD_PEM_MAX;
    bool cert = false;
    char buf[OVERLAP + CHUNK];
    size_t have = 0, total = 0;
    while (ok) {
        ssize_t r = read(fd, buf + have, CHUNK);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 || (total += (size_t)r) > PD_PEM_MAX) {
            ok = false; /* unreadable, or grew past the bound while read */
            break;
        }
        have += (size_t)r;
        bool eof = r == 0;
        ok = scan_window(buf, have, eof, &cert);
        if (eof)
            break;
        if (have > OVERLAP) {
            memmove(buf, buf + have - OVERLAP, OVERLAP);
            have = OVERLAP;
        }
    }
    close(fd);
    return ok && cert;
}

const char *pd_match_builtin_secret(enum pd_op op, const char *rel, const char *abs,
                                    const char *home)
{
    return pd_match_secret_list(pd_builtin_secrets, SIZE_MAX, op, rel, abs, home);
}

const char *pd_match_secret_list(const char *const *list, size_t n, enum pd_op op, const char *rel,
                                 const char *abs, const char *home)
{
    for (size_t k = 0; k < n && list[k]; k++) {
        const char *pat = list[k];
        if (!pd_glob_match(pat, rel, abs, home, true))
            continue;
        if (pd_secret_by_content(pat)) {
            struct stat st;
            if (stat(abs, &st) != 0 ? errno == ENOENT && op == PD_OP_CREATE
                                    : pd_pem_certificates_only(abs))
                continue;
        }
        return pat;
    }
    return NULL;
}
