"""The policy model of issue 14, end to end with the real binary, run as the
unprivileged test user: allow_paths are the WRITABLE folders, the workspace
and the system folders are readable, read_paths add readable folders, code
after -c / -e is no path, allow_secrets lifts one built-in secret (its value
still redacted), protected_paths extends the built-in protected list and
unprotect_paths removes single built-ins (warned on every run).

The policy is the issue's example (the values of examples/paldron.toml,
copied here on purpose: the test must not change when the example does)."""

import json
import os
import random
import shutil
import string
import subprocess
import tempfile

from harness import RUN_PATH, PaldronTest, Workspace, main, skip

ALLOW_PATHS = '["src/", "tests/", "docs/"]'
DENY_GLOBS = '[".env", ".env.*", "*.pem", "**/secrets/**"]'
BINARIES = ('["ls", "cat", "grep", "rg", "find", "sed", "head", "tail", "wc", "sort", "diff", '
            '"git", "python3", "pytest", "make", "gcc", "cc", "npm", "node"]')


def example_policy(allow_paths=ALLOW_PATHS, binaries=BINARIES, extra=""):
    """The issue's example policy; allow_paths=None leaves the key out (the
    whole workspace is writable)."""
    text = ""
    if allow_paths is not None:
        text += "allow_paths = %s\n" % allow_paths
    text += ("deny_globs = %s\nallow_network = false\nallow_binaries = %s\ntimeout_sec = 120\n"
             % (DENY_GLOBS, binaries))
    return text + extra


README = "# demo project\n\nA README the agent reads.\n"
PYPROJECT = '[project]\nname = "demo"\nversion = "0.1.0"\n'
XJSON = '{"name": "demo", "items": [1, 2, 3]}\n'
BUILD_JS = ("const parts = ['built', String(6 * 7)];\n"
            "console.log(parts.join(':'));\n")


def random_token(n):
    """A value no output pattern knows: letters and digits, random per run."""
    rng = random.SystemRandom()
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(n))


class ModelBase(PaldronTest):
    def setUp(self):
        self.ws = Workspace(as_user=True)
        self.addCleanup(self.ws.close)
        self.user = self.ws.user
        self.ws.write("README.md", README)
        self.ws.write("pyproject.toml", PYPROJECT)
        self.ws.write("x.json", XJSON)
        self.ws.write("scripts/build.js", BUILD_JS)
        self.ws.write("src/app.py", "print('app')\n")
        self.ws.write(".env", "API_KEY=sk-model-test-1234567890\n")

    def p(self, rel):
        return os.path.join(self.ws.path, rel)

    def policy(self, text):
        return os.path.realpath(self.ws.policy(text))

    def exec(self, argv, policy_text=None, env=None, cwd=None):
        pol = self.policy(policy_text if policy_text is not None else example_policy())
        return self.ws.run(["exec", "--policy", pol, "--"] + list(argv), env=env, cwd=cwd)

    def check(self, tool, args, policy_text=None, json_out=False):
        pol = self.policy(policy_text if policy_text is not None else example_policy())
        extra = ["--json"] if json_out else []
        return self.ws.run(["check", "--policy", pol] + extra + ["--", tool, args])

    def bare(self, argv):
        """The command's own stdout, run bare as the test user in the workspace."""
        p = subprocess.run(["setpriv", "--reuid", str(self.user.pw_uid), "--regid",
                            str(self.user.pw_gid), "--clear-groups"] + list(argv),
                           cwd=self.ws.path, env=self.ws.env(), capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(p.returncode, 0, "bare %s: %s" % (argv, p.stderr))
        self.assertTrue(p.stdout, "bare %s printed nothing" % argv)
        return p.stdout

    def user_home_dir(self, prefix):
        """A fresh folder in the test user's real home (removed afterwards)."""
        d = tempfile.mkdtemp(prefix=prefix, dir=self.user.pw_dir)
        os.chown(d, self.user.pw_uid, self.user.pw_gid)
        os.chmod(d, 0o755)
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def user_file(self, path, text):
        with open(path, "w") as f:
            f.write(text)
        os.chown(path, self.user.pw_uid, self.user.pw_gid)
        self.addCleanup(lambda: os.path.exists(path) and os.unlink(path))
        return path

    def read(self, path):
        with open(path) as f:
            return f.read()


class ReadScopeTest(ModelBase):
    """allow_paths = src/, tests/, docs/: the rest of the workspace is read."""

    def run_like_bare(self, argv):
        want = self.bare(argv)
        r = self.exec(argv)
        self.assertRun(r, 0, "[STDOUT]\n" + want, "[EXIT CODE] 0 (success)",
                       absent=["paldron: deny", "paldron: blocked", "outside allow_paths",
                               "outside workspace"])
        return r

    def test_cat_readme(self):
        r = self.run_like_bare(["cat", "README.md"])
        self.assertIn("A README the agent reads.", r.out)

    def test_sed_pyproject(self):
        r = self.run_like_bare(["sed", "-n", "1,20p", "pyproject.toml"])
        self.assertIn('name = "demo"', r.out)

    def test_python_json_tool(self):
        r = self.run_like_bare(["python3", "-m", "json.tool", "x.json"])
        self.assertIn('"items": [\n        1,', r.out)

    def test_node_script(self):
        if not shutil.which("node", path=RUN_PATH):
            skip(self, "node is not installed")
        r = self.run_like_bare(["node", "scripts/build.js"])
        self.assertIn("built:42", r.out)

    def test_node_eval_code_is_no_path(self):
        if not shutil.which("node", path=RUN_PATH):
            skip(self, "node is not installed")
        r = self.run_like_bare(["node", "-e", "console.log(process.version)"])
        self.assertRegex(r.out, r"\[STDOUT\]\nv\d+\.\d+\.\d+\n")

    def test_python_c_code_is_no_path_but_later_args_are(self):
        # the code is never judged as a path, what follows it is
        r = self.exec(["python3", "-c", "print(1)", ".env"])
        self.assertRun(r, 2, "paldron: deny: .env (policy deny_glob) [deny_globs: .env]",
                       absent=["[STDOUT]", "sk-model-test"])
        r = self.exec(["python3", "-c", "import sys; print(open(sys.argv[1]).read())",
                       "README.md"])
        self.assertRun(r, 0, "[STDOUT]\n" + README, absent=["paldron: deny"])

    def test_write_outside_allow_paths_is_refused_live(self):
        r = self.exec(["python3", "-c", "open('README.md', 'w').write('pwned')"])
        # Landlock / the live gate refuse the open: the command fails with
        # EACCES and its own exit code stands (a block, not a policy deny)
        self.assertRun(r, 1, "PermissionError", "[EXIT CODE] 1",
                       "paldron: blocked: python3 write README.md (outside the writable roots)",
                       absent=["paldron: deny"])
        self.assertEqual(self.ws.read("README.md"), README)
        # strict = true makes the same block a deny
        r = self.exec(["python3", "-c", "open('README.md', 'w').write('pwned')"],
                      policy_text=example_policy(extra="strict = true\n"))
        self.assertRun(r, 2, "PermissionError",
                       "paldron: deny: python3 write README.md (outside the writable roots) [live]",
                       "paldron: denied: 1 finding; the command itself exited 1")
        self.assertEqual(self.ws.read("README.md"), README)
        # the same write into src/ is fine
        r = self.exec(["python3", "-c", "open('src/out.txt', 'w').write('ok')"])
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)", absent=["paldron: deny", "blocked"])
        self.assertEqual(self.ws.read("src/out.txt"), "ok")

    def test_home_file_denied_with_advice(self):
        home = self.user.pw_dir
        fd, notes = tempfile.mkstemp(prefix="paldron-notes-", suffix=".txt", dir=home)
        os.close(fd)
        self.user_file(notes, "private notes in the home\n")
        r = self.exec(["cat", notes])
        self.assertRun(
            r, 2,
            "paldron: deny: %s (outside workspace) [readable: the workspace %s, the system "
            "folders] (none narrow: %s is the home folder)" % (notes, self.ws.path, home),
            absent=["private notes", "[STDOUT]"])

    def test_read_paths_folder_is_readable_not_writable(self):
        folder = self.user_home_dir("paldron-notes-")
        notes = self.user_file(os.path.join(folder, "notes.txt"), "notes in a subfolder\n")
        r = self.exec(["cat", notes])
        self.assertRun(
            r, 2,
            "paldron: deny: %s (outside workspace) [readable: the workspace %s, the system "
            "folders] (add \"%s\" to read_paths)" % (notes, self.ws.path, folder),
            absent=["notes in a subfolder"])
        with_read = example_policy(extra='read_paths = ["%s"]\n' % folder)
        r = self.exec(["cat", notes], policy_text=with_read)
        self.assertRun(r, 0, "[STDOUT]\nnotes in a subfolder\n", "[EXIT CODE] 0 (success)",
                       absent=["paldron: deny"])
        # "~/" names the same folder
        tilde = example_policy(extra='read_paths = ["~/%s"]\n' % os.path.basename(folder))
        r = self.exec(["cat", notes], policy_text=tilde)
        self.assertRun(r, 0, "[STDOUT]\nnotes in a subfolder\n", absent=["paldron: deny"])
        # readable is not writable: the kernel layers refuse the write
        r = self.exec(["python3", "-c", "import sys; open(sys.argv[1], 'w').write('pwned')",
                       notes], policy_text=with_read)
        self.assertRun(r, 1, "PermissionError",
                       "paldron: blocked: python3 write %s (outside the writable roots)" % notes,
                       absent=["paldron: deny"])
        self.assertEqual(self.read(notes), "notes in a subfolder\n")
        # the folder's other files and a new file there are refused too
        r = self.exec(["python3", "-c",
                       "import sys; open(sys.argv[1] + '/new.txt', 'w').write('x')", folder],
                      policy_text=with_read)
        self.assertRun(r, 1, "PermissionError", absent=["paldron: deny"])
        self.assertFalse(os.path.exists(os.path.join(folder, "new.txt")))

    def test_system_files_are_readable(self):
        r = self.exec(["cat", "/etc/hostname"])
        self.assertRun(r, 0, "[STDOUT]\n" + self.read("/etc/hostname"), absent=["paldron: deny"])

    def test_check_read_file_and_write_file_outside_allow_paths(self):
        readme = self.p("README.md")
        r = self.check("read_file", '{"path": "%s"}' % readme)
        self.assertRun(r, 0, "paldron: allow read_file", absent=["deny"])
        r = self.check("write_file", '{"path": "%s", "content": "x"}' % readme)
        self.assertRun(
            r, 2,
            "paldron: deny: %s (outside allow_paths) [allow_paths: src/, tests/, docs/] (none "
            "narrow: README.md lies at the top of the workspace, and allowing the whole "
            "workspace would allow every file; put it in a folder of allow_paths)" % readme)
        lib = self.p("lib/util.py")
        r = self.check("write_file", '{"path": "%s", "content": "x"}' % lib)
        self.assertRun(r, 2, "paldron: deny: %s (outside allow_paths)" % lib,
                       '(add "lib/" to allow_paths)')
        r = self.check("write_file", '{"path": "%s", "content": "x"}' % lib, json_out=True)
        self.assertEqual(r.code, 2, repr(r))
        doc = json.loads(r.out)
        self.assertEqual(doc["reason"], "outside allow_paths")
        self.assertEqual(doc["advice"], 'add "lib/" to allow_paths')
        r = self.check("write_file", '{"path": "%s", "content": "x"}' % self.p("src/new.py"))
        self.assertRun(r, 0, "paldron: allow write_file")


class AllowSecretsTest(ModelBase):
    NPM_TOKEN = "npm_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5"

    def setUp(self):
        super().setUp()
        self.assertEqual(len(self.NPM_TOKEN), 4 + 36)
        self.ws.write(".npmrc", "registry=https://registry.npmjs.org/\n"
                      "//registry.npmjs.org/:_authToken=%s\n" % self.NPM_TOKEN)
        self.lifted = example_policy(extra='allow_secrets = [".npmrc"]\n')

    def warning(self):
        return ("paldron: warning: allow_secrets lifts the built-in secret rule for .npmrc (%s); "
                "their values are still redacted from the output" % os.path.realpath(
                    self.ws.policy_path))

    def test_denied_without_allow_secrets(self):
        r = self.exec(["cat", ".npmrc"])
        self.assertRun(r, 2, 'paldron: deny: .npmrc (secret) [built-in secret: .npmrc] '
                       '(add ".npmrc" to allow_secrets)',
                       absent=[self.NPM_TOKEN, "registry=", "allow_secrets lifts"])

    def test_allowed_with_allow_secrets_and_warned(self):
        r = self.exec(["sed", "-n", "1p", ".npmrc"], policy_text=self.lifted)
        self.assertRun(r, 0, self.warning(), "[STDOUT]\nregistry=https://registry.npmjs.org/\n",
                       "[EXIT CODE] 0 (success)", absent=["paldron: deny"])
        # check sees the same policy and says so too
        r = self.check("read_file", '{"path": "%s"}' % self.p(".npmrc"), policy_text=self.lifted)
        self.assertRun(r, 0, self.warning(), "paldron: allow read_file")

    def test_token_is_redacted_from_the_output(self):
        r = self.exec(["cat", ".npmrc"], policy_text=self.lifted)
        # the argv gate lets cat read it; what it prints is still scanned: the
        # token is redacted, and a credential in the output denies the run
        self.assertRun(r, 2, self.warning(), "registry=https://registry.npmjs.org/",
                       "//registry.npmjs.org/:_authToken=[REDACTED",
                       "paldron: deny: output exposes a ",
                       "the command itself exited 0",
                       absent=[self.NPM_TOKEN, "deny: .npmrc (secret)"])

    def test_learned_value_is_redacted_from_the_output(self):
        # a token no output pattern knows: only learning the lifted file's
        # values can keep it out of the output
        token = random_token(40)
        self.ws.write(".npmrc", "registry=https://npm.example.com/\n"
                      "//npm.example.com/:_authToken=%s\n" % token)
        r = self.exec(["cat", ".npmrc"], policy_text=self.lifted)
        self.assertNotIn(token, r.both, "the lifted .npmrc's token reached the output: " + repr(r))
        self.assertIn("registry=https://npm.example.com/", r.out, repr(r))
        self.assertNotIn("deny: .npmrc (secret)", r.err, repr(r))

    def test_home_npmrc_stays_a_secret(self):
        # a private home that read_paths makes readable: only the secret rule
        # can keep its .npmrc out, and a relative ".npmrc" must not lift it
        home_npmrc = os.path.join(self.ws.home, ".npmrc")
        with open(home_npmrc, "w") as f:
            f.write("//registry.npmjs.org/:_authToken=%s\n" % self.NPM_TOKEN)
        pol = example_policy(extra='allow_secrets = [".npmrc"]\nread_paths = ["%s"]\n'
                             % self.ws.home)
        env = {"HOME": self.ws.home}
        r = self.exec(["cat", home_npmrc], policy_text=pol, env=env)
        self.assertRun(r, 2, "paldron: deny: %s (secret) [built-in secret: .npmrc] (none: %s is "
                       "a built-in secret outside the workspace)" % (home_npmrc, home_npmrc),
                       absent=[self.NPM_TOKEN])
        # the same file named in code (exec's $HOME is a private one, so by
        # its absolute path): the live gate refuses the open
        r = self.exec(["python3", "-c", "print(open(%r).read())" % home_npmrc], policy_text=pol,
                      env=env)
        self.assertRun(r, 2, "PermissionError",
                       "paldron: deny: python3 read %s (secret .npmrc) [live]" % home_npmrc,
                       absent=[self.NPM_TOKEN])
        # the workspace's own .npmrc is lifted in the same run
        r = self.exec(["sed", "-n", "1p", ".npmrc"], policy_text=pol, env=env)
        self.assertRun(r, 0, "[STDOUT]\nregistry=https://registry.npmjs.org/\n",
                       absent=["paldron: deny"])

    def test_npm_test_with_a_project_npmrc(self):
        if not shutil.which("npm", path=RUN_PATH):
            skip(self, "npm is not installed")
        self.ws.write("package.json", '{"name": "demo", "version": "1.0.0", "scripts": '
                      '{"test": "node -e \\"console.log(\'tests:\', 6 * 7)\\""}}\n')
        binaries = BINARIES[:-1] + ', "sh"]'
        plain = example_policy(binaries=binaries)
        lifted = example_policy(binaries=binaries, extra='allow_secrets = [".npmrc"]\n')
        r = self.exec(["npm", "test"], policy_text=plain)
        self.assertRun(r, 2, "paldron: deny: npm read %s (secret .npmrc) [live]"
                       % self.p(".npmrc"), absent=[self.NPM_TOKEN])
        r = self.exec(["npm", "test"], policy_text=lifted)
        self.assertRun(r, 0, self.warning(), "tests: 42", "[EXIT CODE] 0 (success)",
                       absent=["paldron: deny", self.NPM_TOKEN])


class ProtectedTest(ModelBase):
    def setUp(self):
        super().setUp()
        subprocess.run(["git", "init", "-q", self.ws.path], check=True)
        self.ws.write(".git/hooks/pre-commit", "#!/bin/sh\nexit 0\n", mode=0o755)
        self.ws.write("generated/x", "generated\n")
        self.ws.write(".vscode/settings.json", "{}\n")
        self.ws.write(".idea/workspace.xml", "<project/>\n")

    def write_file(self, rel, policy_text):
        return self.exec(["python3", "-c",
                          "import sys; open(sys.argv[1], 'w').write('pwned')", rel],
                         policy_text=policy_text)

    def test_protected_paths_extends_the_builtins(self):
        # no allow_paths: the whole workspace is writable, so only protection
        # can stop these writes
        pol = example_policy(allow_paths=None, extra='protected_paths = ["generated/**"]\n')
        r = self.write_file("generated/x", pol)
        self.assertRun(r, 2, "PermissionError",
                       "paldron: deny: python3 write generated/x (protected generated/**) [live]")
        self.assertEqual(self.ws.read("generated/x"), "generated\n")
        r = self.write_file(".git/hooks/pre-commit", pol)
        self.assertRun(r, 2, "PermissionError", "paldron: deny: python3 write "
                       ".git/hooks/pre-commit (protected .git/hooks/**) [live]")
        self.assertEqual(self.ws.read(".git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n")
        # an unprotected file of the same workspace is written
        r = self.write_file("notes.txt", pol)
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)", absent=["paldron: deny"])
        self.assertEqual(self.ws.read("notes.txt"), "pwned")

    def test_unprotect_paths_vscode(self):
        pol = example_policy(allow_paths=None, extra='unprotect_paths = [".vscode/**"]\n')
        warning = ("paldron: warning: unprotect_paths removes the built-in protection of "
                   ".vscode/** (%s)" % os.path.realpath(self.ws.policy_path))
        # protected without the key
        r = self.write_file(".vscode/settings.json", example_policy(allow_paths=None))
        self.assertRun(r, 2, "paldron: deny: python3 write .vscode/settings.json (protected "
                       ".vscode/**) [live]", absent=["unprotect_paths removes"])
        self.assertEqual(self.ws.read(".vscode/settings.json"), "{}\n")
        # writable with it, and warned on every run
        for _ in range(2):
            r = self.write_file(".vscode/settings.json", pol)
            self.assertRun(r, 0, warning, "[EXIT CODE] 0 (success)", absent=["paldron: deny"])
            self.assertEqual(r.err.count(warning), 1, repr(r))
        self.assertEqual(self.ws.read(".vscode/settings.json"), "pwned")
        # the other built-ins stay
        r = self.write_file(".idea/workspace.xml", pol)
        self.assertRun(r, 2, warning, "(protected .idea/**)")
        self.assertEqual(self.ws.read(".idea/workspace.xml"), "<project/>\n")
        r = self.write_file(".git/hooks/pre-commit", pol)
        self.assertRun(r, 2, "(protected .git/hooks/**)")

    def test_unprotect_paths_bad_entry(self):
        text = example_policy(allow_paths=None) + 'unprotect_paths = [".vscode/"]\n'
        line = text.count("\n")
        r = self.exec(["true"], policy_text=text)
        self.assertRun(
            r, 1,
            "paldron: policy malformed: unprotect_paths entry '.vscode/' is not a built-in "
            "protected path (they are: .git, .git/hooks/**, .git/config, .git/config.worktree, "
            ".git/commondir, .gitmodules, .claude/**, .codex/**, .mcp.json, .vscode/**, .idea/**) (%s:%d)"
            % (os.path.realpath(self.ws.policy_path), line),
            absent=["[EXIT CODE]", "unprotect_paths removes"])
        self.assertEqual(len(r.err.strip().splitlines()), 1, repr(r))


if __name__ == "__main__":
    main()
