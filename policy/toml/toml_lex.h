/* policy/toml/toml_lex.h - the TOML subset of policy files (docs/policy.md).
 * pd_toml_split cuts a file into logical entries (one per key; multi-line
 * arrays joined; comments outside strings dropped) with their first source
 * line; pd_toml_value parses one entry's value text. Internal to policy/. */
#ifndef PALDRON_TOML_LEX_H
#define PALDRON_TOML_LEX_H

#include <stddef.h>

#include "policy/policy.h"

struct pd_toml_entry {
    char *key;
    char *raw; /* value text, comments removed, lines joined */
    int line;  /* line of the key */
};

struct pd_toml_doc {
    struct pd_toml_entry *v;
    size_t n;
};

/* Split text. Returns 0, or -1 with err->msg and err->line filled. */
int pd_toml_split(const char *text, size_t len, struct pd_toml_doc *doc, struct pd_error *err);
void pd_toml_doc_free(struct pd_toml_doc *doc);

enum pd_toml_type { PD_TOML_STRING, PD_TOML_INT, PD_TOML_FLOAT, PD_TOML_BOOL, PD_TOML_ARRAY };

struct pd_toml_value {
    enum pd_toml_type type;
    char *str;          /* STRING */
    long long i;        /* INT */
    double f;           /* FLOAT */
    int b;              /* BOOL */
    struct pd_strv arr; /* ARRAY of strings */
};

/* Parse a value. Returns 0, or -1 with msg (no location) filled. */
int pd_toml_value(const char *raw, struct pd_toml_value *out, char *msg, size_t msglen);
void pd_toml_value_free(struct pd_toml_value *v);
const char *pd_toml_type_name(enum pd_toml_type t);

/* Free helpers shared by the policy code. */
void pd_strv_free(struct pd_strv *s);
int pd_strv_push(struct pd_strv *s, const char *str);
/* "a, b, c" into out (truncated to len). */
void pd_strv_join(const struct pd_strv *s, char *out, size_t len);

#endif
