/* policy/tool_schema.c - the five tool definitions of the original, byte for
 * byte, and their JSON form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/tools.h"

#define ABS_FILE "Absolute path to the file"

static const struct pd_tool_prop read_file_props[] = {{"path", ABS_FILE}};
static const struct pd_tool_prop write_file_props[] = {{"content", "Complete content to write"},
                                                       {"path", ABS_FILE}};
static const struct pd_tool_prop edit_file_props[] = {
    {"new_text", "Replacement text"}, {"old_text", "Exact text to replace"}, {"path", ABS_FILE}};
static const struct pd_tool_prop list_dir_props[] = {{"path", "Absolute directory path"}};
static const struct pd_tool_prop execute_code_props[] = {
    {"command", "Single command with no shell operators"}, {"dir", "Absolute working directory"}};

#define TOOL(n, d)                                                                                 \
    {                                                                                              \
#n, d, n##_props, sizeof n##_props / sizeof n##_props[0]                                   \
    }
const struct pd_tool_schema pd_tool_schemas[] = {
    TOOL(read_file, "Read file contents from an allowed directory"),
    TOOL(write_file, "Write content to a file in an allowed directory"),
    TOOL(edit_file, "Replace the first occurrence of old_text with new_text in a file"),
    TOOL(list_dir, "List files and directories at a path"),
    TOOL(execute_code, "Execute a single binary command in a sandboxed directory. Shell chaining, "
                       "pipes, redirects, and subshells are blocked."),
};
const size_t pd_tool_schema_count = sizeof pd_tool_schemas / sizeof pd_tool_schemas[0];

const struct pd_tool_schema *pd_tool_schema_find(const char *name)
{
    for (size_t k = 0; k < pd_tool_schema_count; k++)
        if (strcmp(pd_tool_schemas[k].name, name) == 0)
            return &pd_tool_schemas[k];
    return NULL;
}

char *pd_tool_schema_json(const struct pd_tool_schema *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "{\n  \"name\": \"%s\",\n  \"description\": \"%s\",\n", s->name, s->description);
    fprintf(f, "  \"parameters\": {\n    \"type\": \"object\",\n    \"properties\": {\n");
    for (size_t k = 0; k < s->nprops; k++)
        fprintf(f,
                "      \"%s\": {\n        \"type\": \"string\",\n        \"description\": "
                "\"%s\"\n      }%s\n",
                s->props[k].name, s->props[k].description, k + 1 < s->nprops ? "," : "");
    fprintf(f, "    },\n    \"required\": [\n");
    for (size_t k = 0; k < s->nprops; k++)
        fprintf(f, "      \"%s\"%s\n", s->props[k].name, k + 1 < s->nprops ? "," : "");
    fprintf(f, "    ],\n    \"additionalProperties\": false\n  },\n  \"args_schema\": \"\"\n}\n");
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
