"""The first hour of a new user, as the docs tell it: the README's quickstart
and docs/policy.md's first example, followed verbatim.

The commands and their expected output are read from the docs at test time
(docs_blocks.py): nothing here repeats them. What this adds to
test_docs_examples.py: the quickstart demo also from an install tree (what
`cmake --install` puts in share/doc/paldron/examples), the policy of the
first example is the README's, and the first example's project is one whose
tests and node script work bare, so that what the docs show comes from
Paldron, not from the project."""

import os
import re
import shutil
import subprocess
import tempfile

import docs_blocks
from harness import BINARY_DIR, PaldronTest, SOURCE_DIR, main, skip, unprivileged_user


def section(rel, title):
    """The text of a "## title" section of a document."""
    with open(os.path.join(SOURCE_DIR, rel), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## %s\n(.*?)(?=^## |\Z)" % re.escape(title), text, re.M | re.S)
    if not m:
        raise AssertionError("%s has no section %r" % (rel, title))
    return m.group(1)


def fenced(text, lang):
    """The fenced blocks of one language in text, in order."""
    return re.findall(r"^```%s\n(.*?)^```" % lang, text, re.M | re.S)


def policy_keys(toml):
    """key -> value text of a policy, comments and spacing aside."""
    keys = {}
    for line in toml.splitlines():
        line = re.sub(r"\s+#.*$", "", line).strip()
        if line and not line.startswith("#"):
            k, _, v = line.partition("=")
            keys[k.strip()] = re.sub(r"\s+", "", v)
    return keys


class FirstHourTest(PaldronTest):
    def setUp(self):
        if unprivileged_user() is None:
            skip(self, "cannot create the unprivileged test user (not root)")

    def quickstart_block(self):
        """The README's quickstart command and the console block showing its output."""
        commands = [l.split("#")[0].strip() for l in fenced(section("README.md", "Quickstart"),
                                                            "sh")[0].splitlines()]
        demo = commands[0]
        self.assertEqual(demo, "examples/demo.sh", "the quickstart's first command changed")
        blocks = [b for b in docs_blocks.parse_doc("README.md")
                  if b.steps[0].command == demo]
        self.assertEqual(len(blocks), 1, "want one console block showing `$ %s`" % demo)
        return blocks[0]

    def run_block(self, block, scratch):
        scratch.setup(block)
        results = scratch.run_block(block)
        text = docs_blocks.report(block, results)
        if text:
            self.fail("\n" + text)
        return results

    def test_quickstart_from_a_clone(self):
        # a scratch copy of what the demo needs from the clone, as root (as
        # the README says); the built paldron instead of tests/setup.sh's
        block = self.quickstart_block()
        self.assertEqual(block.directive("as root"), [""], "the README says: as root")
        scratch = docs_blocks.Scratch(as_root=True)
        try:
            self.run_block(block, scratch)
            # the demo ran in a copy: the clone's example is untouched
            self.assertFalse(os.path.lexists(
                os.path.join(scratch.project, "examples/paldron-exec/src/.env")))
        finally:
            scratch.close()

    def test_quickstart_from_an_install(self):
        # `cmake --install` into a scratch prefix, then the installed demo.sh
        # with no clone, no build and no PALDRON: it must find the installed
        # paldron and end as the README says
        if not shutil.which("cmake"):
            skip(self, "cmake is not installed")
        block = self.quickstart_block()
        prefix = tempfile.mkdtemp(prefix="paldron-prefix-", dir="/var/tmp")
        try:
            os.chmod(prefix, 0o755)
            r = subprocess.run(["cmake", "--install", BINARY_DIR, "--prefix", prefix],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            self.assertEqual(r.returncode, 0, r.stdout)
            examples = os.path.join(prefix, "share/doc/paldron/examples")
            demo = os.path.join(examples, "demo.sh")
            self.assertTrue(os.access(demo, os.X_OK), "%s is not executable" % demo)
            env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/root"}
            user_env = dict(env, HOME=unprivileged_user().pw_dir)
            for who, cmd, e in (("root", [demo], env),
                                ("an unprivileged user", self.as_user([demo]), user_env)):
                r = subprocess.run(cmd, cwd="/", env=e, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   timeout=300)
                out = r.stdout.split("\n")
                self.assertTrue(docs_blocks.output_matches(block.steps[0].expected, out),
                                "installed demo.sh as %s:\n%s"
                                % (who, docs_blocks.diff_text(block.steps[0].expected, out)))
                self.assertEqual(r.returncode, 2, r.stdout)
                self.assertIn("$ paldron exec --policy policy.toml -- python3 src/leak.py",
                              r.stdout)
            self.assertFalse(os.path.lexists(os.path.join(examples, "paldron-exec/src/.env")))
            # a copy of the examples without paldron anywhere: exit 1, and why
            # (<prefix>/copy/../../../.. is /, and PATH is /usr/bin:/bin)
            if any(os.path.exists(p) for p in ("/bin/paldron", "/usr/bin/paldron")):
                print("SKIP %s: the demo without a paldron: paldron is installed in /usr/bin"
                      % self.id())
                return
            bare = os.path.join(prefix, "copy")
            shutil.copytree(examples, bare, symlinks=True)
            r = subprocess.run([os.path.join(bare, "demo.sh")], env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            self.assertEqual(r.returncode, 1, r.stdout)
            self.assertRegex(r.stdout, r"paldron demo: no paldron binary \(looked for /bin/"
                             r"paldron and on PATH; set PALDRON=/path/to/paldron\)")
        finally:
            shutil.rmtree(prefix, ignore_errors=True)

    def as_user(self, cmd):
        u = unprivileged_user()
        return ["setpriv", "--reuid", str(u.pw_uid), "--regid", str(u.pw_gid),
                "--clear-groups"] + cmd

    def test_policy_first_example(self):
        # docs/policy.md: the first policy, saved as policy.toml in the small
        # project the example names, and the first transcript after it
        blocks = docs_blocks.parse_doc("docs/policy.md")
        first = blocks[0]
        self.assertIn(("file", "policy.toml from the toml block above"), first.directives,
                      "the first example must run the policy shown above it, verbatim")
        with open(os.path.join(SOURCE_DIR, "docs/policy.md"), encoding="utf-8") as f:
            first_toml = fenced(f.read(), "toml")[0]
        self.assertEqual(first.above["toml"], first_toml)
        # the README shows the same policy
        readme_toml = fenced(section("README.md", "Usage"), "toml")[0]
        self.assertEqual(policy_keys(first_toml), policy_keys(readme_toml))
        projects = first.directive("project")
        self.assertEqual(len(projects), 1, "the first example names its project")
        why = docs_blocks.skip_reason(first)
        if why:
            skip(self, why)

        # the project itself is fine: its tests and its node script work bare
        bare = docs_blocks.Scratch()
        try:
            shutil.copytree(os.path.join(SOURCE_DIR, projects[0]), bare.project,
                            dirs_exist_ok=True)
            bare._own()
            for cmd in ("python3 -m pytest -q", "node scripts/build.js"):
                r = bare._sh(cmd, timeout=120)
                self.assertEqual(r.returncode, 0, "bare `%s`: %s" % (cmd, r.stdout))
        finally:
            bare.close()

        scratch = docs_blocks.Scratch()
        try:
            scratch.setup(first)
            before = snapshot(scratch.project)
            results = scratch.run_block(first)
            text = docs_blocks.report(first, results)
            if text:
                self.fail("\n" + text)
            # what the transcript says was refused did not happen: every
            # path a `deny`/`blocked` line says was created is not there,
            # and every file that was there is unchanged
            refused = refused_creations(first)
            self.assertTrue(refused, "the first example shows no refused write")
            for rel in refused:
                self.assertFalse(os.path.lexists(os.path.join(scratch.project, rel)),
                                 "%s was refused but exists" % rel)
            after = snapshot(scratch.project)
            for rel, data in before.items():
                self.assertEqual(after.get(rel), data, "%s changed" % rel)
        finally:
            scratch.close()


def refused_creations(block):
    """Project-relative paths that the block's deny/blocked lines say a
    program tried to create."""
    out = []
    for step in block.steps:
        for line in step.expected:
            m = re.match(r"paldron: (?:deny|blocked): \S+ create (\S+) \(", line)
            if m:
                path = m.group(1)
                if path.startswith(docs_blocks.DOC_PROJECT + "/"):
                    path = path[len(docs_blocks.DOC_PROJECT) + 1:]
                if not path.startswith("/"):
                    out.append(path)
    return out


def snapshot(root):
    """rel path -> content of every file under root."""
    files = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    files[os.path.relpath(p, root)] = f.read()
    return files


if __name__ == "__main__":
    main()
