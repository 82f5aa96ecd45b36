"""Issue 11, items 5, 6 and 9: the verdict follows what the policy names.

A write outside the writable roots that touches nothing the policy names is
refused and reported as `paldron: blocked:`, and the verdict follows the
command (`strict = true` makes it a deny); what the file permissions refuse
anyway goes to the kernel unreported. Public certificate bundles are not
secrets (a PEM holding a private key is). Live lines dedupe by resolved path,
say what to add to allow_binaries, and allow_binaries takes presets. Real
runs as the unprivileged user."""

import os
import re
import shutil
import subprocess
import tempfile

from harness import PaldronTest, Workspace, main, skip

CERT_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
PRIVATE_KEY = ("-----BEGIN PRIVATE KEY-----\n"
               "MIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7AgEAAkEAu1SU1LfVLPHCozMx\n"
               "-----END PRIVATE KEY-----\n")


def one_certificate():
    """The first certificate of the system bundle (public by definition)."""
    try:
        with open(CERT_BUNDLE) as f:
            text = f.read()
    except OSError:
        return None
    m = re.search(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----\n", text, re.S)
    return m.group(0) if m else None


class TransparentVerdictTest(PaldronTest):
    def setUp(self):
        self.ws = Workspace(as_user=True)
        self.addCleanup(self.ws.close)
        self.ws.mkdir("src")
        # outside the workspace, in a directory the test user may write: only
        # the policy stands in the way
        self.target = "/var/tmp/paldron-blocked-%d" % os.getpid()
        self.addCleanup(lambda: os.path.lexists(self.target) and os.unlink(self.target))

    def exec(self, args, policy, cwd=None):
        p = self.ws.policy(policy)
        return self.ws.run(["exec", "--policy", p, "--"] + args, cwd=cwd)

    # ---- item 5: the verdict ------------------------------------------------

    def test_write_outside_the_roots_is_blocked_and_the_command_decides(self):
        r = self.exec(["sh", "-c", "echo x > %s; true" % self.target],
                      'allow_paths = ["src/"]\n')
        self.assertRun(r, 0, "paldron: blocked: sh create %s (outside the writable roots)"
                       % self.target, absent=["paldron: deny:"])
        self.assertFalse(os.path.lexists(self.target))

    def test_write_outside_the_roots_fails_the_command_that_needs_it(self):
        r = self.exec(["sh", "-c", "echo x > %s" % self.target], 'allow_paths = ["src/"]\n')
        self.assertRun(r, 1, "paldron: blocked: sh create %s" % self.target,
                       "paldron: command exited", absent=["paldron: deny:"])

    def test_strict_makes_a_blocked_write_a_deny(self):
        r = self.exec(["sh", "-c", "echo x > %s; true" % self.target],
                      'allow_paths = ["src/"]\nstrict = true\n')
        self.assertRun(r, 2, "paldron: deny: sh create %s (outside the writable roots)"
                       % self.target, absent=["paldron: blocked:"])
        self.assertFalse(os.path.lexists(self.target))

    def test_undelivered_blocked_record_denies_only_when_strict(self):
        # no descriptor left for the report socket: the preload prints its
        # fallback line on stderr; with strict = true the launcher counts it
        code = ("import os, errno\nos.closerange(3, 1 << 16)\nfds = []\ntry:\n"
                "    while True: fds.append(os.open('/dev/null', os.O_RDONLY))\n"
                "except OSError: pass\ntry:\n    open(%r, 'w')\n    print('WROTE')\n"
                "except PermissionError:\n    print('REFUSED')\n" % self.target)
        self.ws.write("src/exhaust.py", code)
        r = self.exec(["python3", "src/exhaust.py"], 'allow_paths = ["src/"]\n')
        self.assertRun(r, 0, "REFUSED", "paldron: blocked: python3 create %s" % self.target,
                       absent=["paldron: deny:", "WROTE"])
        r = self.exec(["python3", "src/exhaust.py"], 'allow_paths = ["src/"]\nstrict = true\n')
        self.assertRun(r, 2, "REFUSED", absent=["WROTE"])
        self.assertRegex(r.err, r"(?m)^paldron: deny: python3 create %s .*reported on stderr"
                         % re.escape(self.target))

    def test_python_isolated_and_optimized_are_transparent(self):
        for args in (["python3", "-I", "-c", "pass"], ["python3", "-O", "-c", "import json"]):
            r = self.exec(args, 'allow_paths = ["."]\ndeny_globs = [".env", "*.pem"]\n')
            self.assertRun(r, 0, absent=["paldron: deny:", "paldron: blocked:"])

    def test_write_the_permissions_refuse_goes_to_the_kernel_unreported(self):
        # python3 -I ignores the environment and caches bytecode next to the
        # source: in a root-owned directory of the system the kernel refuses
        # the mkdir of __pycache__, and python carries on
        if os.geteuid() != 0:
            skip(self, "needs root to lay out a root-owned module directory")
        base = tempfile.mkdtemp(prefix="paldron-it-mod-", dir="/usr/local/lib")
        self.addCleanup(shutil.rmtree, base, True)
        os.chmod(base, 0o755)
        with open(os.path.join(base, "m.py"), "w") as f:
            f.write("X = 42\n")
        code = "import sys; sys.path.insert(0, %r); import m; print(m.X)" % base
        r = self.exec(["python3", "-I", "-c", code], 'allow_paths = ["."]\n')
        self.assertRun(r, 0, "[STDOUT]\n42\n", absent=["paldron: deny:", "paldron: blocked:"])
        self.assertFalse(os.path.exists(os.path.join(base, "__pycache__")))

    def test_a_secret_write_still_denies(self):
        r = self.exec(["sh", "-c", "echo x > src/.env; true"], 'allow_paths = ["src/"]\n')
        self.assertRun(r, 2, "paldron: deny: sh create src/.env (secret .env) [live]")
        self.assertFalse(self.ws.exists("src/.env"))

    # ---- item 6: public certificates ---------------------------------------

    def write_pem(self, content):
        code = ("import os; os.makedirs('src/pkg', exist_ok=True); "
                "open('src/pkg/cacert.pem', 'w').write(%r)" % content)
        return self.exec(["python3", "-c", code], 'allow_paths = ["src/"]\n')

    def test_certificate_bundle_may_be_created(self):
        cert = one_certificate()
        if cert is None:
            skip(self, "no system certificate bundle at %s" % CERT_BUNDLE)
        r = self.write_pem(cert + cert)
        self.assertRun(r, 0, absent=["paldron: deny:"])
        self.assertTrue(self.ws.exists("src/pkg/cacert.pem"))

    def test_private_key_pem_is_denied(self):
        cert = one_certificate() or ""
        r = self.write_pem(cert + PRIVATE_KEY)
        self.assertRun(r, 2, "paldron: deny: run produced src/pkg/cacert.pem (secret)")

    def test_existing_certificate_pem_is_readable_and_a_key_is_not(self):
        cert = one_certificate()
        if cert is None:
            skip(self, "no system certificate bundle at %s" % CERT_BUNDLE)
        self.ws.write("src/site.pem", cert)
        self.ws.write("src/key.pem", PRIVATE_KEY)
        r = self.exec(["sh", "-c", "cat src/site.pem"], 'allow_paths = ["src/"]\n')
        self.assertRun(r, 0, "BEGIN CERTIFICATE", absent=["paldron: deny:"])
        r = self.exec(["sh", "-c", "cat src/key.pem"], 'allow_paths = ["src/"]\n')
        self.assertRun(r, 2, "paldron: deny: cat read src/key.pem (secret *.pem) [live]")

    def test_user_deny_glob_pem_follows_the_content_rule(self):
        # deny_globs = ["*.pem"] names a class of files: a bundle of public
        # certificates in it is no secret (pip installs certifi's), a private
        # key is; a glob that names the file decides by name
        cert = one_certificate()
        if cert is None:
            skip(self, "no system certificate bundle at %s" % CERT_BUNDLE)
        self.ws.write("src/site.pem", cert)
        self.ws.write("src/named.pem", cert)
        self.ws.write("src/key.pem", "-----BEGIN PRIVATE KEY-----\nMIIEvQ\n"
                      "-----END PRIVATE KEY-----\n")
        pol = 'allow_paths = ["src/"]\ndeny_globs = ["*.pem", "src/named.pem"]\n'
        r = self.exec(["sh", "-c", "cat src/site.pem"], pol)
        self.assertRun(r, 0, "BEGIN CERTIFICATE", absent=["paldron: deny:"])
        r = self.exec(["sh", "-c", "cat src/key.pem"], pol)
        self.assertRun(r, 2, "cat read src/key.pem (policy deny_glob *.pem) [live]")
        r = self.exec(["sh", "-c", "cat src/named.pem"], pol)
        self.assertRun(r, 2, "cat read src/named.pem (policy deny_glob ")

    def test_system_bundle_is_readable(self):
        if not os.path.exists(CERT_BUNDLE):
            skip(self, "no system certificate bundle at %s" % CERT_BUNDLE)
        r = self.exec(["python3", "-c", "print(len(open(%r).read()) > 0)" % CERT_BUNDLE],
                      'allow_paths = ["src/"]\n')
        self.assertRun(r, 0, "True", absent=["paldron: deny:"])

    # ---- item 9: live lines and presets -------------------------------------

    def test_exec_along_path_prints_one_line_with_the_fix(self):
        r = self.exec(["python3", "-c", "import os; os.execvp('id', ['id'])"],
                      'allow_paths = ["src/"]\nallow_binaries = ["python3"]\n')
        self.assertRun(r, 2, '(add "id" to allow_binaries)')
        lines = [ln for ln in r.err.splitlines()
                 if ln.startswith("paldron: deny:") and "not in allow_binaries" in ln]
        self.assertEqual(len(lines), 1, repr(r))
        self.assertIn("exec /usr/bin/id", lines[0])

    def test_coreutils_preset(self):
        pol = 'allow_paths = ["src/"]\nallow_binaries = ["@coreutils"]\n'
        self.ws.write("src/a.txt", "b\na\n")
        for args, out in ((["ls", "src"], "a.txt"), (["cat", "src/a.txt"], "b"),
                          (["sort", "src/a.txt"], "a\nb"), (["uname", "-s"], "Linux")):
            r = self.exec(args, pol)
            self.assertRun(r, 0, out, absent=["paldron: deny:"])

    def test_python_preset_runs_pip(self):
        if subprocess.run(["/usr/bin/python3", "-m", "pip", "--version"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode != 0:
            skip(self, "pip is not installed for /usr/bin/python3")
        r = self.exec(["python3", "-m", "pip", "--version"],
                      'allow_paths = ["src/"]\nallow_binaries = ["@python"]\n')
        self.assertRun(r, 0, "pip ", absent=["paldron: deny:"])

    def test_unknown_preset_names_file_and_line(self):
        r = self.exec(["true"], 'allow_paths = ["src/"]\n\nallow_binaries = ["ls", "@nope"]\n')
        self.assertRun(r, 1, "unknown preset '@nope'", "@coreutils", "@python",
                       "policy.toml:3)")


if __name__ == "__main__":
    main()
