"""Every documented example command, run and compared with what the docs say.

The ```console blocks of README.md, docs/*.md and examples/**/*.md are
transcripts (the convention: docs_blocks.py and tests/integration/README.md,
"Documented examples"). Each runs in a scratch project as the unprivileged
test user with the paldron under test on PATH; every command's output (stdout
and stderr, in terminal order) must be what the block shows. A document whose
text no longer matches the binary fails here, with a diff."""

import re
import unittest

import docs_blocks
from harness import PaldronTest, main, skip, unprivileged_user


class ConventionTest(unittest.TestCase):
    """The matcher and the parser themselves: a wrong transcript must fail."""

    def test_wildcards(self):
        m = docs_blocks.output_matches
        self.assertTrue(m(["a", "...", "z"], ["a", "b", "c", "z"]))
        self.assertTrue(m(["a", "...", "z"], ["a", "z"]))
        self.assertTrue(m(["1 passed in ...s"], ["1 passed in 0.02s"]))
        self.assertTrue(m(["x", ""], ["x   "]))
        self.assertFalse(m(["a", "z"], ["a", "b", "z"]))
        self.assertFalse(m(["paldron: deny: .env (secret)"],
                           ["paldron: deny: .env (policy deny_glob)"]))
        self.assertFalse(m(["a"], []))
        self.assertFalse(m(["1 passed in ...s"], ["1 failed in 0.02s"]))
        self.assertTrue(m(["..."], ["a", "b"]))

    def test_update_keeps_wildcards(self):
        # what --update writes: the documented head and tail as they were,
        # the actual lines between; it always matches the actual output
        a = docs_blocks.aligned_actual
        self.assertEqual(a(["x", "...", "old", "end ...s"], ["x", "1", "2", "new", "end 0.1s"]),
                         ["x", "...", "new", "end ...s"])
        for exp, act in ((["a", "...", "z"], ["a", "b", "c", "y"]),
                         (["p", "q"], []), ([], ["r"]), (["..."], ["s", "t"])):
            self.assertTrue(docs_blocks.output_matches(a(exp, act), act), (exp, act))
        d = docs_blocks.diff_text(["x", "...", "old"], ["x", "1", "new"])
        self.assertIn("-old\n+new", d)
        self.assertNotIn("\n+1\n", d + "\n")

    def test_parse(self):
        import os
        import tempfile
        text = ("# t\n\n<!-- docs-test\nproject: examples/paldron-exec\n"
                "file .env: A=1\\nB=2\n-->\n```console\n$ echo hi\nhi\n$ false\n$ echo $?\n1\n"
                "```\n\n```toml\nk = 1\n```\n"
                "<!-- docs-test: file p.toml from the toml block above; needs: sh -->\n"
                "```console\n$ cat p.toml \\\n  /dev/null\nk = 1\n```\n")
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "x.md"), "w") as f:
                f.write(text)
            blocks = docs_blocks.parse_doc("x.md", d)
            self.assertEqual(len(blocks), 2)
            b0, b1 = blocks
            self.assertEqual(b0.line, 7)
            self.assertEqual([(s.command, s.expected) for s in b0.steps],
                             [("echo hi", ["hi"]), ("false", []), ("echo $?", ["1"])])
            self.assertEqual(b0.directives, [("project", "examples/paldron-exec"),
                                             ("file", ".env: A=1\\nB=2")])
            self.assertEqual(b1.directives, [("file", "p.toml from the toml block above"),
                                             ("needs", "sh")])
            self.assertEqual(b1.above["toml"], "k = 1\n")
            self.assertEqual(b1.steps[0].command, "cat p.toml \\\n  /dev/null")
            for bad in ("<!-- docs-test\nbogus: 1\n-->\n```console\n$ true\n```\n",
                        "<!-- docs-test: skip: x -->\n```sh\ntrue\n```\n",
                        "```console\noutput first\n$ true\n```\n"):
                with open(os.path.join(d, "x.md"), "w") as f:
                    f.write(bad)
                with self.assertRaises(docs_blocks.DocsError):
                    docs_blocks.parse_doc("x.md", d)

    def test_a_wrong_transcript_fails(self):
        # the runner, not only the matcher: a documented line the command
        # does not print is a failure with a diff
        if unprivileged_user() is None:
            skip(self, "cannot create the unprivileged test user (not root)")
        block = docs_blocks.Block("x.md", 1, [
            docs_blocks.Step("echo /home/me/proj; pwd", ["/home/me/proj", "/home/me/proj"], 2),
            docs_blocks.Step("paldron --bogus-flag; echo $?", ["1"], 4),
            docs_blocks.Step("echo one", ["two"], 6)])
        scratch = docs_blocks.Scratch()
        try:
            results = scratch.run_block(block)
        finally:
            scratch.close()
        self.assertTrue(results[0].ok, results[0])
        self.assertFalse(results[1].ok)  # paldron's usage line is not documented
        self.assertEqual(docs_blocks._trim(results[1].output)[-1], "1")
        self.assertFalse(results[2].ok)
        self.assertIn("-two\n+one", docs_blocks.report(block, results))


class DocsExamplesTest(PaldronTest):
    def setUp(self):
        if unprivileged_user() is None:
            skip(self, "cannot create the unprivileged test user (not root)")


def _add_doc_test(rel):
    def test(self):
        blocks = docs_blocks.parse_doc(rel)
        failures, skipped = docs_blocks.run_doc_blocks(blocks)
        for s in skipped:
            print("SKIP %s: block %s" % (self.id(), s))
        if failures:
            self.fail("\n\n" + "\n\n".join(failures))
        if skipped and len(skipped) == len(blocks):
            skip(self, "every block of %s is skipped" % rel)
    name = "test_" + re.sub(r"\W+", "_", rel)
    test.__name__ = name
    setattr(DocsExamplesTest, name, test)


def _documents():
    docs = []
    for rel in docs_blocks.doc_paths():
        try:
            if docs_blocks.parse_doc(rel):
                docs.append(rel)
        except docs_blocks.DocsError:
            docs.append(rel)  # its test fails with the parse error
    return docs


for _rel in _documents():
    _add_doc_test(_rel)


if __name__ == "__main__":
    main()
