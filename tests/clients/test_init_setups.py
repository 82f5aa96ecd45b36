"""Setups made ONLY by `paldron init`, checked by `paldron doctor` and then
by the real clients (issue 13: "setups made by `paldron init` pass `paldron
doctor` and these tests").

For each client: a scratch project with no policy and no hook (clientlib's
Scene, its .paldron.toml removed), `paldron init <client>` (Codex: `--trust`)
run as paldron-test in the stub's network namespace - so the starter policy,
the hook and Codex's trust are all init's - then `paldron doctor <client>`
must pass, and the real client against the stub must:
  - block a `cat .env` shell call, the model reading `paldron: deny:`;
  - run a `python3 -c` that reads `.env` routed under paldron exec, where
    it gets Permission denied.
The only thing written by hand is what points the client at the stub
(Codex's model provider in config.toml, which init must keep as it is).
"""

import json
import os
import re

from clientlib import (PALDRON, Run, Scene, Stub, base_env, client, require_basics,
                       routing_present, run_in_stub_netns, strip_reminders, verbose)
from harness import PaldronTest, main

PYTHON_READS_ENV = "python3 -c \"print(open('.env').read())\""
ROUTING_MISSING = ("`paldron exec --help` has no --routed: the routing hook of issue 12 is not "
                   "built - this test needs it")


class InitSetupBase(PaldronTest):
    CLIENT = None  # "claude-code" or "codex"

    def setUp(self):
        require_basics(self)
        self.bin = client(self, self.CLIENT)
        self.scene = Scene()
        self.addCleanup(self.scene.close)
        os.remove(self.scene.policy)  # init writes the starter policy

    def env(self):
        env = base_env(self.scene)
        env["PATH"] = os.path.dirname(self.bin) + ":" + env["PATH"]
        return env

    def paldron(self, stub, *args):
        code, out, err = run_in_stub_netns(stub, self.scene, [PALDRON] + list(args), self.env(),
                                           cwd=self.scene.proj)
        return code, out, err

    def set_up_by_init(self, stub, *init_args):
        code, out, err = self.paldron(stub, "init", self.CLIENT, *init_args)
        self.assertEqual(code, 0, "paldron init failed\n%s\n%s" % (out, err))
        self.assertIn("created      %s (starter policy" % self.scene.policy, out)
        code, out, err = self.paldron(stub, "doctor", self.CLIENT)
        self.assertEqual(code, 0, "paldron doctor finds problems in init's setup\n%s\n%s" %
                         (out, err))
        self.assertTrue(out.rstrip().endswith("paldron doctor: every check passed"), out)
        self.assertIn("a sample `cat .env` call is blocked", out)
        self.assertIn("routed through paldron exec", out)

    def assertNoCanary(self, run):
        self.assertNotIn(self.scene.canary, run.stub.raw(),
                         "the .env canary reached the model\n" + run.report())


class ClaudeCodeInitTest(InitSetupBase):
    CLIENT = "claude-code"

    def run_claude(self, tool_input):
        stub = Stub(self.scene, "anthropic_stub.py",
                    {"tool": {"name": "Bash", "input": tool_input}, "final": "done"})
        self.addCleanup(stub.stop)
        self.set_up_by_init(stub)
        env = self.env()
        env.update(ANTHROPIC_BASE_URL=stub.url, ANTHROPIC_API_KEY="sk-ant-stub",
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1")
        debug = os.path.join(self.scene.base, "claude-debug.log")
        argv = [self.bin, "-p", "Do what the task needs.", "--output-format", "json",
                "--dangerously-skip-permissions", "--model", "claude-sonnet-4-5",
                "--debug-file", debug]
        code, out, err = run_in_stub_netns(stub, self.scene, argv, env, cwd=self.scene.proj)
        run = Run(code, out, err, stub, extra_logs=[(debug, r"(?i)hook|error|warn")])
        self.assertEqual(code, 0, "claude -p failed\n" + run.report())
        return run

    def tool_result(self, run):
        finals = [r for r in run.stub.requests() if (r.get("note") or "").startswith("final")]
        self.assertTrue(finals, "the model never got a tool result\n" + run.report())
        blocks = [b for b in finals[-1]["body"]["messages"][-1]["content"]
                  if b.get("type") == "tool_result"]
        self.assertEqual(len(blocks), 1, run.report())
        content = blocks[0].get("content")
        if isinstance(content, list):
            content = "".join(c.get("text", "") for c in content if isinstance(c, dict))
        text = strip_reminders(content or "")
        verbose(self.id(), text)
        return text, bool(blocks[0].get("is_error"))

    def test_denied_cat_env(self):
        run = self.run_claude({"command": "cat .env", "description": "Show .env"})
        text, is_error = self.tool_result(run)
        self.assertTrue(is_error, run.report())
        self.assertIn("paldron: deny:", text, run.report())
        self.assertIn(".env", text, run.report())
        self.assertNoCanary(run)

    def test_routed_python_reads_env(self):
        self.assertTrue(routing_present(), ROUTING_MISSING)
        run = self.run_claude({"command": PYTHON_READS_ENV, "description": "Print .env"})
        text, is_error = self.tool_result(run)
        self.assertIn("Permission denied", text, run.report())
        self.assertIn("paldron: deny:", text, run.report())
        self.assertTrue(is_error, run.report())
        self.assertNoCanary(run)


class CodexInitTest(InitSetupBase):
    CLIENT = "codex"

    def setUp(self):
        super().setUp()
        self.codex_home = os.path.join(self.scene.home, ".codex")
        os.makedirs(self.codex_home)

    def env(self):
        env = super().env()
        env.update(CODEX_HOME=self.codex_home, OPENAI_API_KEY="sk-stub", RUST_LOG="error")
        return env

    def write_provider(self, stub):
        """What points Codex at the stub - the only config written by hand."""
        self.provider = "\n".join([
            "# the stub model (tests/clients/README.md)",
            'model = "gpt-5.5"',
            'model_provider = "paldron_stub"',
            "",
            "[model_providers.paldron_stub]",
            'name = "Paldron test stub"',
            "base_url = %s" % json.dumps(stub.url + "/v1"),
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
        ]) + "\n"
        self.scene.write("config.toml", self.provider, root=self.codex_home)

    def run_codex(self, cmd):
        stub = Stub(self.scene, "openai_stub.py",
                    {"tool": {"name": "exec_command", "arguments": {"cmd": cmd}},
                     "final": "done"})
        self.addCleanup(stub.stop)
        self.write_provider(stub)
        self.set_up_by_init(stub, "--trust")
        with open(os.path.join(self.codex_home, "config.toml")) as f:
            config = f.read()
        self.assertTrue(config.startswith(self.provider),
                        "init did not keep config.toml's lines as they were:\n" + config)
        argv = [self.bin, "exec", "--json", "--strict-config",
                "--dangerously-bypass-approvals-and-sandbox", "Do what the task needs."]
        code, out, err = run_in_stub_netns(stub, self.scene, argv, self.env(),
                                           cwd=self.scene.proj)
        run = Run(code, out, err, stub)
        self.assertEqual(code, 0, "codex exec failed\n" + run.report())
        return run

    def tool_output(self, run):
        finals = [r for r in run.stub.requests() if (r.get("note") or "") == "final"]
        self.assertTrue(finals, "the model never got the call's output\n" + run.report())
        items = [i for i in finals[-1]["body"]["input"]
                 if i.get("type") in ("function_call_output", "custom_tool_call_output")]
        self.assertEqual(len(items), 1, run.report())
        out = items[0].get("output")
        if isinstance(out, list):
            out = "".join(c.get("text", "") for c in out if isinstance(c, dict))
        verbose(self.id(), out)
        return out or ""

    def test_denied_cat_env(self):
        run = self.run_codex("cat .env")
        text = self.tool_output(run)
        self.assertTrue(text.startswith("Command blocked by PreToolUse hook: paldron: deny:"),
                        "Codex did not block the call with Paldron's reason\n" + run.report())
        self.assertIn(".env", text, run.report())
        self.assertNoCanary(run)

    def test_routed_python_reads_env(self):
        self.assertTrue(routing_present(), ROUTING_MISSING)
        run = self.run_codex(PYTHON_READS_ENV)
        text = self.tool_output(run)
        self.assertFalse(text.startswith("Command blocked"), run.report())
        self.assertIn("Permission denied", text, run.report())
        self.assertRegex(text, re.compile(r"paldron: deny:.*\.env"), run.report())
        self.assertNoCanary(run)


if __name__ == "__main__":
    main()
