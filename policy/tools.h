/* policy/tools.h - the original's five tool schemas (validated by the
 * tool-call gate, printed by `paldron schema`). */
#ifndef PALDRON_TOOLS_H
#define PALDRON_TOOLS_H

#include <stddef.h>

struct pd_tool_prop {
    const char *name; /* properties are strings, all required, sorted by name */
    const char *description;
};

struct pd_tool_schema {
    const char *name;
    const char *description;
    const struct pd_tool_prop *props;
    size_t nprops;
};

extern const struct pd_tool_schema pd_tool_schemas[];
extern const size_t pd_tool_schema_count;

/* NULL when name is not one of the five. */
const struct pd_tool_schema *pd_tool_schema_find(const char *name);

/* The schema as printed by the original (two-space indented JSON, trailing
 * newline). malloc'd; NULL on allocation failure. */
char *pd_tool_schema_json(const struct pd_tool_schema *s);

#endif
