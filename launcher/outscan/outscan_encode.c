/* launcher/outscan/outscan_encode.c - the encoded forms of a known value that the
 * output scanner searches for: raw, base64 and hex.
 *
 * A value embedded anywhere in a longer base64 stream starts at one of three
 * byte offsets within a 3-byte group. For each offset s (0, 1, 2) the value is
 * encoded behind s filler bytes, and only the characters whose six bits all
 * come from the value are kept (the "stable" characters): the characters at
 * either edge mix in bits of whatever surrounds the value and are dropped.
 * The needle records whether such a partly determined character exists on
 * each side, so that a match can be widened over it (and over '=' padding).
 * A value holding quotes, backslashes, control bytes or slashes is also
 * searched for as a JSON encoder would print it. */
#include "launcher/outscan/outscan_int.h"

#include <stdlib.h>
#include <string.h>

static const char b64_std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char b64_url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

bool pd_os_is_b64(unsigned char c, bool url)
{
    if (pd_os_is_alnum(c))
        return true;
    if (url)
        return c == '-' || c == '_';
    return c == '+' || c == '/';
}

/* The six bits of character k of the stream (big-endian bit order). */
static unsigned sextet(const unsigned char *stream, size_t k)
{
    size_t bit = 6 * k;
    size_t b = bit / 8;
    unsigned off = (unsigned)(bit % 8);
    unsigned window = (unsigned)stream[b] << 8 | (unsigned)stream[b + 1];
    return (window >> (10u - off)) & 63u;
}

static int emit_b64(const unsigned char *v, size_t n, uint32_t value_index, unsigned shift,
                    bool url, unsigned char *stream, unsigned char *out, pd_os_needle_sink sink,
                    void *ctx)
{
    const char *alpha = url ? b64_url : b64_std;
    memset(stream, 0, shift);
    memcpy(stream + shift, v, n);
    memset(stream + shift + n, 0, 3);
    size_t first = (8 * (size_t)shift + 5) / 6; /* ceil(8s / 6) */
    size_t end = (8 * ((size_t)shift + n)) / 6; /* one past the last stable char */
    if (end <= first + 2)
        return 0;
    size_t len = 0;
    for (size_t k = first; k < end; k++)
        out[len++] = (unsigned char)alpha[sextet(stream, k)];
    struct pd_os_needle proto = {
        .value = value_index,
        .kind = PD_OUTSCAN_KNOWN_BASE64,
        .b64url = url,
        .lpart = shift != 0,
        .rpart = (8 * ((size_t)shift + n)) % 6 != 0,
    };
    return sink(ctx, out, len, &proto);
}

static int emit_hex(const unsigned char *v, size_t n, uint32_t value_index, bool upper,
                    unsigned char *out, pd_os_needle_sink sink, void *ctx)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = (unsigned char)digits[v[i] >> 4];
        out[2 * i + 1] = (unsigned char)digits[v[i] & 15u];
    }
    struct pd_os_needle proto = {.value = value_index, .kind = PD_OUTSCAN_KNOWN_HEX};
    return sink(ctx, out, 2 * n, &proto);
}

/* The value as a JSON string body: " \\ and control bytes escaped (what every
 * JSON encoder does), and '/' as \/ too when slash is true (PHP, some Java). */
static int emit_json(const unsigned char *v, size_t n, uint32_t value_index, bool slash,
                     unsigned char *out, pd_os_needle_sink sink, void *ctx)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = v[i];
        const char *esc = c == '"'            ? "\\\""
                          : c == '\\'         ? "\\\\"
                          : c == '\n'         ? "\\n"
                          : c == '\r'         ? "\\r"
                          : c == '\t'         ? "\\t"
                          : c == '/' && slash ? "\\/"
                                              : NULL;
        if (esc != NULL) {
            out[k++] = (unsigned char)esc[0];
            out[k++] = (unsigned char)esc[1];
        } else if (c < 0x20) {
            static const char hx[] = "0123456789abcdef";
            memcpy(out + k, "\\u00", 4);
            out[k + 4] = (unsigned char)hx[c >> 4];
            out[k + 5] = (unsigned char)hx[c & 15u];
            k += 6;
        } else {
            out[k++] = c;
        }
    }
    struct pd_os_needle proto = {.value = value_index, .kind = PD_OUTSCAN_KNOWN_VALUE};
    return sink(ctx, out, k, &proto);
}

int pd_os_encode_needles(const unsigned char *v, size_t n, uint32_t value_index,
                         pd_os_needle_sink sink, void *ctx)
{
    struct pd_os_needle raw = {.value = value_index, .kind = PD_OUTSCAN_KNOWN_VALUE};
    int rc = sink(ctx, v, n, &raw);
    if (rc != 0)
        return rc;
    /* stream: 2 filler bytes + value + 3 zero bytes; out: the largest of
     * base64 (4n/3 + 4), hex (2n) and JSON (6n) */
    unsigned char *stream = malloc(n + 5);
    unsigned char *out = malloc(6 * n + 8);
    if (stream == NULL || out == NULL) {
        free(stream);
        free(out);
        return -1;
    }
    for (int url = 0; url <= 1 && rc == 0; url++)
        for (unsigned s = 0; s < 3 && rc == 0; s++)
            rc = emit_b64(v, n, value_index, s, url != 0, stream, out, sink, ctx);
    if (rc == 0)
        rc = emit_hex(v, n, value_index, false, out, sink, ctx);
    if (rc == 0)
        rc = emit_hex(v, n, value_index, true, out, sink, ctx);
    bool special = false, slash = false;
    for (size_t i = 0; i < n; i++) {
        special = special || v[i] < 0x20 || v[i] == '"' || v[i] == '\\';
        slash = slash || v[i] == '/';
    }
    /* the sink drops a variant equal to one already emitted */
    if (rc == 0 && special)
        rc = emit_json(v, n, value_index, false, out, sink, ctx);
    if (rc == 0 && slash)
        rc = emit_json(v, n, value_index, true, out, sink, ctx);
    free(stream);
    free(out);
    return rc;
}
