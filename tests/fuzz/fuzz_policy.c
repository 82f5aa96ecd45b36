/* tests/fuzz/fuzz_policy.c - libFuzzer target for the policy loader
 * (policy/load.c, policy/toml/toml_lex.c, policy/toml/toml_value.c): the input is the
 * text of a policy file. Built by tests/fuzz/CMakeLists.txt, run by
 * tests/fuzz/run.sh (corpus tests/fuzz/corpus/policy, dictionary
 * tests/fuzz/policy.dict).
 * Invariants checked: a refused text has a message and leaves nothing to
 * free (LeakSanitizer); an accepted one dumps to TOML that loads again to a
 * policy that dumps the same (pd_policy_dump's promise); bound to a
 * workspace (a fixed temp tree), one pd_gate_path call gives a well-formed
 * verdict, the same twice. */
#include "tests/fuzz/fuzz_common.h"

static char ws[PD_PATH_MAX], home[PD_PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *root = fz_tree("policy");
    fz_workspace();
    snprintf(ws, sizeof ws, "%s/ws", root);
    snprintf(home, sizeof home, "%s/home", root);
    return 0;
}

/* What the one gate call judges, chosen by the input's length. */
static const struct {
    enum pd_op op;
    const char *path;
} probes[] = {
    {PD_OP_READ, ".env"},          {PD_OP_WRITE, "src/main.c"},    {PD_OP_WRITE, ".git/config"},
    {PD_OP_READ, "~/.ssh/id_rsa"}, {PD_OP_CREATE, "build/out.o"},  {PD_OP_NAME, "/etc/passwd"},
    {PD_OP_DELETE, "../outside"},  {PD_OP_EXEC, "src/envlink"},    {PD_OP_WRITE, ".paldron.toml"},
    {PD_OP_READ, "cert.pem"},      {PD_OP_WRITE, "out/notes.txt"}, {PD_OP_NAME, "src/lib/"},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_cstr(data, size);
    struct pd_policy p;
    struct pd_error err;
    if (pd_policy_load_string(&p, text, "fuzz.toml", &err) != 0) {
        CHECK(fz_terminated(err.msg, sizeof err.msg) && err.msg[0] != '\0');
        CHECK(strncmp(err.msg, "policy ", 7) == 0);
        CHECK(err.line >= 0);
        char line[PD_MSG_MAX + PD_PATH_MAX + 64];
        pd_error_format(&err, line, sizeof line);
        CHECK(line[0] != '\0');
        free(text);
        return 0;
    }
    CHECK(p.file == NULL);

    /* the canonical dump loads again to the same policy */
    char *d1 = pd_policy_dump(&p);
    CHECK(d1 != NULL);
    struct pd_policy q;
    if (pd_policy_load_string(&q, d1, "dump.toml", &err) != 0) {
        fprintf(stderr, "the dump does not load: %s (line %d)\n--- dump\n%s\n", err.msg, err.line,
                d1);
        FAIL("a dump loads");
    }
    char *d2 = pd_policy_dump(&q);
    CHECK(d2 != NULL);
    if (strcmp(d1, d2) != 0) {
        fprintf(stderr, "--- dump 1\n%s\n--- dump 2\n%s\n", d1, d2);
        FAIL("the dump of the dump is the dump");
    }
    free(d2);
    free(d1);
    pd_policy_free(&q);

    struct pd_ctx c;
    if (pd_ctx_init(&c, &p, ws, home, &err) == 0) {
        const size_t k = size % (sizeof probes / sizeof probes[0]);
        struct pd_verdict v, again;
        memset(&v, 0x5a, sizeof v);
        pd_gate_path(&c, probes[k].op, NULL, probes[k].path, &v);
        fz_check_verdict(&v);
        pd_gate_path(&c, probes[k].op, NULL, probes[k].path, &again);
        fz_same_verdict(&v, &again);
        pd_ctx_free(&c);
    } else {
        CHECK(err.msg[0] != '\0');
    }
    pd_policy_free(&p);
    free(text);
    return 0;
}
