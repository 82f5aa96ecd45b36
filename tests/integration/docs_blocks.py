"""Documented commands, read from the docs and run for real.

Every ```console block in README.md, docs/*.md and examples/**/*.md is a
transcript: lines starting with "$ " are commands (a line ending in "\\"
continues on the next), the lines after a command are what it prints
(stdout and stderr as one stream, in the order a terminal shows them).
A hidden HTML comment right before the block sets up the scratch project it
runs in (tests/integration/README.md, "Documented examples"):

    <!-- docs-test
    project: examples/paldron-exec
    file .env: API_KEY=example
    -->

The runner (Scratch.run_block) writes the commands into one `sh` script, so
`cd`, variables and `echo $?` work as in a terminal, runs it in the scratch
project as the unprivileged test user with the paldron under test first on
PATH, and compares each command's output with the documented lines:

- `...` alone on a line stands for any number of lines (also none);
  `...` inside a line for any text within that line;
- the path /home/me/proj, in commands and in output, is the scratch project;
- trailing white space and trailing empty lines are ignored.

test_docs_examples.py runs every block; test_first_hour.py runs the README's
quickstart and docs/policy.md's first example with extra checks.
"""

import glob
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field

from harness import PALDRON, RUN_PATH, SOURCE_DIR, WORK_BASE, chown_tree, unprivileged_user

# The documents whose console blocks are transcripts to check.
DOC_PATTERNS = ("README.md", "docs/*.md", "examples/**/*.md")
# The project path the docs show; the scratch project's path replaces it.
DOC_PROJECT = "/home/me/proj"
# In a directive's value: the paldron under test (absolute path).
PALDRON_TOKEN = "{paldron}"
MARK = "@@docs-test-3b1f@@"


class DocsError(Exception):
    """A block or a directive the runner cannot read (a mistake in the docs)."""


@dataclass
class Step:
    command: str      # as documented (continuations joined with newlines)
    expected: list    # documented output lines
    line: int         # line number of the "$ " line in the document


@dataclass
class Block:
    doc: str          # path relative to the repository
    line: int         # line number of the opening fence
    steps: list
    directives: list = field(default_factory=list)  # (name, value) in order
    above: dict = field(default_factory=dict)       # language -> text of the last block

    @property
    def where(self):
        return "%s:%d" % (self.doc, self.line)

    def directive(self, name):
        return [v for n, v in self.directives if n == name]


def doc_paths(source_dir=SOURCE_DIR):
    """The documents, relative to the repository, in a stable order."""
    seen = []
    for pattern in DOC_PATTERNS:
        for p in sorted(glob.glob(os.path.join(source_dir, pattern), recursive=True)):
            rel = os.path.relpath(p, source_dir)
            if rel not in seen:
                seen.append(rel)
    return seen


FENCE = re.compile(r"^(\s*)(```+)\s*([\w+-]*)\s*$")
DIRECTIVE = re.compile(r"^(project|copy|file|run|env|needs|skip|continue|as root)\b\s*(.*)$")


def _parse_directives(text, where):
    out = []
    for raw in re.split(r"\n|;\s+(?=(?:project|copy|file|run|env|needs|skip|continue|as root)\b)",
                        text):
        line = raw.strip()
        if not line:
            continue
        m = DIRECTIVE.match(line)
        if not m:
            raise DocsError("%s: unknown docs-test directive %r" % (where, line))
        name, value = m.group(1), m.group(2).strip()
        if value.startswith(":"):
            value = value[1:].strip()
        out.append((name, value))
    return out


def _parse_transcript(lines, first_line, where):
    steps = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ ") or line == "$":
            start = first_line + i
            cmd = [line[2:]]
            while cmd[-1].endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd.append(lines[i])
            steps.append(Step("\n".join(cmd), [], start))
        elif not steps:
            if line.strip():
                raise DocsError("%s: output before the first \"$ \" command: %r"
                                % (where, line))
        else:
            steps[-1].expected.append(line)
        i += 1
    if not steps:
        raise DocsError("%s: a console block without a \"$ \" command" % where)
    return steps


def parse_doc(rel, source_dir=SOURCE_DIR):
    """The console blocks of one document, in order."""
    with open(os.path.join(source_dir, rel), encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks = []
    above = {}
    pending = None  # (directives, line) of a docs-test comment waiting for its block
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("<!-- docs-test"):
            start = i + 1
            body = [stripped[len("<!-- docs-test"):].lstrip(":")]
            while "-->" not in body[-1] and i + 1 < len(lines):
                i += 1
                body.append(lines[i])
            if "-->" not in body[-1]:
                raise DocsError("%s:%d: docs-test comment without -->" % (rel, start))
            body[-1] = body[-1].split("-->")[0]
            pending = (_parse_directives("\n".join(body), "%s:%d" % (rel, start)), start)
            i += 1
            continue
        m = FENCE.match(line)
        if m:
            indent, ticks, lang = m.group(1), m.group(2), m.group(3)
            body = []
            j = i + 1
            while j < len(lines):
                close = FENCE.match(lines[j])
                if close and close.group(2) == ticks and not close.group(3):
                    break
                body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
                j += 1
            if lang == "console":
                where = "%s:%d" % (rel, i + 1)
                steps = _parse_transcript(body, i + 2, where)
                block = Block(rel, i + 1, steps, pending[0] if pending else [], dict(above))
                blocks.append(block)
            elif pending:
                raise DocsError("%s:%d: docs-test comment before a ```%s block, not ```console"
                                % (rel, pending[1], lang))
            pending = None
            if lang:
                above[lang] = "\n".join(body) + "\n"
            i = j + 1
            continue
        if stripped and pending:
            raise DocsError("%s:%d: docs-test comment not right before a ```console block"
                            % (rel, pending[1]))
        i += 1
    if pending:
        raise DocsError("%s:%d: docs-test comment at the end of the document" % (rel, pending[1]))
    return blocks


# --- matching -------------------------------------------------------------

def _line_pattern(line):
    if line.strip() == "...":
        return r"(?:[^\n]*\n)*?"
    return ".*?".join(re.escape(part) for part in line.rstrip().split("...")) + r"[ \t]*\n"


def _trim(lines):
    lines = [l.rstrip() for l in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def output_matches(expected, actual):
    """True when the actual lines fit the documented ones (see the module doc)."""
    exp = _trim(expected)
    act = _trim(actual)
    text = "".join(l + "\n" for l in act)
    pattern = "".join(_line_pattern(l) for l in exp)
    return re.fullmatch(pattern, text) is not None


def _lines_consumed(text, end):
    return text[:end].count("\n")


def diff_text(expected, actual):
    """A unified diff of the documented lines against the actual ones, where
    the actual lines that the documented head and tail (wildcards included)
    account for are shown as documented, so that only the real difference
    stands out."""
    import difflib
    return "\n".join(difflib.unified_diff(_trim(expected), aligned_actual(expected, actual),
                                          "documented", "actual", lineterm=""))


def aligned_actual(expected, actual):
    """The actual lines, with the parts the documented head and tail account
    for written as documented (wildcards kept): what --update writes."""
    exp, act = _trim(expected), _trim(actual)
    text = "".join(l + "\n" for l in act)
    head, used = 0, 0
    for k in range(len(exp), 0, -1):
        m = re.match("".join(_line_pattern(l) for l in exp[:k]), text)
        if m:
            head, used = k, _lines_consumed(text, m.end())
            break
    rest = act[used:]
    rest_text = "".join(l + "\n" for l in rest)
    tail, tail_from = 0, len(rest)
    for j in range(len(exp) - head, 0, -1):
        m = re.fullmatch(r"((?:[^\n]*\n)*?)" + "".join(_line_pattern(l) for l in exp[-j:]),
                         rest_text)
        if m:
            tail, tail_from = j, _lines_consumed(rest_text, m.end(1))
            break
    middle = rest[:tail_from]
    if head and exp[head - 1].strip() == "..." and middle:
        # a wildcard before the difference takes what the documented lines
        # between head and tail did not stand for
        keep = max(1, len(exp) - head - tail)
        middle = middle[-keep:]
    return exp[:head] + middle + (exp[len(exp) - tail:] if tail else [])


# --- running ----------------------------------------------------------------

@dataclass
class StepResult:
    step: Step
    output: list   # actual lines, the project path written as DOC_PROJECT
    status: int    # the command's exit status (None: the script ended before it)

    @property
    def ok(self):
        return self.status is not None and output_matches(self.step.expected, self.output)


class Scratch:
    """A scratch project (base/proj) for one or more blocks of one document."""

    def __init__(self, as_root=False):
        self.user = None if as_root else unprivileged_user()
        if not as_root and self.user is None:
            raise DocsError("cannot create the unprivileged test user (not root)")
        self.base = tempfile.mkdtemp(prefix="paldron-docs-", dir=WORK_BASE)
        os.chmod(self.base, 0o755)
        self.project = os.path.join(self.base, "proj")
        os.mkdir(self.project)
        os.mkdir(os.path.join(self.base, "cache"))
        self.bin = os.path.join(self.base, "bin")
        os.mkdir(self.bin)
        os.symlink(os.path.abspath(PALDRON), os.path.join(self.bin, "paldron"))
        self.env_extra = {}

    def close(self):
        shutil.rmtree(self.base, ignore_errors=True)

    def _own(self):
        chown_tree(self.base, self.user)

    def _inside(self, rel, where):
        p = os.path.normpath(os.path.join(self.project, rel))
        if p != self.project and not p.startswith(self.project + "/"):
            raise DocsError("%s: %s is outside the project" % (where, rel))
        return p

    def setup(self, block):
        """Apply the block's directives (files, copies, commands)."""
        for name, value in block.directives:
            if name == "project":
                src = os.path.join(SOURCE_DIR, value)
                if not os.path.isdir(src):
                    raise DocsError("%s: project %s is not a folder of the repository"
                                    % (block.where, value))
                shutil.copytree(src, self.project, dirs_exist_ok=True, symlinks=True)
            elif name == "copy":
                for rel in shlex.split(value):
                    src = os.path.join(SOURCE_DIR, rel)
                    dst = self._inside(rel, block.where)
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    if os.path.isdir(src):
                        shutil.copytree(src, dst, dirs_exist_ok=True, symlinks=True)
                    elif os.path.isfile(src):
                        shutil.copy2(src, dst)
                    else:
                        raise DocsError("%s: copy %s: not in the repository" % (block.where, rel))
            elif name == "file":
                m = re.match(r"^(\S+) from the (\w+) block above$", value)
                if m:
                    path, text = m.group(1), block.above.get(m.group(2))
                    if text is None:
                        raise DocsError("%s: no ```%s block above" % (block.where, m.group(2)))
                else:
                    path, sep, text = value.partition(":")
                    if not sep:
                        raise DocsError("%s: file directive %r: want 'file PATH: TEXT' or "
                                        "'file PATH from the LANG block above'"
                                        % (block.where, value))
                    text = text.strip().replace("\\n", "\n") + "\n"
                dst = self._inside(path.strip(), block.where)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                with open(dst, "w") as f:
                    f.write(text)
            elif name == "env":
                k, sep, v = value.partition("=")
                if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
                    raise DocsError("%s: env directive %r: want NAME=VALUE" % (block.where, value))
                self.env_extra[k] = v.replace(PALDRON_TOKEN, os.path.abspath(PALDRON))
        self._own()
        for value in block.directive("run"):
            r = self._sh(value, timeout=120)
            if r.returncode != 0:
                raise DocsError("%s: setup command %r failed (exit %d): %s"
                                % (block.where, value, r.returncode, r.stdout))

    def env(self):
        env = {"PATH": self.bin + ":" + RUN_PATH, "LANG": "C.UTF-8", "PWD": self.project,
               "XDG_CACHE_HOME": os.path.join(self.base, "cache")}
        if self.user is not None:
            env.update(HOME=self.user.pw_dir, USER=self.user.pw_name, LOGNAME=self.user.pw_name)
        else:
            env.update(HOME="/root", USER="root", LOGNAME="root")
        env.update((k, v) for k, v in os.environ.items() if k.endswith("SAN_OPTIONS"))
        env.update(self.env_extra)
        return env

    def _sh(self, script, timeout):
        cmd = ["sh", "-c", script]
        if self.user is not None:
            cmd = ["setpriv", "--reuid", str(self.user.pw_uid), "--regid",
                   str(self.user.pw_gid), "--clear-groups"] + cmd
        return subprocess.run(cmd, cwd=self.project, env=self.env(), stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=timeout, text=True, errors="replace")

    def run_block(self, block, timeout=600):
        """Run the block's commands in one shell; one StepResult per command."""
        # the mark returns the command's status, so that `echo $?` sees it
        parts = ["docs_test_mark() { printf '\\n%s %%d %%d\\n' \"$1\" \"$2\"; return \"$2\"; }"
                 % MARK, "cd %s || exit 99" % shlex.quote(self.project)]
        for n, step in enumerate(block.steps):
            parts.append(step.command.replace(DOC_PROJECT, self.project))
            parts.append("docs_test_mark %d $?" % n)
        self._own()
        r = self._sh("\n".join(parts) + "\n", timeout)
        text = r.stdout.replace(self.project, DOC_PROJECT)
        results = []
        rest = text
        for n, step in enumerate(block.steps):
            m = re.search(r"\n?%s %d (\d+)\n" % (re.escape(MARK), n), rest)
            if not m:
                results.append(StepResult(step, rest.split("\n"), None))
                rest = ""
                continue
            results.append(StepResult(step, rest[:m.start()].split("\n"), int(m.group(1))))
            rest = rest[m.end():]
        return results


def skip_reason(block):
    """Why the block cannot run here, or None."""
    for why in block.directive("skip"):
        return why or "marked skip"
    for value in block.directive("needs"):
        for prog in value.split():
            if shutil.which(prog, path=RUN_PATH) is None:
                return "%s is not installed" % prog
    return None


def report(block, results):
    """The failures of a block as one readable text, or "" when it passed."""
    out = []
    for res in results:
        if res.ok:
            continue
        if res.status is None:
            out.append("%s:%d: `%s` did not finish (the script stopped before it)"
                       % (block.doc, res.step.line, res.step.command))
        else:
            out.append("%s:%d: `%s` (exit %d) printed what the docs do not say:\n%s"
                       % (block.doc, res.step.line, res.step.command, res.status,
                          diff_text(res.step.expected, res.output)))
    return "\n\n".join(out)


def run_doc_blocks(blocks, log=print):
    """Run blocks of one document in order (a `continue` block reuses the
    previous scratch project). Returns (failures, skipped) as lists of text."""
    failures, skipped = [], []
    scratch = None
    try:
        for block in blocks:
            why = skip_reason(block)
            if why:
                skipped.append("%s: %s" % (block.where, why))
                continue
            as_root = bool(block.directive("as root"))
            if not block.directive("continue") or scratch is None:
                if scratch:
                    scratch.close()
                scratch = Scratch(as_root=as_root)
            try:
                scratch.setup(block)
                results = scratch.run_block(block)
            except DocsError as e:
                failures.append(str(e))
                continue
            text = report(block, results)
            if text:
                failures.append(text)
            log("%s: %d command(s), %s" % (block.where, len(results),
                                           "FAILED" if text else "ok"))
    finally:
        if scratch:
            scratch.close()
    return failures, skipped


def update_doc(rel, failing, source_dir=SOURCE_DIR):
    """Write the actual output of the failing steps (StepResult) into the
    document, keeping the documented head and tail and their wildcards.
    Returns the number of steps rewritten."""
    path = os.path.join(source_dir, rel)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    done = 0
    for res in sorted(failing, key=lambda r: -r.step.line):
        if res.status is None:
            continue
        first = res.step.line - 1 + res.step.command.count("\n") + 1  # after the command
        n = len(_trim(res.step.expected))
        indent = re.match(r"\s*", lines[res.step.line - 1]).group(0)
        new = [(indent + l).rstrip() for l in aligned_actual(res.step.expected, res.output)]
        lines[first:first + n] = new
        done += 1
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return done


def _main(argv):
    """python3 docs_blocks.py [--update] [DOC...]: run the blocks of the
    documents (default: all) and report; --update writes what the binary
    printed into the failing steps (read the diff before committing it)."""
    update = "--update" in argv
    docs = [a for a in argv if a != "--update"] or doc_paths()
    status = 0
    for rel in docs:
        failing = []
        scratch = None
        try:
            for block in parse_doc(rel):
                why = skip_reason(block)
                if why:
                    print("SKIP %s: %s" % (block.where, why))
                    continue
                if not block.directive("continue") or scratch is None:
                    if scratch:
                        scratch.close()
                    scratch = Scratch(as_root=bool(block.directive("as root")))
                scratch.setup(block)
                results = scratch.run_block(block)
                text = report(block, results)
                if text:
                    print(text + "\n")
                    status = 1
                failing += [r for r in results if not r.ok]
        finally:
            if scratch:
                scratch.close()
        if update and failing:
            print("%s: %d step(s) rewritten" % (rel, update_doc(rel, failing)))
    return status


if __name__ == "__main__":
    import sys
    sys.exit(_main(sys.argv[1:]))
