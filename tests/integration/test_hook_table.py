"""`paldron check --hook` against issue 12's table of PreToolUse payloads
(tests/data/hook_payloads.json): every row is a Claude Code or Codex payload
that must block, be routed (allowed with `updatedInput.command` running the
original under `paldron exec --routed`) or be allowed as it is. Each row is fed
to the real binary in routing mode and, for shell calls, in `--no-route` mode;
the exit code, the stderr line and the stdout JSON are checked.

Also home of the table loader and the scratch project that
test_hook_routed_run.py runs the routed and allowed rows in."""

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import unittest

from harness import (PALDRON, RUN_PATH, SOURCE_DIR, WORK_BASE, PaldronTest, Result, main, skip,
                     unprivileged_user, wrapped)

TABLE = os.path.join(SOURCE_DIR, "tests", "data", "hook_payloads.json")
UNJUDGED = "cannot judge statically"
# The clients' shell tools: their allowed calls are routed (policy/gate_agent.h).
SHELL_TOOLS = ("Bash", "shell", "exec_command", "local_shell", "container.exec")
CLASSES = ("literal", "no-path-word", "allowed-program-side-effect", "data-as-code",
           "variables-cd", "tool-gate", "false-alarm", "client-shape", "broken-input", "everyday")


def load_table():
    with open(TABLE) as f:
        return json.load(f)


def shq(text):
    """text quoted for bash the way the router must quote it."""
    return "'" + text.replace("'", "'\\''") + "'"


def is_shell(row):
    return row["tool_name"] in SHELL_TOOLS


def substitute(value, subs):
    """value with every @NAME@ placeholder replaced, at any depth."""
    if isinstance(value, str):
        for k, v in subs.items():
            value = value.replace(k, v)
        return value
    if isinstance(value, list):
        return [substitute(v, subs) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, subs) for k, v in value.items()}
    return value


class Project:
    """A scratch project owned by the test user, the way an agent finds one:
    src/ (the writable root), README.md, secrets holding canary strings (.env,
    .env.local, certs/dev.pem; one more is the API key in the environment of
    every command), a git repository with a commit, a remote and a
    non-executable .git/hooks/pre-commit, one policy file per policy of the
    table (.paldron-<name>.toml), and a folder outside it. copy() makes a fresh
    copy for one row, so that rows cannot disturb each other."""

    def __init__(self, table):
        self.user = unprivileged_user()
        if self.user is None:
            raise unittest.SkipTest("cannot create the unprivileged test user (not root)")
        # .env, .env.local, certs/dev.pem and the API key in the environment
        self.canaries = ["PLDR_CANARY_" + secrets.token_hex(8) for _ in range(4)]
        self.root = tempfile.mkdtemp(prefix="paldron-hooktable-", dir=WORK_BASE)
        os.chmod(self.root, 0o755)
        self.cache = os.path.join(self.root, "cache")
        os.mkdir(self.cache)
        self.template = os.path.join(self.root, "template")
        self._make_template(table)
        self.copies = 0

    def _make_template(self, table):
        base = self.template
        ws = os.path.join(base, "ws")
        files = {
            "src/a.txt": "hello\nworld\n",
            "src/a.json": '{"b": 1, "a": [1, 2]}\n',
            "src/tool.py": "print('tool ok')\n",
            "src/build.sh": "echo built\n",
            "src/env.sh": "GREETING=hi\n",
            "README.md": "# scratch project\n",
            ".gitignore": ".env\n.env.*\n*.pem\n",
            ".env": "SECRET=%s\n" % self.canaries[0],
            ".env.local": "TOKEN=%s\n" % self.canaries[1],
            "certs/dev.pem": "-----BEGIN PRIVATE KEY-----\n%s\n" % self.canaries[2],
        }
        for name, lines in table["policies"].items():
            files[".paldron-%s.toml" % name] = "\n".join(lines) + "\n"
        for rel, text in files.items():
            p = os.path.join(ws, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        os.makedirs(os.path.join(base, "outside"))
        with open(os.path.join(base, "outside", "x.txt"), "w") as f:
            f.write("outside\n")
        git = ["git", "-C", ws]
        env = {"PATH": RUN_PATH, "HOME": base, "GIT_CONFIG_NOSYSTEM": "1"}
        for args in (["init", "-q", "-b", "main"], ["config", "user.name", "Dev"],
                     ["config", "user.email", "dev@example.invalid"],
                     ["remote", "add", "origin", "https://example.invalid/scratch.git"],
                     ["add", "-A"], ["commit", "-q", "-m", "initial"]):
            subprocess.run(git + args, check=True, env=env, stdout=subprocess.DEVNULL)
        with open(os.path.join(ws, ".git", "hooks", "pre-commit"), "w") as f:
            f.write("#!/bin/sh\necho hook-canary\n")
        # not executable: git commit must not run it, a change to it is what we look for
        os.chmod(os.path.join(ws, ".git", "hooks", "pre-commit"), 0o644)
        self._own(self.root)

    def _own(self, top):
        uid, gid = self.user.pw_uid, self.user.pw_gid
        os.lchown(top, uid, gid)
        for root, dirs, files in os.walk(top):
            for n in dirs + files:
                os.lchown(os.path.join(root, n), uid, gid)

    def copy(self):
        """A fresh copy of the template; returns its base folder (ws/, outside/)."""
        self.copies += 1
        dst = os.path.join(self.root, "r%04d" % self.copies)
        subprocess.run(["cp", "-a", self.template, dst], check=True)
        return dst

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def env(self):
        u = self.user
        env = {"PATH": RUN_PATH, "HOME": u.pw_dir, "USER": u.pw_name, "LOGNAME": u.pw_name,
               "LANG": "C.UTF-8", "XDG_CACHE_HOME": self.cache,
               # what a client's shell inherits: the key of the model's API
               "OPENAI_API_KEY": "sk-" + self.canaries[3]}
        env.update((k, v) for k, v in os.environ.items() if k.endswith("SAN_OPTIONS"))
        return env

    def as_user(self, argv, cwd, input=None, timeout=60):
        """Run argv as the test user in cwd; returns Result."""
        u = self.user
        cmd = ["setpriv", "--reuid", str(u.pw_uid), "--regid", str(u.pw_gid), "--clear-groups"]
        p = subprocess.run(wrapped(cmd + list(argv)), cwd=cwd, env=self.env(), input=input,
                           stdin=None if input is not None else subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        return Result(p.returncode, p.stdout.decode("utf-8", "replace"),
                      p.stderr.decode("utf-8", "replace"))


class Call:
    """One row made concrete in one copy of the project: the payload text,
    the policy, the folder the client runs the command in."""

    def __init__(self, project, base, row, port=9):
        self.project, self.base, self.row = project, base, row
        self.ws = os.path.join(base, "ws")
        self.cwd = os.path.join(self.ws, row.get("cwd", ""))
        if self.cwd.endswith("/"):
            self.cwd = self.cwd[:-1]
        self.subs = {"@P@": self.ws, "@OUT@": os.path.join(base, "outside"),
                     "@HOME@": project.user.pw_dir, "@PORT@": str(port), "@CWD@": self.cwd}
        self.policy = os.path.join(self.ws, ".paldron-%s.toml" % row.get("policy", "issue"))
        self.tool_input = substitute(row.get("tool_input"), self.subs)
        workdir = (self.tool_input or {}).get("workdir") if is_shell(row) else None
        self.run_dir = workdir if isinstance(workdir, str) else self.cwd

    def payload(self):
        row = self.row
        if "raw" in row:
            return substitute(row["raw"], self.subs)
        d = {"session_id": "8f1c2a7e-1d3b-4c55-9a0e-3b6f0d1e2a44"}
        if row["client"] == "codex":
            d.update(session_id="019a7c3e-codex-session", turn_id="turn-3", transcript_path=None,
                     cwd=self.cwd, hook_event_name="PreToolUse", model="gpt-5-codex",
                     permission_mode="bypassPermissions", tool_name=row["tool_name"],
                     tool_input=self.tool_input, tool_use_id="call_7Qx2")
        else:
            d.update(transcript_path="/home/dev/.claude/projects/p/8f1c2a7e.jsonl", cwd=self.cwd,
                     permission_mode="bypassPermissions", hook_event_name="PreToolUse",
                     tool_name=row["tool_name"], tool_input=self.tool_input,
                     tool_use_id="toolu_01ABCDEF")
        return json.dumps(d)

    def hook(self, no_route=False):
        args = [PALDRON, "check", "--policy", self.policy, "--hook"]
        if no_route:
            args.append("--no-route")
        # the hook runs where the client was started, not in the call's cwd
        return self.project.as_user(args, cwd=self.base, input=self.payload().encode(), timeout=30)

    def original_command(self):
        cmd = (self.tool_input or {}).get("command")
        return cmd if isinstance(cmd, str) else None


def outcome(r):
    """block / route / allow / broken, from the hook's exit code and stdout."""
    if r.code == 2:
        return "block"
    if r.code != 0:
        return "broken"
    if not r.out.strip():
        return "allow"
    try:
        out = json.loads(r.out)["hookSpecificOutput"]
    except (ValueError, KeyError, TypeError):
        return "broken"
    return "route" if "updatedInput" in out else "allow"


def block_problems(call, r, fragment):
    """What is wrong with r as a block (exit 2, one stderr line, deny JSON)."""
    row, probs = call.row, []
    lines = r.err.strip().splitlines()
    if len(lines) != 1:
        probs.append("stderr is not one line")
    elif row["class"] != "broken-input" and not lines[0].startswith(
            "paldron: deny: %s tool call: " % row["tool_name"]):
        probs.append("stderr line is not 'paldron: deny: %s tool call: ...'" % row["tool_name"])
    elif not lines[0].startswith("paldron: "):
        probs.append("stderr line does not start with 'paldron: '")
    try:
        out = json.loads(r.out)["hookSpecificOutput"]
        if out.get("hookEventName") != "PreToolUse" or out.get("permissionDecision") != "deny":
            probs.append("stdout is not a PreToolUse deny")
        reason = out.get("permissionDecisionReason", "")
        if fragment and fragment not in reason:
            probs.append("reason lacks %r" % fragment)
        if "updatedInput" in out:
            probs.append("a block carries updatedInput")
    except (ValueError, KeyError, TypeError, AttributeError):
        probs.append("stdout is not the deny JSON")
    if fragment and fragment not in r.err:
        probs.append("stderr lacks %r" % fragment)
    return probs


def route_problems(call, r):
    """What is wrong with r as a routed allow; on success also returns the
    rewritten command."""
    probs = []
    try:
        out = json.loads(r.out)["hookSpecificOutput"]
    except (ValueError, KeyError, TypeError):
        return ["stdout is not one hookSpecificOutput JSON object"], None
    if out.get("hookEventName") != "PreToolUse" or out.get("permissionDecision") != "allow":
        probs.append("not a PreToolUse allow")
    if not isinstance(out.get("permissionDecisionReason"), str):
        probs.append("no permissionDecisionReason string")
    ui = out.get("updatedInput")
    if not isinstance(ui, dict):
        return probs + ["updatedInput is not an object"], None
    for k, v in (call.tool_input or {}).items():
        if k not in ui:
            probs.append("updatedInput lost key %r" % k)
        elif k != "command" and ui[k] != v:
            probs.append("updatedInput changed key %r" % k)
    cmd = ui.get("command")
    if not isinstance(cmd, str):
        return probs + ["updatedInput.command is not a string"], None
    exe = shq(os.path.realpath(PALDRON)) + " "
    if not cmd.startswith(exe):
        probs.append("command does not start with the quoted absolute paldron %s" % exe)
    for frag in (" exec ", " --routed ", " --policy %s " % shq(os.path.realpath(call.policy)),
                 " --workspace %s " % shq(os.path.realpath(call.ws))):
        if frag not in cmd:
            probs.append("command lacks %r" % frag.strip())
    original = call.original_command()
    if original is not None and (" -- " + shq(original)) not in cmd:
        probs.append("command lacks -- and the original quoted for bash")
    return probs, cmd


def judge(call, r, expected, fragment=None, no_route=False):
    """Problems of hook result r against expected (block / route / allow /
    either); [] when it is right. no_route: the static-only mode, whose
    load-time warning may add stderr lines."""
    got = outcome(r)
    row = call.row
    if expected == "either":
        expected = got if got in ("allow", "block") else "allow"
        if expected == "block":
            fragment = UNJUDGED
    if got != expected:
        return ["expected %s, got %s" % (expected, got)]
    static_only = no_route or row.get("policy") == "noroute"
    if static_only:
        r = Result(r.code, r.out, "\n".join(
            line for line in r.err.splitlines() if not line.startswith("paldron: warning")))
    if got == "block":
        return block_problems(call, r, fragment)
    if got == "route":
        return route_problems(call, r)[0]
    probs = []
    if r.out.strip():
        # only a shell call that is not routed (Codex's apply_patch) may
        # carry an allow JSON, and never updatedInput
        if not (is_shell(row) and not static_only):
            probs.append("allow printed %r on stdout" % r.out[:200])
    if r.err.strip():
        probs.append("allow with stderr %r" % r.err[:200])
    return probs


def default_problems(call, r):
    """The row's verdict in the default (routing) mode, allowing its accept list."""
    row = call.row
    got = outcome(r)
    if got != row["expected"] and got in row.get("accept", ()):
        return judge(call, r, got)
    return judge(call, r, row["expected"], row.get("reason"))


def no_route_expectation(row):
    """(expected, fragment) of a shell row under --no-route, or None. A block
    stays a block (without its fragment when the routing mode may route it);
    a route becomes the row's no_route."""
    if not is_shell(row) or "raw" in row or row["class"] == "broken-input":
        return None
    if row["expected"] == "block":
        return "block", None if row.get("accept") else row.get("reason")
    if row["expected"] == "route":
        want = row.get("no_route", "block")
        # a row the routing mode may also block literally keeps that reason
        literal = "block" in row.get("accept", ())
        return want, UNJUDGED if want == "block" and not literal else None
    return row["expected"], row.get("reason")


def evidence(r):
    return "exit %d; stdout %r; stderr %r" % (r.code, r.out[:600], r.err[:600])


class HookTableTest(PaldronTest):
    @classmethod
    def setUpClass(cls):
        cls.table = load_table()
        cls.rows = cls.table["rows"]
        try:
            cls.project = Project(cls.table)
        except unittest.SkipTest as e:
            cls.project = None
            cls.why = str(e)
            return
        cls.base = cls.project.copy()

    @classmethod
    def tearDownClass(cls):
        if cls.project:
            cls.project.close()

    def setUp(self):
        if self.project is None:
            skip(self, self.why)

    def call(self, row):
        return Call(self.project, self.base, row)

    def test_table_shape(self):
        """At least 150 rows, unique ids, every class, every field known."""
        self.assertGreaterEqual(len(self.rows), 150)
        ids = [r["id"] for r in self.rows]
        self.assertEqual(len(ids), len(set(ids)), "duplicate ids")
        self.assertEqual(set(CLASSES), {r["class"] for r in self.rows})
        self.assertGreaterEqual(sum(1 for r in self.rows if r.get("issue")), 45,
                                "the examples named in issue 12")
        known = {"id", "class", "client", "tool_name", "tool_input", "raw", "expected", "reason",
                 "accept", "no_route", "bare", "run", "compare", "issue", "note", "cwd", "policy"}
        for r in self.rows:
            with self.subTest(row=r["id"]):
                self.assertLessEqual(set(r) - known, set(), "unknown fields")
                self.assertIn(r["expected"], ("block", "route", "allow"))
                self.assertIn(r["client"], ("claude", "codex"))
                self.assertTrue(("tool_input" in r) != ("raw" in r))
                self.assertIn(r.get("policy", "issue"),
                              list(self.table["policies"]) + ["missing"])
                if r["expected"] == "route":
                    self.assertTrue(is_shell(r), "only shell calls are routed")
                    self.assertIn(r.get("no_route"), ("allow", "block", "either"))

    def test_default_mode(self):
        """Every row in the routing mode: block, route or allow as the table says."""
        failed = []
        for row in self.rows:
            with self.subTest(row=row["id"]):
                call = self.call(row)
                r = call.hook()
                probs = default_problems(call, r)
                if probs:
                    failed.append(row["id"])
                self.assertEqual(probs, [], evidence(r))
        if failed:
            print("\nrouting mode: %d row(s) failed: %s" % (len(failed), " ".join(failed)),
                  file=sys.stderr)

    def test_no_route_mode(self):
        """Every shell row under --no-route: what the gate cannot judge is
        blocked, a fully allowed call is allowed as it is, a block stays a block."""
        failed = []
        for row in self.rows:
            want = no_route_expectation(row)
            if want is None:
                continue
            with self.subTest(row=row["id"]):
                call = self.call(row)
                r = call.hook(no_route=True)
                probs = judge(call, r, want[0], want[1], no_route=True)
                if probs:
                    failed.append(row["id"])
                self.assertEqual(probs, [], evidence(r))
        if failed:
            print("\n--no-route: %d row(s) failed: %s" % (len(failed), " ".join(failed)),
                  file=sys.stderr)

    def test_broken_inputs_never_route(self):
        """A broken policy or input is a block under both modes (never route, never exit 1)."""
        for row in self.rows:
            if row["class"] != "broken-input":
                continue
            for no_route in (False, True):
                with self.subTest(row=row["id"], no_route=no_route):
                    r = self.call(row).hook(no_route=no_route)
                    self.assertEqual(outcome(r), "block", evidence(r))


if __name__ == "__main__":
    main()
