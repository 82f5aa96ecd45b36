/* launcher/outscan/outscan_int.h - internals shared by the files of launcher/outscan/.
 * Not part of the launcher's interface: include launcher/outscan/outscan.h instead.
 *
 * Map of the module:
 *   outscan.c          the scanner object, values, patterns, needle compilation
 *   outscan_scan.c     the scan: prefilter probes, matching, merging, redaction
 *   outscan_filter.c   the 3-byte gram prefilter (bitmap + exact gram table)
 *   outscan_encode.c   base64 (3 alignments, 2 alphabets) and hex needles of a value
 *   outscan_names.c    which env names are secret, which values are trivial
 *   outscan_sources.c  reading values from an environment and from secret files
 *   outscan_rules.c    the built-in credential format rules
 *   outscan_pattern.c  the user pattern language */
#ifndef PALDRON_OUTSCAN_INT_H
#define PALDRON_OUTSCAN_INT_H

#include "launcher/outscan/outscan.h"

#include <stdint.h>

#define PD_OS_ERR_MAX 256

/* ---- byte sets -------------------------------------------------------- */

struct pd_os_set {
    uint8_t bits[32];
};

static inline bool pd_os_set_has(const struct pd_os_set *s, unsigned char c)
{
    return (((unsigned)s->bits[c >> 3] >> (c & 7u)) & 1u) != 0;
}

static inline void pd_os_set_add(struct pd_os_set *s, unsigned char c)
{
    s->bits[c >> 3] = (uint8_t)(s->bits[c >> 3] | (1u << (c & 7u)));
}

static inline bool pd_os_is_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static inline bool pd_os_is_word(unsigned char c)
{
    return pd_os_is_alnum(c) || c == '_';
}

/* Grow *p (elements of size elem) so that it holds at least need; 0 or -1 ENOMEM. */
int pd_os_grow(void **p, size_t *cap, size_t need, size_t elem);

/* ---- needles ---------------------------------------------------------- */

/* One byte string searched for literally: a known value or one of its encodings. */
struct pd_os_needle {
    size_t off; /* into the scanner's needle arena */
    size_t len;
    uint32_t value; /* index of the known value it encodes */
    uint8_t kind;   /* enum pd_outscan_kind: KNOWN_VALUE, KNOWN_BASE64 or KNOWN_HEX */
    uint8_t b64url; /* base64 needle in the URL-safe alphabet */
    uint8_t lpart;  /* base64: one partly determined character precedes the needle */
    uint8_t rpart;  /* base64: one partly determined character follows the needle */
};

/* Called by the encoders for every needle made from one value. */
typedef int (*pd_os_needle_sink)(void *ctx, const unsigned char *bytes, size_t len,
                                 const struct pd_os_needle *proto);

/* Emit the raw, base64 (std + url, 3 alignments each) and hex (lower + upper)
 * needles of value v; proto->value is set by the caller. Stops at and returns
 * the first non-zero sink result. */
int pd_os_encode_needles(const unsigned char *v, size_t n, uint32_t value_index,
                         pd_os_needle_sink sink, void *ctx);

/* Is c in the base64 alphabet (std when !url, URL-safe when url)? */
bool pd_os_is_b64(unsigned char c, bool url);

/* ---- built-in format rules -------------------------------------------- */

/* A rule matcher is called where one of the rule's prefixes starts (at); it
 * returns true and the match [*start, *end) or false. */
typedef bool (*pd_os_rule_fn)(const unsigned char *buf, size_t len, size_t at, size_t *start,
                              size_t *end);

#define PD_OS_MAX_PREFIXES 6

struct pd_os_rule {
    const char *name;
    const char *prefixes[PD_OS_MAX_PREFIXES]; /* NULL-terminated, each >= 3 bytes */
    pd_os_rule_fn match;
    /* The bytes that may follow a 3-byte prefix in a match (NULL: any byte);
     * the prefilter indexes a 3-byte prefix by its last two bytes + this one. */
    bool (*next)(unsigned char c);
};

extern const struct pd_os_rule pd_os_rules[];
extern const size_t pd_os_nrules;

/* ---- user patterns ---------------------------------------------------- */

struct pd_os_elem {
    struct pd_os_set set;
    uint32_t min, max;
};

struct pd_os_pattern {
    char *name;
    unsigned char *prefix; /* literal, >= 3 bytes */
    size_t plen;
    struct pd_os_elem *elems;
    size_t nelems;
    bool left_bound;  /* the byte before the prefix must not be [A-Za-z0-9_] */
    bool right_bound; /* the byte after the match must not be in the last element's set */
};

/* Compile src into *p. 0, or -1 with errno EINVAL (message in err) or ENOMEM. */
int pd_os_pattern_compile(struct pd_os_pattern *p, const char *src, char *err, size_t errlen);
/* Match the pattern at `at` (its prefix is known to start there). */
bool pd_os_pattern_match(const struct pd_os_pattern *p, const unsigned char *buf, size_t len,
                         size_t at, size_t *end);
void pd_os_pattern_free(struct pd_os_pattern *p);

/* ---- the gram prefilter ----------------------------------------------- */

enum pd_os_entry_type { PD_OS_E_NEEDLE = 0, PD_OS_E_RULE = 1, PD_OS_E_PATTERN = 2 };

/* Something that may start `off` bytes before where its gram occurs: the scan
 * probes only even positions, so every needle and prefix is indexed twice, by
 * its bytes 0..2 (off 0) and by its bytes 1..3 (off 1; for a 3-byte prefix,
 * bytes 1..2 and each byte that may follow it). */
struct pd_os_entry {
    uint64_t head;   /* first min(len, 8) bytes, little-endian, zero padded */
    uint64_t mask;   /* which bytes of head are significant */
    uint32_t gram;   /* three bytes at off, little-endian */
    uint32_t ref;    /* needle, rule or pattern index */
    uint8_t type;    /* enum pd_os_entry_type */
    uint8_t headlen; /* significant bytes in head */
    uint8_t off;     /* 0 or 1: where the gram sits in the needle or prefix */
};

struct pd_os_slot {
    uint32_t gram_plus1; /* 0: empty */
    uint32_t first;      /* into entries, sorted by gram */
    uint32_t count;
};

struct pd_os_filter {
    uint32_t *bitmap; /* 1 << bits bits, indexed by a hash of the gram */
    unsigned bits;
    struct pd_os_slot *table; /* 1 << tbits slots, open addressing */
    unsigned tbits;
    struct pd_os_entry *entries;
    size_t nentries;
};

#define PD_OS_GRAM_MUL 0x9E3779B1u

static inline uint32_t pd_os_gram_hash(uint32_t gram, unsigned bits)
{
    return (uint32_t)(gram * PD_OS_GRAM_MUL) >> (32u - bits);
}

static inline uint32_t pd_os_gram_at(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static inline bool pd_os_filter_hit(const struct pd_os_filter *f, uint32_t gram)
{
    uint32_t h = pd_os_gram_hash(gram, f->bits);
    return ((f->bitmap[h >> 5] >> (h & 31u)) & 1u) != 0;
}

/* Build from entries (taken over: sorted and kept; freed by pd_os_filter_free). */
int pd_os_filter_build(struct pd_os_filter *f, struct pd_os_entry *entries, size_t n);
/* The entries whose gram is `gram` ([*first, *first + count)); count 0 if none. */
size_t pd_os_filter_lookup(const struct pd_os_filter *f, uint32_t gram, size_t *first);
void pd_os_filter_free(struct pd_os_filter *f);
/* Fill head/mask/headlen of e from the bytes p[0..len) and gram from p[0..3)
 * (off 0). */
void pd_os_entry_set_bytes(struct pd_os_entry *e, const unsigned char *p, size_t len);

/* ---- env names and trivial values ------------------------------------- */

/* Names ending in one of the non-secret suffixes (_PATH, _FILE, ...) or listed
 * as non-secret system names: never secret, not even in a secret file. */
bool pd_os_name_is_nonsecret(const char *name, size_t len);

/* A value from a secret file whose key is not secret-looking still counts when
 * it looks like a generated token (docs/output-scan.md, "token-like"). */
bool pd_os_value_is_tokenlike(const unsigned char *v, size_t len);

/* ---- the scanner ------------------------------------------------------ */

struct pd_os_value {
    unsigned char *bytes;
    size_t len;
    uint32_t label; /* index into labels */
    uint32_t hash;
};

struct pd_outscan {
    bool no_clean_copy; /* pd_outscan_copy_clean(scan, false) */
    struct pd_os_value *values;
    size_t nvalues, cvalues;
    uint32_t *vset; /* open addressing set of value index + 1 */
    size_t cvset;   /* power of two */

    char **labels;
    size_t nlabels, clabels;

    struct pd_os_pattern *patterns;
    size_t npatterns, cpatterns;

    uint64_t disabled_rules; /* bit i: pd_os_rules[i] is off */

    /* compiled state, rebuilt when dirty */
    bool dirty;
    unsigned char *arena;
    size_t arena_len, arena_cap;
    struct pd_os_needle *needles;
    size_t nneedles, cneedles;
    uint32_t *nset; /* needle dedup set (index + 1), only during compilation */
    size_t cnset;
    struct pd_os_filter filter;

    char err[PD_OS_ERR_MAX];
};

/* Build the needles and the prefilter from the values, rules and patterns
 * (when scan->dirty). 0, or -1 with errno ENOMEM. */
int pd_os_compile(struct pd_outscan *scan);

/* Record an error message (printf-style) for pd_outscan_last_error(). */
void pd_os_set_error(struct pd_outscan *scan, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
