/* tests/unit/test_policy_pem.c - public certificates are not secrets
 * (policy/pem.c): the content rule, and what pd_gate_path makes of it. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "policy/policy.h"
#include "test_policy_fixture.h"

#define CERT                                                                                       \
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ0VSVElGSUNBVEU=\n-----END "                 \
    "CERTIFICATE-----\n"
#define KEY                                                                                        \
    "-----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n"

static char dir[PD_PATH_MAX];

static void setup(void)
{
    tp_mkdtemp(dir, sizeof dir, "pem");
}

static void teardown(void)
{
    tp_rmtree(dir);
}

static bool certs_only(const char *rel, const char *content)
{
    char abs[PD_PATH_MAX];
    tp_put(dir, rel, content, 0644);
    tp_join(abs, sizeof abs, dir, rel);
    return pd_pem_certificates_only(abs);
}

TestSuite(pem, .init = setup, .fini = teardown);

Test(pem, certificates_only)
{
    cr_expect(certs_only("a.pem", CERT));
    cr_expect(certs_only("b.pem", "# Issuer: CN=Example\n" CERT "\n# next\n" CERT));
    cr_expect(certs_only("c.pem", "-----BEGIN TRUSTED CERTIFICATE-----\nAA==\n-----END TRUSTED "
                                  "CERTIFICATE-----\n-----BEGIN X509 CRL-----\nAA==\n-----END "
                                  "X509 CRL-----\n" CERT));
}

Test(pem, anything_else_is_not)
{
    cr_expect_not(certs_only("k.pem", KEY));
    cr_expect_not(certs_only("ck.pem", CERT KEY));
    cr_expect_not(certs_only("rsa.pem", CERT "-----BEGIN RSA PRIVATE KEY-----\nAA==\n"));
    cr_expect_not(certs_only("ssh.pem", "-----BEGIN OPENSSH PRIVATE KEY-----\nAA==\n"));
    cr_expect_not(certs_only("ec.pem", CERT "-----BEGIN EC PARAMETERS-----\nAA==\n"));
    cr_expect_not(
        certs_only("crl.pem", "-----BEGIN X509 CRL-----\nAA==\n-----END X509 CRL-----\n"));
    cr_expect_not(certs_only("empty.pem", ""));
    cr_expect_not(certs_only("text.pem", "hello\n"));
    char abs[PD_PATH_MAX];
    tp_join(abs, sizeof abs, dir, "missing.pem");
    cr_expect_not(pd_pem_certificates_only(abs));
    cr_expect_not(pd_pem_certificates_only(dir)); /* a directory */
}

/* A key far into a large bundle, and markers cut by the reader's chunks. */
Test(pem, whole_file_is_read)
{
    static char big[256 * 1024];
    size_t n = 0;
    while (n + sizeof CERT < sizeof big - sizeof KEY - 1) {
        memcpy(big + n, CERT, sizeof CERT - 1);
        n += sizeof CERT - 1;
        big[n++] = '\n'; /* shifts every marker against the chunk bounds */
    }
    big[n] = '\0';
    cr_expect(certs_only("bundle.pem", big));
    memcpy(big + n, KEY, sizeof KEY);
    cr_expect_not(certs_only("bundle-key.pem", big));
}

static void gate(const char *workspace, enum pd_op op, const char *rel, struct pd_verdict *v)
{
    struct pd_policy p;
    struct pd_ctx c;
    struct pd_error err;
    pd_policy_defaults(&p);
    cr_assert_eq(pd_ctx_init(&c, &p, workspace, "", &err), 0, "%s", err.msg);
    pd_gate_path(&c, op, NULL, rel, v);
    pd_ctx_free(&c);
    pd_policy_free(&p);
}

Test(pem, gate_judges_the_builtin_pem_by_content)
{
    struct pd_verdict v;
    tp_put(dir, "certifi/cacert.pem", CERT, 0644);
    tp_put(dir, "key.pem", KEY, 0600);
    gate(dir, PD_OP_READ, "certifi/cacert.pem", &v);
    cr_expect_not(v.deny, "%s", v.message);
    gate(dir, PD_OP_WRITE, "certifi/cacert.pem", &v);
    cr_expect_not(v.deny, "%s", v.message);
    gate(dir, PD_OP_READ, "key.pem", &v);
    cr_expect(v.deny);
    cr_expect_str_eq(v.reason, PD_REASON_SECRET);
    cr_expect_str_eq(v.pattern, "*.pem");
    /* a name that does not exist may be created, not read */
    gate(dir, PD_OP_CREATE, "new/cacert.pem", &v);
    cr_expect_not(v.deny, "%s", v.message);
    gate(dir, PD_OP_READ, "new/cacert.pem", &v);
    cr_expect(v.deny);
    gate(dir, PD_OP_NAME, "new/cacert.pem", &v);
    cr_expect(v.deny);
}

Test(pem, other_secrets_and_named_files_are_not_lifted)
{
    cr_expect(pd_secret_by_content("*.pem"));
    cr_expect(pd_secret_by_content("certs/*.pem"));
    cr_expect_not(pd_secret_by_content("*.key"));
    cr_expect_not(pd_secret_by_content(".env"));
    cr_expect_not(pd_secret_by_content("server.pem"));
    cr_expect_not(pd_secret_by_content("x*.pem"));
    tp_put(dir, "cert.key", CERT, 0644);
    char abs[PD_PATH_MAX];
    tp_join(abs, sizeof abs, dir, "cert.key");
    cr_expect_str_eq(pd_match_builtin_secret(PD_OP_READ, "cert.key", abs, ""), "*.key");

    struct pd_policy p;
    struct pd_ctx c;
    struct pd_error err;
    struct pd_verdict v;
    cr_assert_eq(
        pd_policy_load_string(&p, "deny_globs = [\"*.pem\", \"named.pem\"]\n", "p.toml", &err), 0);
    cr_assert_eq(pd_ctx_init(&c, &p, dir, "", &err), 0, "%s", err.msg);
    /* a user's extension glob: certificates pass, a private key is denied */
    tp_put(dir, "site.pem", CERT, 0644);
    pd_gate_path(&c, PD_OP_READ, NULL, "site.pem", &v);
    cr_expect(!v.deny, "%s", v.message);
    tp_put(dir, "key.pem", "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n", 0600);
    pd_gate_path(&c, PD_OP_READ, NULL, "key.pem", &v);
    cr_expect(v.deny);
    cr_expect_str_eq(v.reason, PD_REASON_DENY_GLOB);
    /* a glob that names the file decides by name */
    tp_put(dir, "named.pem", CERT, 0644);
    pd_gate_path(&c, PD_OP_READ, NULL, "named.pem", &v);
    cr_expect(v.deny);
    pd_ctx_free(&c);
    pd_policy_free(&p);
}
