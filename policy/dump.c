/* policy/dump.c - print a policy back as canonical TOML (every key, in the
 * order of policy_keys.def). The launcher uses it to hand the exact policy
 * in force to the preload; pd_policy_load_string(dump) gives it back. */
#include <stdio.h>
#include <stdlib.h>

#include "policy/policy.h"

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void put_list(FILE *f, const char *name, const struct pd_strv *s)
{
    fprintf(f, "%s = [", name);
    for (size_t k = 0; k < s->n; k++) {
        if (k)
            fputs(", ", f);
        put_string(f, s->v[k]);
    }
    fputs("]\n", f);
}

char *pd_policy_dump(const struct pd_policy *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
#define PD_KEY_STRV(name, doc)                                                                     \
    if (&p->name != &p->protected_paths || p->protected_paths_set)                                 \
        put_list(f, #name, &p->name);
#define PD_KEY_BOOL(name, def, doc)        fprintf(f, "%s = %s\n", #name, p->name ? "true" : "false");
#define PD_KEY_INT(name, def, lo, hi, doc) fprintf(f, "%s = %lld\n", #name, p->name);
#define PD_KEY_FLOAT(name, def, doc)       fprintf(f, "%s = %.17g\n", #name, p->name);
#define PD_KEY_ENUM(name, ctype, def, parse, doc)                                                  \
    fprintf(f, "%s = \"%s\"\n", #name, p->name == PD_ON_ERROR_ALLOW ? "allow" : "deny");
#include "policy/policy_keys.def"
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
