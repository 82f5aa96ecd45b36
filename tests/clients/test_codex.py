"""The real Codex CLI driving Paldron's PreToolUse hook.

`codex exec --json --dangerously-bypass-approvals-and-sandbox` runs as
paldron-test against openai_stub.py (the Responses API), which answers turn 1
with one scripted call - `exec_command` (Codex's shell tool) or `apply_patch`
(a freeform "custom" tool) - and records every request. The hook lives in the
project's `.codex/hooks.json` as Paldron documents it (absolute paths,
`|| exit 2`); Codex ignores it unless the project is trusted and the hook's
hash is trusted, so every run first asks `codex app-server` (`hooks/list`) for
the hook's key and current hash and saves them as `[hooks.state."KEY"]
trusted_hash` - the state a user's review in the interactive UI saves. Each
test checks what the model was shown as the call's output (the next request
the stub received), that the `.env` canary never reached the stub, and the file
system.
"""

import json
import os
import re
import select
import subprocess
import time

from clientlib import (A_TXT, PALDRON, Run, Scene, Stub, base_env, client,
                       hook_command, require_basics, routing_present, run_in_stub_netns, verbose)
from harness import PaldronTest, main

# A model whose bundled metadata gives it the freeform apply_patch tool;
# with an unknown model name Codex 0.171 offers no apply_patch at all.
MODEL = "gpt-5.5"
ROUTING_MISSING = ("`paldron exec --help` has no --routed: the routing hook of issue 12 is not "
                   "built, so an allowed shell call still runs unsandboxed - this test needs it")
OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")


def toml_str(s):
    return json.dumps(s)  # a JSON string is a valid TOML basic string


class CodexTest(PaldronTest):
    def setUp(self):
        require_basics(self)
        self.codex = client(self, "codex")
        self.scene = Scene()
        self.addCleanup(self.scene.close)
        self.codex_home = os.path.join(self.scene.home, ".codex")
        os.makedirs(self.codex_home)
        self.configure(hook_command(PALDRON, self.scene.policy))

    def configure(self, command):
        hooks = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": command, "timeout": 30}]}]}}
        self.scene.write(".codex/hooks.json", json.dumps(hooks, indent=2) + "\n")

    def write_config(self, stub, hook_state=()):
        """config.toml: the stub as model provider, the project trusted, and
        the given [(key, hash)] hooks trusted. No retries: a stub problem
        must fail the run at once, not after minutes of reconnecting."""
        lines = [
            "model = %s" % toml_str(MODEL),
            'model_provider = "paldron_stub"',
            "",
            "[model_providers.paldron_stub]",
            'name = "Paldron test stub"',
            "base_url = %s" % toml_str(stub.url + "/v1"),
            'wire_api = "responses"',
            'env_key = "OPENAI_API_KEY"',
            "request_max_retries = 0",
            "stream_max_retries = 0",
            "",
            "[features]",
            "unbounded_connection_retries = false",
            "plugins = false",
            "",
            "[analytics]",
            "enabled = false",
            "",
            "[projects.%s]" % toml_str(self.scene.proj),
            'trust_level = "trusted"',
        ]
        for key, digest in hook_state:
            lines += ["", "[hooks.state.%s]" % toml_str(key),
                      "trusted_hash = %s" % toml_str(digest)]
        self.scene.write("config.toml", "\n".join(lines) + "\n", root=self.codex_home)

    def env(self):
        env = base_env(self.scene)
        env.update(CODEX_HOME=self.codex_home, OPENAI_API_KEY="sk-stub", RUST_LOG="error")
        return env

    def listed_hooks(self, stub):
        """`codex app-server` JSON-RPC: initialize, then hooks/list for the
        project. Returns the hook entries (key, currentHash, trustStatus...)."""
        u = self.scene.user
        self.scene.own()
        env = ["%s=%s" % kv for kv in sorted(self.env().items())]
        cmd = (["nsenter", "--target", str(stub.proc.pid), "--net", "--", "setpriv", "--reuid",
                str(u.pw_uid), "--regid", str(u.pw_gid), "--clear-groups", "--", "env", "-i"]
               + env + [self.codex, "app-server"])
        err_path = os.path.join(self.scene.base, "app-server.stderr")
        with open(err_path, "wb") as err:
            p = subprocess.Popen(cmd, cwd=self.scene.proj, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=err)
        seen = []
        try:
            def send(obj):
                p.stdin.write((json.dumps(obj) + "\n").encode())
                p.stdin.flush()

            def answer(want_id, deadline):
                buf = b""
                while time.monotonic() < deadline:
                    r, _, _ = select.select([p.stdout], [], [], 0.5)
                    if not r:
                        continue
                    chunk = os.read(p.stdout.fileno(), 65536)
                    if not chunk:
                        break
                    buf += chunk
                    while b"\n" in buf:
                        line, buf = buf.split(b"\n", 1)
                        seen.append(line.decode(errors="replace"))
                        try:
                            msg = json.loads(line)
                        except ValueError:
                            continue
                        if msg.get("id") == want_id:
                            return msg
                with open(err_path, errors="replace") as f:
                    stderr = f.read()[-3000:]
                self.fail("codex app-server gave no answer to request %d:\n%s\n--- stderr\n%s" %
                          (want_id, "\n".join(seen[-20:]), stderr))

            deadline = time.monotonic() + 60
            send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"clientInfo": {"name": "paldron-tests", "version": "1"}}})
            answer(1, deadline)
            send({"jsonrpc": "2.0", "method": "initialized"})
            send({"jsonrpc": "2.0", "id": 2, "method": "hooks/list",
                  "params": {"cwds": [self.scene.proj]}})
            msg = answer(2, deadline)
        finally:
            p.stdin.close()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            p.stdout.close()
        self.assertIn("result", msg, msg)
        hooks = [h for d in msg["result"]["data"] for h in d["hooks"]]
        self.assertTrue(hooks, "Codex does not see the project's hook:\n%s" % msg)
        return hooks

    def run_codex(self, tool, trust="hash", extra_args=()):
        """One `codex exec` session in which the model makes `tool` (the
        stub script's tool entry) once. trust: "hash" saves the hook's
        trusted_hash first; "none" leaves the hook untrusted."""
        stub = Stub(self.scene, "openai_stub.py", {"tool": tool, "final": "done"})
        self.addCleanup(stub.stop)
        state = []
        self.write_config(stub)
        if trust == "hash":
            hooks = self.listed_hooks(stub)
            state = [(h["key"], h["currentHash"]) for h in hooks]
            self.write_config(stub, state)
        argv = [self.codex, "exec", "--json", "--strict-config",
                "--dangerously-bypass-approvals-and-sandbox"] + list(extra_args) + [
                    "Do what the task needs."]
        code, out, err = run_in_stub_netns(stub, self.scene, argv, self.env(),
                                           cwd=self.scene.proj)
        run = Run(code, out, err, stub)
        self.assertEqual(code, 0, "codex exec failed\n" + run.report())
        self.assertIn('"type":"turn.completed"', out, run.report())
        return run

    def tool_output(self, run):
        """What the model was shown as the call's output in turn 2."""
        finals = [r for r in run.stub.requests() if (r.get("note") or "") == "final"]
        self.assertTrue(finals, "the model never got the call's output\n" + run.report())
        items = [i for i in finals[-1]["body"]["input"] if i.get("type") in OUTPUT_TYPES]
        self.assertEqual(len(items), 1, run.report())
        out = items[0].get("output")
        if isinstance(out, list):
            out = "".join(c.get("text", "") for c in out if isinstance(c, dict))
        verbose(self.id(), out)
        return out or ""

    def executed(self, run):
        """The commands Codex ran, from `codex exec --json`'s command_execution
        items: this is where a routed call shows its rewritten command (the
        model's own history keeps the original)."""
        cmds = []
        for line in run.out.splitlines():
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            item = ev.get("item") or {}
            if ev.get("type") == "item.completed" and item.get("type") == "command_execution":
                cmds.append(item.get("command", ""))
        return cmds

    def assertRouted(self, run):
        cmds = self.executed(run)
        self.assertEqual(len(cmds), 1, "one command should have run\n" + run.report())
        self.assertIn("'%s' exec --routed " % PALDRON, cmds[0],
                      "the hook did not rewrite the call into paldron exec --routed\n" +
                      run.report())

    def assertNoCanary(self, run):
        self.assertNotIn(self.scene.canary, run.stub.raw(),
                         "the .env canary reached the model\n" + run.report())
        self.assertNotIn(self.scene.canary, run.out, run.report())

    def assertBlocked(self, run, text, *fragments):
        self.assertTrue(text.startswith("Command blocked by PreToolUse hook: "),
                        "Codex did not block the call\n" + run.report())
        self.assertEqual(self.executed(run), [], "a blocked call ran\n" + run.report())
        for frag in fragments:
            self.assertIn(frag, text, run.report())

    @staticmethod
    def shell(command):
        return {"name": "exec_command", "arguments": {"cmd": command}}

    @staticmethod
    def patch(text):
        return {"name": "apply_patch", "input": text}

    @staticmethod
    def exec_output(text):
        """(exit code, output) of an exec_command result, which Codex frames
        as "...Process exited with code N\\n...Output:\\n<output>"."""
        m = re.search(r"Process exited with code (-?\d+)\n(?:.*\n)*?Output:\n", text)
        if not m:
            return None, text
        return int(m.group(1)), text[m.end():]

    # --- a. a denied shell call ---------------------------------------------
    def test_denied_shell_cat_env(self):
        run = self.run_codex(self.shell("cat .env"))
        text = self.tool_output(run)
        self.assertBlocked(run, text, "paldron: deny:", ".env", "deny_glob")
        self.assertNoCanary(run)

    # --- b. routing: the static gate passes, the sandbox refuses -------------
    def test_routed_python_reads_env(self):
        self.assertTrue(routing_present(), ROUTING_MISSING)
        run = self.run_codex(self.shell("python3 -c \"print(open('.env').read())\""))
        text = self.tool_output(run)
        self.assertFalse(text.startswith("Command blocked"),
                         "the static gate blocked it: nothing was routed\n" + run.report())
        code, output = self.exec_output(text)
        self.assertIn("Permission denied", output,
                      "the routed python3 was not refused at run time\n" + run.report())
        self.assertRegex(output, r"paldron: deny:.*\.env", run.report())
        self.assertNotEqual(code, 0, "a routed run with a denial must end non-zero\n" +
                            run.report())
        self.assertRouted(run)
        self.assertNoCanary(run)

    # --- c. routing is transparent for a harmless command --------------------
    def test_routed_cat_is_transparent(self):
        self.assertTrue(routing_present(), ROUTING_MISSING)
        run = self.run_codex(self.shell("cat src/a.txt"))
        code, output = self.exec_output(self.tool_output(run))
        self.assertEqual(code, 0, run.report())
        self.assertEqual(output, A_TXT, "the routed run was not transparent\n" + run.report())
        self.assertRouted(run)

    # --- d. apply_patch ---------------------------------------------------------
    def test_denied_apply_patch_git_hook(self):
        run = self.run_codex(self.patch("*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n"
                                        "+#!/bin/sh\n+id\n*** End Patch\n"))
        text = self.tool_output(run)
        self.assertBlocked(run, text, "paldron: deny:", ".git/hooks/pre-commit", "protected")
        self.assertFalse(self.scene.exists(".git/hooks/pre-commit"),
                         "the blocked patch created the file\n" + run.report())

    def test_allowed_apply_patch_lands(self):
        run = self.run_codex(self.patch("*** Begin Patch\n*** Add File: src/new.txt\n"
                                        "+written by apply_patch\n*** End Patch\n"))
        text = self.tool_output(run)
        self.assertIn("Success. Updated the following files:\nA src/new.txt", text,
                      run.report())
        self.assertEqual(self.scene.read("src/new.txt"), "written by apply_patch\n",
                         run.report())

    # Codex also takes `apply_patch` as a shell command (the model may call
    # exec_command with the patch in a here-doc); Codex applies it itself,
    # and the hook sees it as a Bash call (issue 12: "Codex's apply_patch
    # helper must work when it arrives as a shell call").
    def test_denied_apply_patch_via_shell(self):
        run = self.run_codex(self.shell("apply_patch <<'EOF'\n*** Begin Patch\n"
                                        "*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n+id\n"
                                        "*** End Patch\nEOF"))
        text = self.tool_output(run)
        self.assertBlocked(run, text, "paldron: deny:", ".git/hooks/pre-commit", "protected")
        self.assertFalse(self.scene.exists(".git/hooks/pre-commit"),
                         "the blocked patch created the file\n" + run.report())

    def test_allowed_apply_patch_via_shell_lands(self):
        run = self.run_codex(self.shell("apply_patch <<'EOF'\n*** Begin Patch\n"
                                        "*** Add File: src/new.txt\n+written by apply_patch\n"
                                        "*** End Patch\nEOF"))
        text = self.tool_output(run)
        self.assertFalse(text.startswith("Command blocked"),
                         "an apply_patch into src/ was blocked\n" + run.report())
        self.assertTrue(self.scene.exists("src/new.txt"),
                        "the allowed patch did not land\n" + run.report())
        self.assertEqual(self.scene.read("src/new.txt"), "written by apply_patch\n",
                         run.report())

    # --- e. fail closed ---------------------------------------------------------
    def test_missing_binary_blocks(self):
        missing = os.path.join(self.scene.base, "no-such-dir", "paldron")
        self.configure(hook_command(missing, self.scene.policy))
        run = self.run_codex(self.shell("cat .env"))
        text = self.tool_output(run)
        self.assertBlocked(run, text, "not found")
        self.assertNoCanary(run)

    def test_killed_hook_blocks(self):
        # A hook killed by a signal exits 137 in Codex's shell; `|| exit 2`
        # turns that into a block.
        killer = self.scene.write("bin/paldron", "#!/bin/sh\nkill -KILL $$\n",
                                  root=self.scene.base)
        os.chmod(killer, 0o755)
        self.scene.own()
        self.configure(hook_command(killer, self.scene.policy))
        run = self.run_codex(self.shell("cat .env"))
        text = self.tool_output(run)
        self.assertBlocked(run, text, "Command blocked by PreToolUse hook")
        self.assertNoCanary(run)

    def test_missing_binary_without_exit2_runs_the_call(self):
        # The control of test_missing_binary_blocks: without `|| exit 2` the
        # hook's exit 127 does not block, and the canary reaches the model.
        missing = os.path.join(self.scene.base, "no-such-dir", "paldron")
        self.configure("'%s' check --policy '%s' --hook" % (missing, self.scene.policy))
        run = self.run_codex(self.shell("cat .env"))
        self.assertIn(self.scene.canary, self.tool_output(run), run.report())

    def test_broken_policy_blocks(self):
        # A policy that does not parse: the hook must block even a harmless
        # call (never route it, never let it run bare).
        self.scene.write(".paldron.toml", "allow_paths = [\"src/\"\n")
        run = self.run_codex(self.shell("cat src/a.txt"))
        text = self.tool_output(run)
        self.assertBlocked(run, text, "paldron: hook: Paldron itself failed")
        self.assertNotIn(A_TXT.splitlines()[0], text, run.report())

    # --- trust: what the README tells Codex users -------------------------------
    def test_untrusted_hook_is_skipped_silently(self):
        # Codex 0.171 runs no hook whose hash is not trusted, and `codex exec`
        # says nothing about it: the call runs and the canary leaks. This is
        # why `paldron init codex --trust` / the README's trust step matter.
        run = self.run_codex(self.shell("cat .env"), trust="none")
        self.assertIn(self.scene.canary, self.tool_output(run), run.report())
        self.assertNotIn("hook", run.out.lower().replace("hook_", ""), run.report())

    def test_bypass_hook_trust_flag_runs_the_hook(self):
        run = self.run_codex(self.shell("cat .env"), trust="none",
                             extra_args=["--dangerously-bypass-hook-trust"])
        self.assertBlocked(run, self.tool_output(run), "paldron: deny:", ".env")
        self.assertNoCanary(run)


if __name__ == "__main__":
    main()
