"""The real Claude Code CLI driving Paldron's PreToolUse hook.

Claude Code runs headless (`claude -p ... --dangerously-skip-permissions`) as
paldron-test against anthropic_stub.py, which answers turn 1 with one scripted
tool call and records every request. The hook is configured as Paldron
documents it (.claude/settings.json, absolute paths, `|| exit 2`). Each test
checks what the model was shown as the tool result (the next request the stub
received), that the `.env` canary never reached the stub, and the file system.
"""

import json
import os

from clientlib import (A_TXT, PALDRON, Run, Scene, Stub, base_env, client,
                       hook_command, require_basics, routing_present, run_in_stub_netns,
                       strip_reminders, verbose)
from harness import PaldronTest, main

MODEL = "claude-sonnet-4-5"
ROUTING_MISSING = ("`paldron exec --help` has no --routed: the routing hook of issue 12 is not "
                   "built, so an allowed Bash call still runs unsandboxed - this test needs it")


class ClaudeCodeTest(PaldronTest):
    def setUp(self):
        require_basics(self)
        self.claude = client(self, "claude-code")
        self.scene = Scene()
        self.addCleanup(self.scene.close)
        self.configure(hook_command(PALDRON, self.scene.policy))

    def configure(self, command):
        settings = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": command, "timeout": 30}]}]}}
        self.scene.write(".claude/settings.json", json.dumps(settings, indent=2) + "\n")

    def run_claude(self, tool, tool_input):
        """One headless session in which the model calls `tool` once."""
        stub = Stub(self.scene, "anthropic_stub.py",
                    {"tool": {"name": tool, "input": tool_input}, "final": "done"})
        self.addCleanup(stub.stop)
        debug = os.path.join(self.scene.base, "claude-debug.log")
        env = base_env(self.scene)
        env.update(ANTHROPIC_BASE_URL=stub.url, ANTHROPIC_API_KEY="sk-ant-stub",
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1")
        argv = [self.claude, "-p", "Do what the task needs.", "--output-format", "json",
                "--dangerously-skip-permissions", "--model", MODEL, "--debug-file", debug]
        code, out, err = run_in_stub_netns(stub, self.scene, argv, env, cwd=self.scene.proj)
        run = Run(code, out, err, stub, extra_logs=[(debug, r"(?i)hook|error|warn")])
        self.assertEqual(code, 0, "claude -p failed\n" + run.report())
        return run

    def tool_result(self, run):
        """(text, is_error) of the tool_result the model received in turn 2."""
        finals = [r for r in run.stub.requests() if (r.get("note") or "").startswith("final")]
        self.assertTrue(finals, "the model never got a tool result\n" + run.report())
        msgs = finals[-1]["body"]["messages"]
        blocks = [b for b in msgs[-1]["content"] if b.get("type") == "tool_result"]
        self.assertEqual(len(blocks), 1, run.report())
        content = blocks[0].get("content")
        if isinstance(content, list):
            content = "".join(c.get("text", "") for c in content if isinstance(c, dict))
        text, is_error = strip_reminders(content or ""), bool(blocks[0].get("is_error"))
        verbose("%s is_error=%s" % (self.id(), is_error), text)
        return text, is_error

    def assertNoCanary(self, run):
        self.assertNotIn(self.scene.canary, run.stub.raw(),
                         "the .env canary reached the model\n" + run.report())
        self.assertNotIn(self.scene.canary, run.out, run.report())

    def assertPaldronDeny(self, run, text, *fragments):
        # Claude Code shows the model permissionDecisionReason from the hook's
        # stdout JSON (not its stderr): Paldron's name must be in that reason.
        self.assertIn("paldron: deny:", text,
                      "the model was not told Paldron denied the call (Claude Code shows "
                      "hookSpecificOutput.permissionDecisionReason)\n" + run.report())
        for frag in fragments:
            self.assertIn(frag, text, run.report())

    # --- a. a denied Bash call ---------------------------------------------
    def test_denied_bash_cat_env(self):
        run = self.run_claude("Bash", {"command": "cat .env", "description": "Show .env"})
        text, is_error = self.tool_result(run)
        self.assertTrue(is_error, run.report())
        self.assertPaldronDeny(run, text, ".env", "deny_glob")
        self.assertNoCanary(run)

    # --- b. routing: the static gate passes, the sandbox refuses -------------
    def test_routed_python_reads_env(self):
        self.assertTrue(routing_present(), ROUTING_MISSING)
        run = self.run_claude("Bash", {"command": "python3 -c \"print(open('.env').read())\"",
                                       "description": "Print .env with Python"})
        text, is_error = self.tool_result(run)
        self.assertIn("Permission denied", text,
                      "the routed python3 was not refused at run time\n" + run.report())
        self.assertPaldronDeny(run, text, ".env")
        self.assertTrue(is_error, "a routed run with a denial must end non-zero\n" + run.report())
        self.assertNoCanary(run)
        self.assertRouted(run)

    # --- c. routing is transparent for a harmless command --------------------
    def test_routed_cat_is_transparent(self):
        self.assertTrue(routing_present(), ROUTING_MISSING)
        run = self.run_claude("Bash", {"command": "cat src/a.txt", "description": "Show a.txt"})
        text, is_error = self.tool_result(run)
        self.assertFalse(is_error, run.report())
        # Claude Code trims the trailing newline of a Bash result.
        self.assertEqual(text.rstrip("\n"), A_TXT.rstrip("\n"),
                         "the routed run was not transparent\n" + run.report())
        self.assertRouted(run)

    # --- d. Write and Read tools ----------------------------------------------
    def test_denied_write_git_hook(self):
        target = os.path.join(self.scene.proj, ".git/hooks/pre-commit")
        run = self.run_claude("Write", {"file_path": target, "content": "#!/bin/sh\nid\n"})
        text, is_error = self.tool_result(run)
        self.assertTrue(is_error, run.report())
        self.assertPaldronDeny(run, text, ".git/hooks/pre-commit", "protected")
        self.assertFalse(self.scene.exists(".git/hooks/pre-commit"),
                         "the blocked Write created the file\n" + run.report())

    def test_denied_read_env(self):
        run = self.run_claude("Read", {"file_path": os.path.join(self.scene.proj, ".env")})
        text, is_error = self.tool_result(run)
        self.assertTrue(is_error, run.report())
        self.assertPaldronDeny(run, text, ".env", "deny_glob")
        self.assertNoCanary(run)

    # --- e. fail closed ---------------------------------------------------------
    def test_missing_binary_blocks(self):
        missing = os.path.join(self.scene.base, "no-such-dir", "paldron")
        self.configure(hook_command(missing, self.scene.policy))
        run = self.run_claude("Bash", {"command": "cat .env", "description": "Show .env"})
        text, is_error = self.tool_result(run)
        self.assertTrue(is_error, "a hook that cannot start must block\n" + run.report())
        self.assertIn("not found", text, run.report())
        self.assertNoCanary(run)

    def test_killed_hook_blocks(self):
        # A hook killed by a signal (here: it kills itself with SIGKILL) exits
        # 137 in the client's shell; `|| exit 2` turns that into a block.
        killer = self.scene.write("bin/paldron", "#!/bin/sh\nkill -KILL $$\n",
                                  root=self.scene.base)
        os.chmod(killer, 0o755)
        self.scene.own()
        self.configure(hook_command(killer, self.scene.policy))
        run = self.run_claude("Bash", {"command": "cat .env", "description": "Show .env"})
        _, is_error = self.tool_result(run)
        self.assertTrue(is_error, "a killed hook must block\n" + run.report())
        self.assertNoCanary(run)

    def test_missing_binary_without_exit2_runs_the_call(self):
        # The control of test_missing_binary_blocks: without `|| exit 2`
        # Claude Code lets the call run (exit 127 is "non-blocking"), so the
        # canary does reach the model. If this ever blocks, Claude Code
        # changed and docs/integrations.md must say so.
        missing = os.path.join(self.scene.base, "no-such-dir", "paldron")
        self.configure("'%s' check --policy '%s' --hook" % (missing, self.scene.policy))
        run = self.run_claude("Bash", {"command": "cat .env", "description": "Show .env"})
        text, _ = self.tool_result(run)
        self.assertIn(self.scene.canary, text, run.report())

    def test_broken_policy_blocks(self):
        # A policy that does not parse: the hook must block even a harmless
        # call (never route it, never let it run bare).
        self.scene.write(".paldron.toml", "allow_paths = [\"src/\"\n")
        run = self.run_claude("Bash", {"command": "cat src/a.txt", "description": "Show a.txt"})
        text, is_error = self.tool_result(run)
        self.assertTrue(is_error, run.report())
        self.assertIn("Paldron itself failed", text, run.report())
        self.assertNotIn(A_TXT.splitlines()[0], text, "the call ran\n" + run.report())

    def assertRouted(self, run):
        # The model's history keeps the original command; the rewrite shows in
        # the hook answer that Claude Code's debug log records.
        rewrite = '"updatedInput":{"command":"\'%s\' exec --routed ' % PALDRON
        self.assertTrue(rewrite in self.debug_log(run),
                        "the hook did not rewrite the call into paldron exec --routed\n" +
                        run.report())

    def debug_log(self, run):
        with open(run.extra_logs[0][0], errors="replace") as f:
            return f.read()


if __name__ == "__main__":
    main()
