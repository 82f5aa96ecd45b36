/* tests/preload/pdcompile.c - write the compiled policy image the preload
 * maps, as the launcher does: pdcompile POLICY.toml WORKSPACE HOME OUTFILE
 * [extra-root...]. POLICY.toml "-" means the built-in defaults; HOME "" means
 * none. The context PATH is this program's PATH. Exit 0, or 1 with a
 * message. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/compiled_image.h"
#include "policy/policy.h"

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: pdcompile POLICY.toml WORKSPACE HOME OUTFILE [extra-root...]\n");
        return 1;
    }
    struct pd_policy pol;
    struct pd_error err;
    char msg[2 * PD_MSG_MAX];
    if (strcmp(argv[1], "-") == 0) {
        pd_policy_defaults(&pol);
    } else if (pd_policy_load(&pol, argv[1], &err) != 0) {
        pd_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "pdcompile: %s\n", msg);
        return 1;
    }
    struct pd_ctx ctx;
    if (pd_ctx_init(&ctx, &pol, argv[2], argv[3][0] ? argv[3] : NULL, &err) != 0) {
        pd_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "pdcompile: %s\n", msg);
        return 1;
    }
    pd_ctx_set_path_env(&ctx, getenv("PATH"));
    for (int k = 5; k < argc; k++) {
        if (pd_ctx_add_root(&ctx, argv[k]) != 0) {
            fprintf(stderr, "pdcompile: root %s: %s\n", argv[k], strerror(errno));
            return 1;
        }
    }
    unlink(argv[4]); /* written anew, as the launcher writes it */
    if (pd_image_write(&ctx, NULL, NULL, argv[4], 0644) != 0) {
        fprintf(stderr, "pdcompile: %s: %s\n", argv[4], strerror(errno));
        return 1;
    }
    pd_ctx_free(&ctx);
    pd_policy_free(&pol);
    return 0;
}
