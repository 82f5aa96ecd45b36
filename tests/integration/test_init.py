"""`paldron init claude-code|codex`: the real binary in a scratch project and
home (HOME, CODEX_HOME and PATH of its own: the real ~/.claude and ~/.codex are
never touched).

Checked: a fresh setup (starter policy with the README's values, the hook
with absolute paths and `|| exit 2`), merging into settings that hold other
hooks and keys (every other byte kept), an old Paldron hook rewritten in place
and duplicates removed, idempotence, --dry-run (diffs that apply to exactly
what a real run writes; nothing written), --user, --no-route,
--policy-from-git-root, broken JSON / TOML (exit 1 naming file and line,
nothing written), and Codex's trust (--trust) against the real codex from
tests/clients/install.sh's cache (SKIP when it is not there).

The helpers at the top are shared with test_doctor.py.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from harness import PALDRON, RUN_PATH, WORK_BASE, Result, skip, wrapped

CLIENTS_DIR = os.environ.get("PALDRON_CLIENTS_DIR") or "/var/cache/paldron-clients"
PALDRON_REAL = os.path.realpath(PALDRON)


def hook_line(policy=None, from_git_root=False, no_route=False):
    """The hook command init writes (launcher/init/init_command.c)."""
    line = "'%s' check" % PALDRON_REAL
    line += " --policy-from-git-root" if from_git_root else " --policy '%s'" % policy
    line += " --hook"
    if no_route:
        line += " --no-route"
    return line + " || exit 2"


def hooks_json(command, matcher="*", timeout=30):
    return {"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [
        {"type": "command", "command": command, "timeout": timeout}]}]}}


class Setup:
    """A git project and a home in /var/tmp; paldron runs with them."""

    def __init__(self, git=True):
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="paldron-init-", dir=WORK_BASE))
        os.chmod(self.base, 0o755)
        self.home = os.path.join(self.base, "home")
        self.proj = os.path.join(self.base, "proj")
        self.bin = os.path.join(self.base, "bin")
        self.codex_home = os.path.join(self.base, "codex-home")
        for d in (self.home, self.proj, self.bin, self.codex_home):
            os.makedirs(d)
        if git:
            subprocess.run(["git", "init", "-q", self.proj], check=True)
        self.policy = os.path.join(self.proj, ".paldron.toml")

    def close(self):
        shutil.rmtree(self.base, ignore_errors=True)

    def path(self, rel, root=None):
        return os.path.join(root or self.proj, rel)

    def write(self, rel, text, root=None):
        p = self.path(rel, root)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
        return p

    def read(self, rel, root=None):
        with open(self.path(rel, root)) as f:
            return f.read()

    def exists(self, rel, root=None):
        return os.path.lexists(self.path(rel, root))

    def fake_client(self, program, version):
        """A `claude` / `codex` on PATH that only answers --version."""
        p = os.path.join(self.bin, program)
        with open(p, "w") as f:
            f.write("#!/bin/sh\n[ \"$1\" = --version ] && echo '%s' && exit 0\nexit 3\n" % version)
        os.chmod(p, 0o755)

    def env(self, extra=None, path_first=()):
        env = {"PATH": ":".join(list(path_first) + [self.bin, RUN_PATH]), "HOME": self.home,
               "CODEX_HOME": self.codex_home, "LANG": "C.UTF-8", "USER": "root"}
        env.update((k, v) for k, v in os.environ.items() if k.endswith("SAN_OPTIONS"))
        for k, v in (extra or {}).items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        return env

    def run(self, args, cwd=None, env=None, path_first=(), timeout=180):
        p = subprocess.run(wrapped([PALDRON] + list(args)), cwd=cwd or self.proj,
                           env=self.env(env, path_first), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        return Result(p.returncode, p.stdout.decode("utf-8", "replace"),
                      p.stderr.decode("utf-8", "replace"))


def codex_bin_dir(test):
    """The folder of the real codex (install.sh's cache), or SKIP."""
    codex = os.path.join(CLIENTS_DIR, "bin", "codex")
    if not os.access(codex, os.X_OK):
        skip(test, "the real codex is not installed in %s (tests/clients/install.sh %s codex)"
             % (CLIENTS_DIR, CLIENTS_DIR))
    p = subprocess.run([codex, "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env={"PATH": os.path.dirname(codex) + ":" + RUN_PATH}, timeout=60)
    if p.returncode != 0:
        skip(test, "%s --version fails: %s" % (codex, p.stderr.decode(errors="replace")[-200:]))
    return os.path.dirname(codex)


def codex_hooks_list(setup, codex_dir, cwd=None):
    """What `codex app-server` says about the hooks in cwd (the project)."""
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"clientInfo": {"name": "paldron-tests", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "hooks/list",
             "params": {"cwds": [cwd or setup.proj]}}]
    p = subprocess.Popen([os.path.join(codex_dir, "codex"), "app-server"], cwd=cwd or setup.proj,
                         env=setup.env(path_first=[codex_dir]), stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    answer = None
    try:
        for m in msgs:
            p.stdin.write((json.dumps(m) + "\n").encode())
        p.stdin.flush()
        for line in p.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if msg.get("id") == 2:
                answer = msg
                break
    finally:
        p.stdin.close()
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        p.stdout.close()
    return [h for d in answer["result"]["data"] for h in d["hooks"]] if answer else None


_HUNK = re.compile(r"^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$")


def parse_diffs(text):
    """{path: (is_new, [hunk, ...])} of a unified diff; each hunk a list of
    (kind, line-with-its-newline)."""
    files = {}
    lines = text.splitlines(keepends=True)
    k = 0
    while k < len(lines):
        if not lines[k].startswith("--- ") or k + 1 >= len(lines) or \
                not lines[k + 1].startswith("+++ "):
            k += 1
            continue
        old = lines[k][4:].rstrip("\n")
        path = lines[k + 1][4:].rstrip("\n")
        k += 2
        hunks = []
        while k < len(lines) and lines[k].startswith("@@"):
            m = _HUNK.match(lines[k].rstrip("\n"))
            assert m, lines[k]
            k += 1
            body = []
            old_left, new_left = int(m.group(2)), int(m.group(4))
            while k < len(lines) and (old_left or new_left or lines[k].startswith("\\")):
                if lines[k].startswith("\\"):
                    kind, t = body[-1]
                    body[-1] = (kind, t[:-1] if t.endswith("\n") else t)
                else:
                    kind = lines[k][0]
                    assert kind in " -+", lines[k]
                    body.append((kind, lines[k][1:]))
                    old_left -= kind in " -"
                    new_left -= kind in " +"
                k += 1
            hunks.append(((int(m.group(1)), int(m.group(2))), body))
        files[path] = (old == "/dev/null", hunks)
    return files


def apply_diff(old_text, hunks):
    """old_text (None: no file) with the hunks of parse_diffs applied."""
    old = (old_text or "").splitlines(keepends=True)
    out, i = [], 0
    for (start, count), body in hunks:
        first = start - 1 if count else start
        out.extend(old[i:first])
        i = first
        for kind, t in body:
            if kind in " -":
                assert old[i] == t, "context mismatch at old line %d: %r != %r" % (i + 1, old[i], t)
                i += 1
            if kind in " +":
                out.append(t)
    out.extend(old[i:])
    return "".join(out)


def subsequence(small, big):
    """Are the lines of small, in order, all among the lines of big?"""
    it = iter(big.splitlines(keepends=True))
    return all(any(line == b for b in it) for line in small.splitlines(keepends=True))


# ---------------------------------------------------------------------------
# the tests

import tomllib  # noqa: E402 (Python 3.11: the README's policy, parsed)

from harness import README_POLICY, PaldronTest, main  # noqa: E402

OTHER_SETTINGS = """{
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
    "env": {"GREETING": "gr\\u00fc\\u00dfe"},
    "hooks": {
        "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "prettier --write"}]}],
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {"type": "command", "command": "audit-log --bash", "timeout": 5}
                ]
            }
        ]
    },
    "model": "opus"
}
"""


class InitTest(PaldronTest):
    def setUp(self):
        self.s = Setup()
        self.addCleanup(self.s.close)

    def settings(self, rel=".claude/settings.json", root=None):
        return json.loads(self.s.read(rel, root))

    def pre_tool_use(self, rel=".claude/settings.json", root=None):
        return self.settings(rel, root)["hooks"]["PreToolUse"]

    # --- a fresh project ------------------------------------------------------
    def test_fresh_claude_code(self):
        r = self.s.run(["init", "claude-code"])
        self.assertRun(r, 0, "created", self.s.policy, "starter policy",
                       self.s.path(".claude/settings.json"), "paldron doctor claude-code")
        self.assertEqual(self.settings(), hooks_json(hook_line(self.s.policy)))
        self.assertIn("hook command: " + hook_line(self.s.policy), r.out)

    def test_fresh_codex_explains_trust(self):
        r = self.s.run(["init", "codex"])
        self.assertRun(r, 0, self.s.path(".codex/hooks.json"),
                       "Codex runs this hook only after you trust it",
                       "letting\n    Codex run exactly this command before each tool call",
                       '[projects."%s"] trust_level = "trusted"' % self.s.proj,
                       "paldron init codex --trust")
        self.assertEqual(self.settings(".codex/hooks.json"), hooks_json(hook_line(self.s.policy)))
        self.assertFalse(os.path.exists(os.path.join(self.s.codex_home, "config.toml")),
                         "init without --trust wrote Codex's trust")
        self.assertFalse(self.s.exists(".claude"), r)

    def test_starter_policy_is_the_readme_policy_and_loads(self):
        self.assertRun(self.s.run(["init", "claude-code"]), 0)
        text = self.s.read(".paldron.toml")
        self.assertEqual(tomllib.loads(text), tomllib.loads(README_POLICY))
        self.assertIn("docs/policy.md", text)
        for key in tomllib.loads(README_POLICY):
            # every key has a comment right above it
            block = text.split("\n" + key + " =")[0].rstrip().splitlines()
            self.assertTrue(block[-1].startswith("#"), "no comment above %s" % key)
        r = self.s.run(["explain", "--policy", self.s.policy, "src/.env"])
        self.assertRun(r, 2, "deny_glob")

    def test_existing_policy_is_never_overwritten(self):
        self.s.write(".paldron.toml", "allow_paths = [\"lib/\"]\n")
        r = self.s.run(["init", "claude-code"])
        self.assertRun(r, 0, "kept", "never overwrites")
        self.assertEqual(self.s.read(".paldron.toml"), "allow_paths = [\"lib/\"]\n")

    def test_existing_broken_policy_is_kept_with_a_warning(self):
        self.s.write(".paldron.toml", "bogus = 1\n")
        r = self.s.run(["init", "claude-code"])
        self.assertRun(r, 0, "warning: the existing policy does not load",
                       "policy unknown key: bogus")
        self.assertEqual(self.s.read(".paldron.toml"), "bogus = 1\n")

    def test_project_is_the_git_root_around_the_current_directory(self):
        os.makedirs(self.s.path("src/deep"))
        r = self.s.run(["init", "claude-code"], cwd=self.s.path("src/deep"))
        self.assertRun(r, 0, "project %s\n" % self.s.proj)
        self.assertTrue(self.s.exists(".claude/settings.json"), r)
        self.assertFalse(self.s.exists("src/deep/.claude"), r)

    def test_project_option_and_client_name_anywhere(self):
        other = Setup()
        self.addCleanup(other.close)
        for args in (["init", "--project", other.proj, "claude-code"],
                     ["init", "claude-code", "--project", other.proj],
                     ["init", "--dry-run", "claude-code", "--project=" + other.proj]):
            r = self.s.run(args)
            self.assertRun(r, 0, "project %s\n" % other.proj)
        self.assertEqual(self.settings(root=other.proj), hooks_json(hook_line(other.policy)))
        self.assertFalse(self.s.exists(".claude"))

    # --- merging ----------------------------------------------------------------
    def test_merge_keeps_other_hooks_and_keys_byte_for_byte(self):
        self.s.write(".claude/settings.json", OTHER_SETTINGS)
        r = self.s.run(["init", "claude-code"])
        self.assertRun(r, 0, "updated", self.s.path(".claude/settings.json"))
        new = self.s.read(".claude/settings.json")
        # nothing of the old file changed: its lines are all still there, in order
        self.assertTrue(subsequence(OTHER_SETTINGS, new), new)
        doc = json.loads(new)
        old = json.loads(OTHER_SETTINGS)
        for key in ("$schema", "permissions", "env", "model"):
            self.assertEqual(doc[key], old[key])
        self.assertEqual(doc["hooks"]["PostToolUse"], old["hooks"]["PostToolUse"])
        pre = doc["hooks"]["PreToolUse"]
        self.assertEqual(pre[0], old["hooks"]["PreToolUse"][0])
        self.assertEqual(pre[1], hooks_json(hook_line(self.s.policy))["hooks"]["PreToolUse"][0])
        # the new group follows the file's four-space indentation
        self.assertIn('\n            {\n                "matcher": "*",\n', new)

    def test_old_paldron_hook_is_updated_in_place_not_duplicated(self):
        old = {"hooks": {"PreToolUse": [
            {"matcher": "*", "hooks": [
                {"type": "command", "command": "echo before"},
                {"type": "command",
                 "command": "paldron check --policy \"$CLAUDE_PROJECT_DIR/.paldron.toml\" --hook",
                 "timeout": 10, "async": True},
                {"type": "command", "command": "echo after"}]},
            {"matcher": "Bash", "hooks": [
                {"type": "command", "command": "/opt/paldron/bin/paldron check --hook"}]}]}}
        self.s.write(".claude/settings.json", json.dumps(old, indent=2) + "\n")
        self.assertRun(self.s.run(["init", "claude-code"]), 0, "updated")
        pre = self.pre_tool_use()
        self.assertEqual(len(pre), 1, pre)  # the Bash group held only Paldron: gone
        self.assertEqual(pre[0]["hooks"], [
            {"type": "command", "command": "echo before"},
            {"type": "command", "command": hook_line(self.s.policy), "timeout": 30},
            {"type": "command", "command": "echo after"}])

    def test_paldron_hook_alone_in_a_narrow_group_gets_matcher_star(self):
        old = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "paldron check --policy p.toml --hook",
             "timeout": 60}]}]}}
        self.s.write(".claude/settings.json", json.dumps(old) + "\n")
        self.assertRun(self.s.run(["init", "claude-code"]), 0, "updated")
        self.assertEqual(self.pre_tool_use(), [{"matcher": "*", "hooks": [
            {"type": "command", "command": hook_line(self.s.policy), "timeout": 60}]}])

    def test_compact_file_stays_compact(self):
        self.s.write(".claude/settings.json", '{"model": "opus", "hooks": {}}')
        self.assertRun(self.s.run(["init", "claude-code"]), 0)
        new = self.s.read(".claude/settings.json")
        self.assertNotIn("\n", new)
        self.assertTrue(new.startswith('{"model": "opus", "hooks": {"PreToolUse": [{"matcher": '
                                       '"*", "hooks": [{"type": "command", "command": '), new)

    def test_idempotent(self):
        self.s.write(".claude/settings.json", OTHER_SETTINGS)
        self.assertRun(self.s.run(["init", "claude-code"]), 0, "updated")
        settings = self.s.path(".claude/settings.json")
        before = (self.s.read(".claude/settings.json"), os.stat(settings).st_mtime_ns,
                  self.s.read(".paldron.toml"))
        r = self.s.run(["init", "claude-code"])
        self.assertRun(r, 0, "unchanged", "nothing to change", absent=("updated", "created"))
        self.assertEqual((self.s.read(".claude/settings.json"), os.stat(settings).st_mtime_ns,
                          self.s.read(".paldron.toml")), before)

    def test_settings_link_is_followed_and_kept(self):
        target = self.s.write("dotfiles/claude-settings.json", '{"model": "opus"}\n',
                              root=self.s.home)
        os.makedirs(self.s.path(".claude", root=self.s.home))
        link = self.s.path(".claude/settings.json", root=self.s.home)
        os.symlink(target, link)
        self.assertRun(self.s.run(["init", "claude-code", "--user"]), 0)
        self.assertTrue(os.path.islink(link))
        with open(target) as f:
            doc = json.load(f)
        self.assertEqual(doc["model"], "opus")
        self.assertIn("PreToolUse", doc["hooks"])

    def test_file_mode_is_kept(self):
        p = self.s.write(".claude/settings.json", "{}\n")
        os.chmod(p, 0o600)
        self.assertRun(self.s.run(["init", "claude-code"]), 0)
        self.assertEqual(os.stat(p).st_mode & 0o777, 0o600)

    # --- broken input -----------------------------------------------------------
    def assertNothingWritten(self, r, *files):
        self.assertFalse(self.s.exists(".paldron.toml"), "a failed init wrote the policy\n%r" % r)
        for f in files:
            self.assertFalse(os.path.exists(f), "a failed init wrote %s" % f)

    def test_broken_json_names_file_and_line(self):
        broken = '{\n  "model": "opus",\n  "hooks": {"PreToolUse": [1, 2,]}\n}\n'
        p = self.s.write(".claude/settings.json", broken)
        r = self.s.run(["init", "claude-code"])
        self.assertRun(r, 1, "paldron: init: %s:3: " % p, "trailing comma", "nothing written")
        self.assertEqual(self.s.read(".claude/settings.json"), broken)
        self.assertNothingWritten(r)

    def test_not_an_object_where_hooks_go(self):
        for text, line, what in (('[]\n', 1, "not a JSON object"),
                                 ('{\n  "hooks": [1]\n}\n', 2, '"hooks" is not an object'),
                                 ('{"hooks": {"PreToolUse": {}}}\n', 1,
                                  '"PreToolUse" is not an array'),
                                 ('{"a": 1,\n "a": 2}\n', 2, '"a" appears twice')):
            p = self.s.write(".codex/hooks.json", text)
            r = self.s.run(["init", "codex"])
            self.assertRun(r, 1, "%s:%d: " % (p, line), what)
            self.assertEqual(self.s.read(".codex/hooks.json"), text)
            self.assertNothingWritten(r)

    def test_nul_byte_is_refused(self):
        p = self.s.path(".claude/settings.json")
        os.makedirs(os.path.dirname(p))
        with open(p, "wb") as f:
            f.write(b'{"model": "opus"}\0{"hooks": {}}\n')
        r = self.s.run(["init", "claude-code"])
        self.assertRun(r, 1, "%s holds a NUL byte" % p, "nothing written")
        with open(p, "rb") as f:
            self.assertEqual(f.read(), b'{"model": "opus"}\0{"hooks": {}}\n')
        self.assertNothingWritten(r)

    def test_bad_arguments(self):
        for args, msg in ((["init", "--preset", "pyhton"], "unknown preset 'pyhton' (did you mean 'python'?)"),
                          (["init", "cursor"], "unknown client 'cursor'"),
                          (["init", "claude-code", "codex"], "unexpected argument 'codex'"),
                          (["init", "claude-code", "--trust"], "--trust is for codex"),
                          (["init", "claude-code", "--bogus"], "unknown option '--bogus'"),
                          (["init", "codex", "--project", "/nonexistent/x"],
                           "--project /nonexistent/x"),
                          (["init", "codex", "--project"], "--project needs")):
            r = self.s.run(args)
            self.assertRun(r, 1, msg)
        self.assertNothingWritten(None, self.s.path(".codex"), self.s.path(".claude"))

    def test_help(self):
        r = self.s.run(["init", "--help"])
        self.assertRun(r, 0, "usage: paldron init claude-code|codex", "--dry-run", "--trust")

    # --- --dry-run ----------------------------------------------------------------
    def test_dry_run_writes_nothing_and_its_diff_is_what_a_run_writes(self):
        p = self.s.write(".claude/settings.json", OTHER_SETTINGS)
        r = self.s.run(["init", "claude-code", "--dry-run"])
        self.assertRun(r, 0, "--- /dev/null\n+++ %s\n" % self.s.policy,
                       "--- %s\n+++ %s\n" % (p, p), "would create", "would update",
                       "dry run: nothing written")
        self.assertEqual(self.s.read(".claude/settings.json"), OTHER_SETTINGS)
        self.assertFalse(self.s.exists(".paldron.toml"))
        diffs = parse_diffs(r.out)
        self.assertEqual(set(diffs), {self.s.policy, p})
        predicted = {path: apply_diff(None if new else self.s.read(path), hunks)
                     for path, (new, hunks) in diffs.items()}
        self.assertRun(self.s.run(["init", "claude-code"]), 0)
        for path, text in predicted.items():
            with open(path) as f:
                self.assertEqual(f.read(), text, path)
        # and once set up, a dry run has nothing to show
        r = self.s.run(["init", "claude-code", "--dry-run"])
        self.assertRun(r, 0, "nothing to change", absent=("--- ", "+++ "))

    # --- the variants of the hook --------------------------------------------------
    def test_user_claude_code(self):
        r = self.s.run(["init", "claude-code", "--user"])
        user = self.s.path(".claude/settings.json", root=self.s.home)
        self.assertRun(r, 0, user)
        self.assertEqual(self.settings(root=self.s.home),
                         hooks_json(hook_line(from_git_root=True)))
        self.assertFalse(self.s.exists(".claude"), "--user wrote the project's settings")
        self.assertTrue(self.s.exists(".paldron.toml"), "the starter policy is the project's")

    def test_user_claude_config_dir(self):
        cfg = os.path.join(self.s.base, "claude-config")
        r = self.s.run(["init", "claude-code", "--user"], env={"CLAUDE_CONFIG_DIR": cfg})
        self.assertRun(r, 0, os.path.join(cfg, "settings.json"))
        with open(os.path.join(cfg, "settings.json")) as f:
            self.assertEqual(json.load(f), hooks_json(hook_line(from_git_root=True)))
        self.assertFalse(self.s.exists(".claude", root=self.s.home))

    def test_user_codex_respects_codex_home(self):
        r = self.s.run(["init", "codex", "--user"])
        self.assertRun(r, 0, os.path.join(self.s.codex_home, "hooks.json"),
                       "paldron init codex --user --trust", absent=("[projects.",))
        self.assertEqual(self.settings("hooks.json", root=self.s.codex_home),
                         hooks_json(hook_line(from_git_root=True)))
        r = self.s.run(["init", "codex", "--user"], env={"CODEX_HOME": None})
        self.assertRun(r, 0, os.path.join(self.s.home, ".codex", "hooks.json"))

    def test_user_outside_a_git_work_tree_warns(self):
        bare = Setup(git=False)
        self.addCleanup(bare.close)
        r = bare.run(["init", "claude-code", "--user"])
        self.assertRun(r, 0, "warning: %s is in no git work tree" % bare.proj)

    def test_no_route(self):
        self.assertRun(self.s.run(["init", "codex", "--no-route"]), 0, "--no-route")
        self.assertEqual(self.settings(".codex/hooks.json"),
                         hooks_json(hook_line(self.s.policy, no_route=True)))

    def test_policy_from_git_root(self):
        self.assertRun(self.s.run(["init", "claude-code", "--policy-from-git-root"]), 0)
        self.assertEqual(self.settings(), hooks_json(hook_line(from_git_root=True)))
        self.assertTrue(self.s.exists(".paldron.toml"))

    def test_changing_variant_rewrites_the_one_hook(self):
        self.assertRun(self.s.run(["init", "claude-code"]), 0)
        self.assertRun(self.s.run(["init", "claude-code", "--no-route"]), 0, "updated")
        self.assertEqual(self.settings(), hooks_json(hook_line(self.s.policy, no_route=True)))

    def test_paths_with_quotes_and_spaces_are_quoted_for_sh(self):
        odd = os.path.join(self.s.base, "it's a \"proj\" $HOME")
        os.makedirs(odd)
        subprocess.run(["git", "init", "-q", odd], check=True)
        self.assertRun(self.s.run(["init", "claude-code"], cwd=odd), 0)
        cmd = json.loads(self.s.read(".claude/settings.json", root=odd))[
            "hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        # sh reads the policy path back exactly
        out = subprocess.run(["sh", "-c", "set -- " + cmd.replace(" || exit 2", "") +
                              "; printf '%s\\n' \"$4\""], stdout=subprocess.PIPE,
                             env={"PATH": RUN_PATH}).stdout.decode()
        self.assertEqual(out, os.path.join(odd, ".paldron.toml") + "\n", cmd)


class InitCodexTrustTest(PaldronTest):
    """--trust against the real codex (app-server's hooks/list)."""

    CONFIG = ("# my codex settings\n"
              "model = \"gpt-5.5\"  # the default model\n"
              "\n"
              "[features]\n"
              "plugins = false\n"
              "\n"
              "[projects.\"/somewhere/else\"]\n"
              "trust_level = \"trusted\"\n")

    def setUp(self):
        self.s = Setup()
        self.addCleanup(self.s.close)
        self.codex_dir = codex_bin_dir(self)
        self.config = os.path.join(self.s.codex_home, "config.toml")

    def init(self, *args, **kw):
        return self.s.run(["init", "codex"] + list(args), path_first=[self.codex_dir], **kw)

    def config_text(self):
        with open(self.config) as f:
            return f.read()

    def listed(self):
        hooks = codex_hooks_list(self.s, self.codex_dir)
        self.assertIsNotNone(hooks, "codex app-server gave no answer")
        return hooks

    def test_trust_is_written_and_codex_trusts_the_hook(self):
        with open(self.config, "w") as f:
            f.write(self.CONFIG)
        r = self.init("--trust")
        self.assertRun(r, 0, "Codex trust written to %s" % self.config,
                       '[projects."%s"] trust_level = "trusted"' % self.s.proj, "trusted_hash",
                       "Codex now runs exactly this command before each tool call")
        text = self.config_text()
        # every line of the user's file is kept as it was: ours come after
        self.assertTrue(text.startswith(self.CONFIG), text)
        parsed = tomllib.loads(text)
        self.assertEqual(parsed["projects"][self.s.proj], {"trust_level": "trusted"})
        self.assertEqual(parsed["model"], "gpt-5.5")
        hooks = self.listed()
        self.assertEqual(len(hooks), 1, hooks)
        self.assertEqual(hooks[0]["trustStatus"], "trusted", hooks)
        self.assertEqual(hooks[0]["command"], hook_line(self.s.policy))
        self.assertEqual(parsed["hooks"]["state"][hooks[0]["key"]],
                         {"trusted_hash": hooks[0]["currentHash"]})
        # again: nothing changes
        r = self.init("--trust")
        self.assertRun(r, 0, "nothing to change")
        self.assertEqual(self.config_text(), text)

    def test_existing_trust_tables_are_updated_in_place(self):
        hooks_file = self.s.path(".codex/hooks.json")
        key = hooks_file + ":pre_tool_use:0:0"
        config = ("[projects.\"%s\"]\ntrust_level = \"untrusted\"  # set by hand\n\n"
                  "[hooks.state.\"%s\"]\ntrusted_hash = \"sha256:%s\"\n\n[analytics]\n"
                  "enabled = false\n" % (self.s.proj, key, "0" * 64))
        with open(self.config, "w") as f:
            f.write(config)
        self.assertRun(self.init("--trust"), 0)
        text = self.config_text()
        self.assertIn("trust_level = \"trusted\"  # set by hand\n", text)
        self.assertEqual(text.count("[projects."), 1, text)
        self.assertEqual(text.count("[hooks.state."), 1, text)
        self.assertTrue(text.endswith("[analytics]\nenabled = false\n"), text)
        self.assertEqual(self.listed()[0]["trustStatus"], "trusted")

    def test_changed_hook_is_trusted_again(self):
        self.assertRun(self.init("--trust"), 0)
        self.assertRun(self.init("--no-route"), 0, "updated")
        self.assertEqual(self.listed()[0]["trustStatus"], "modified")
        self.assertRun(self.init("--no-route", "--trust"), 0, "Codex trust written")
        self.assertEqual(self.listed()[0]["trustStatus"], "trusted")

    def test_user_hook_trust(self):
        r = self.init("--user", "--trust")
        self.assertRun(r, 0, "trusted_hash", absent=("[projects.",))
        hooks = self.listed()
        self.assertEqual([(h["source"], h["trustStatus"]) for h in hooks], [("user", "trusted")])

    def test_dry_run_trust_diff_is_what_a_run_writes(self):
        with open(self.config, "w") as f:
            f.write(self.CONFIG)
        r = self.init("--trust", "--dry-run")
        self.assertRun(r, 0, "--- %s\n+++ %s\n" % (self.config, self.config),
                       "+trusted_hash = \"sha256:", "dry run: nothing written")
        self.assertEqual(self.config_text(), self.CONFIG)
        self.assertFalse(self.s.exists(".codex"))
        diffs = parse_diffs(r.out)
        predicted = apply_diff(self.CONFIG, diffs[self.config][1])
        self.assertRun(self.init("--trust"), 0)
        self.assertEqual(self.config_text(), predicted)

    def test_broken_config_toml_names_file_and_line(self):
        broken = "model = \"gpt-5.5\"\n[features\nplugins = false\n"
        with open(self.config, "w") as f:
            f.write(broken)
        r = self.init("--trust")
        self.assertRun(r, 1, "%s:2: " % self.config, "nothing written")
        self.assertEqual(self.config_text(), broken)
        self.assertFalse(self.s.exists(".codex"))
        self.assertFalse(self.s.exists(".paldron.toml"))

    def test_table_defined_another_way_is_refused(self):
        odd = "[projects]\n\"%s\".trust_level = \"untrusted\"\n" % self.s.proj
        with open(self.config, "w") as f:
            f.write(odd)
        r = self.init("--trust")
        self.assertRun(r, 1, "%s:2: " % self.config, "dotted keys", "by hand")
        self.assertEqual(self.config_text(), odd)

    def test_codex_missing_writes_nothing(self):
        r = self.s.run(["init", "codex", "--trust"])  # PATH without codex
        self.assertRun(r, 1, "codex is not on PATH", "nothing written")
        self.assertFalse(self.s.exists(".codex"))
        self.assertFalse(os.path.exists(self.config))


if __name__ == "__main__":
    main()
