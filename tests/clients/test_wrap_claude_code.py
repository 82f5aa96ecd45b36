"""The real Claude Code CLI wrapped whole in `paldron exec --interactive`.

No hook is configured. Claude Code runs headless as paldron-test inside
`paldron exec --interactive --policy examples/wrap-claude-code.toml`, in the
network namespace of anthropic_stub.py (loopback only), and the stub answers
turn 1 with one scripted tool call. Each test checks that the agent reached
its model (the stub got the tool result in turn 2), what the model was shown,
that the `.env` canary never reached the stub, the file system, and Paldron's
own verdict: its exit code and the live lines it printed on stderr.

The policy is the shipped example, copied unchanged next to the project; the
controls change one line of it to show why that line is there.
"""

import os
import re
import shutil
import subprocess

from clientlib import (A_TXT, HERE, PALDRON, Run, Scene, Stub, base_env, client,
                       require_basics, run_in_stub_netns, strip_reminders, verbose)
from harness import SOURCE_DIR, PaldronTest, main, skip

MODEL = "claude-sonnet-4-5"
EXAMPLE = os.path.join(SOURCE_DIR, "examples", "wrap-claude-code.toml")
KEY = "sk-ant-stub-wrapped"
# anthropic_stub.py behind TLS, for the one test that needs the client's TLS
# path (certificate bundles): written next to the certificates at run time.
TLS_STUB = """import os, ssl, sys
sys.path.insert(0, %r)
import anthropic_stub, stub_server
HERE = os.path.dirname(os.path.abspath(__file__))


class TLSServer(stub_server.ThreadingHTTPServer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(os.path.join(HERE, "server.crt"), os.path.join(HERE, "server.key"))
        self.socket = ctx.wrap_socket(self.socket, server_side=True)


stub_server.ThreadingHTTPServer = TLSServer
sys.exit(stub_server.serve(anthropic_stub.AnthropicStub))
""" % HERE


class WrapClaudeCodeTest(PaldronTest):
    def setUp(self):
        require_basics(self)
        self.claude = client(self, "claude-code")
        self.scene = Scene()
        self.addCleanup(self.scene.close)
        with open(EXAMPLE) as f:
            self.example = f.read()
        self.policy = self.write_policy(self.example)

    def write_policy(self, text, name="wrap-claude-code.toml"):
        return self.scene.write(name, text, root=self.scene.base)

    def run_wrapped(self, tool, tool_input, policy=None, extra_env=None,
                    stub_module="anthropic_stub.py", scheme="http"):
        """One headless session under paldron exec --interactive in which the
        model calls `tool` once. Returns the Run: code is paldron's exit code,
        out Claude Code's JSON, err Claude Code's stderr and Paldron's lines."""
        # No hook anywhere: what is refused here, the sandbox refuses.
        for d in (self.scene.proj, self.scene.home):
            self.assertFalse(os.path.exists(os.path.join(d, ".claude", "settings.json")))
        stub = Stub(self.scene, stub_module,
                    {"tool": {"name": tool, "input": tool_input}, "final": "done"})
        self.addCleanup(stub.stop)
        # In the workspace: the sandbox lets the session write nowhere else
        # that outlives it.
        debug = os.path.join(self.scene.proj, "claude-debug.log")
        env = base_env(self.scene)
        env.update(ANTHROPIC_BASE_URL="%s://127.0.0.1:%d" % (scheme, stub.port),
                   ANTHROPIC_API_KEY=KEY,
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
                   CLAUDE_CODE_MAX_RETRIES="0")
        env.update(extra_env or {})
        argv = [PALDRON, "exec", "--interactive", "--policy", policy or self.policy, "--",
                self.claude, "-p", "Do what the task needs.", "--output-format", "json",
                "--dangerously-skip-permissions", "--model", MODEL, "--debug-file", debug]
        code, out, err = run_in_stub_netns(stub, self.scene, argv, env, cwd=self.scene.proj)
        return Run(code, out, err, stub, extra_logs=[(debug, r"(?i)error|warn|EACCES|denied")])

    def tool_result(self, run):
        """(text, is_error) of the tool_result the model received in turn 2:
        its presence proves the agent reached its model twice."""
        finals = [r for r in run.stub.requests() if (r.get("note") or "").startswith("final")]
        self.assertTrue(finals, "the model never got a tool result\n" + run.report())
        blocks = [b for b in finals[-1]["body"]["messages"][-1]["content"]
                  if b.get("type") == "tool_result"]
        self.assertEqual(len(blocks), 1, run.report())
        content = blocks[0].get("content")
        if isinstance(content, list):
            content = "".join(c.get("text", "") for c in content if isinstance(c, dict))
        text, is_error = strip_reminders(content or ""), bool(blocks[0].get("is_error"))
        verbose("%s is_error=%s" % (self.id(), is_error), text)
        verbose("%s paldron" % self.id(), "\n".join(paldron_lines(run.err)))
        return text, is_error

    def assertSessionEnded(self, run, code, denials):
        """Claude Code finished its turn, and Paldron's verdict is `code`
        with `denials` live denials."""
        self.assertIn('"result":"done"', run.out.replace(" ", ""),
                      "Claude Code did not finish its turn\n" + run.report())
        self.assertIn("paldron: interactive run ended: %d live denial(s), exit 0" % denials,
                      run.err, run.report())
        self.assertEqual(run.code, code, run.report())

    def assertClean(self, run):
        """Nothing refused, nothing reported: a harmless session is not a
        denial (no false alarm from the agent's own start-up either)."""
        lines = [ln for ln in paldron_lines(run.err)
                 if not ln.startswith("paldron: interactive run ended:")]
        self.assertEqual(lines, [], "Paldron reported a harmless session\n" + run.report())
        self.assertSessionEnded(run, 0, 0)

    def assertNoCanary(self, run):
        self.assertNotIn(self.scene.canary, run.stub.raw(),
                         "the .env canary reached the model\n" + run.report())
        self.assertNotIn(self.scene.canary, run.out + run.err, run.report())

    # --- the agent starts and reaches its model; Bash is gated live ------------
    def test_bash_cat_env_is_refused_live(self):
        run = self.run_wrapped("Bash", {"command": "cat .env", "description": "Show .env"})
        text, is_error = self.tool_result(run)
        self.assertTrue(is_error, run.report())
        self.assertIn("cat: .env: Permission denied", text,
                      "the model was not told the read failed\n" + run.report())
        self.assertIn("paldron: deny: cat read .env (secret .env) [live]", run.err, run.report())
        self.assertSessionEnded(run, 2, 1)
        self.assertNoCanary(run)

    def test_bash_python_reads_env_is_refused_live(self):
        run = self.run_wrapped("Bash", {"command": "python3 -c \"print(open('.env').read())\"",
                                        "description": "Print .env with Python"})
        text, is_error = self.tool_result(run)
        self.assertTrue(is_error, run.report())
        self.assertIn("PermissionError: [Errno 13] Permission denied: '.env'", text, run.report())
        self.assertIn("paldron: deny: python3 read .env (secret .env) [live]", run.err,
                      run.report())
        self.assertSessionEnded(run, 2, 1)
        self.assertNoCanary(run)

    def test_harmless_session_is_clean(self):
        # The agent's own start-up (its key, its config and session files in
        # the temp home, certificate bundles, its lock files) reports nothing.
        run = self.run_wrapped("Bash", {"command": "cat src/a.txt", "description": "Show a.txt"})
        text, is_error = self.tool_result(run)
        self.assertFalse(is_error, run.report())
        self.assertEqual(text.rstrip("\n"), A_TXT.rstrip("\n"), run.report())
        self.assertClean(run)

    def test_tls_to_the_model_with_certificate_bundles(self):
        # The real API is HTTPS: the client reads certificate bundles (*.pem)
        # for TLS - the system's (NODE_USE_SYSTEM_CA=1) and one in the
        # project (NODE_EXTRA_CA_CERTS), which signs the stub's certificate.
        # Certificates only: no secret, not masked, nothing reported.
        if shutil.which("openssl") is None:
            skip(self, "openssl is not installed (needed to make the stub's certificate)")
        tls = os.path.join(self.scene.base, "tls")
        os.makedirs(tls)
        ca = os.path.join(self.scene.proj, "certs", "test-ca.pem")
        os.makedirs(os.path.dirname(ca))
        for args in (["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                      "/CN=paldron test CA", "-keyout", os.path.join(tls, "ca.key"), "-out", ca],
                     ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
                      "-keyout", os.path.join(tls, "server.key"),
                      "-out", os.path.join(tls, "server.csr")],
                     ["x509", "-req", "-days", "1", "-in", os.path.join(tls, "server.csr"),
                      "-CA", ca, "-CAkey", os.path.join(tls, "ca.key"), "-CAcreateserial",
                      "-CAserial", os.path.join(tls, "ca.srl"),
                      "-extfile", self.scene.write("ext.cnf", "subjectAltName=IP:127.0.0.1\n",
                                                   root=tls),
                      "-out", os.path.join(tls, "server.crt")]):
            subprocess.run(["openssl"] + args, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        module = self.scene.write("tls_stub.py", TLS_STUB, root=tls)
        run = self.run_wrapped("Bash", {"command": "cat src/a.txt", "description": "Show a.txt"},
                               extra_env={"NODE_EXTRA_CA_CERTS": ca, "NODE_USE_SYSTEM_CA": "1"},
                               stub_module=module, scheme="https")
        text, _ = self.tool_result(run)
        self.assertEqual(text.rstrip("\n"), A_TXT.rstrip("\n"), run.report())
        self.assertClean(run)

    # --- the agent's own tools run in its process, inside the sandbox ----------
    def test_write_tool_into_src_lands(self):
        target = os.path.join(self.scene.proj, "src", "new.txt")
        run = self.run_wrapped("Write", {"file_path": target, "content": "written\n"})
        _, is_error = self.tool_result(run)
        self.assertFalse(is_error, run.report())
        self.assertEqual(self.scene.read("src/new.txt"), "written\n", run.report())
        self.assertClean(run)

    def test_write_tool_git_hook_is_refused(self):
        # .git/hooks exists when the session starts: read-only in the kernel.
        target = os.path.join(self.scene.proj, ".git", "hooks", "pre-commit")
        run = self.run_wrapped("Write", {"file_path": target, "content": "#!/bin/sh\nid\n"})
        text, is_error = self.tool_result(run)
        self.assertTrue(is_error, run.report())
        self.assertRegex(text, r"EROFS|EACCES|denied", run.report())
        self.assertFalse(self.scene.exists(".git/hooks/pre-commit"),
                         "the Write tool planted a git hook\n" + run.report())
        self.assertEqual(run.code, 2, run.report())

    def test_write_tool_env_file_is_refused(self):
        # Claude Code writes a temp file and renames it into place: the rename
        # onto a secret's name is refused live, and the temp file it leaves is
        # a secret the run produced (post-run scan).
        target = os.path.join(self.scene.proj, ".env.local")
        run = self.run_wrapped("Write", {"file_path": target, "content": "TOKEN=planted\n"})
        text, is_error = self.tool_result(run)
        self.assertTrue(is_error, run.report())
        self.assertIn("EACCES", text, run.report())
        self.assertFalse(self.scene.exists(".env.local"), run.report())
        self.assertRegex(run.err, r"paldron: deny: .*\.env\.local", run.report())
        self.assertEqual(run.code, 2, run.report())

    def test_read_tool_env_is_refused(self):
        # Claude Code's own reads bypass libc (the live gate does not see
        # them): the kernel floor refuses this one - .env exists at the start,
        # so it is masked for every process of the run.
        run = self.run_wrapped("Read", {"file_path": os.path.join(self.scene.proj, ".env")})
        text, is_error = self.tool_result(run)
        self.assertTrue(is_error, run.report())
        self.assertIn("EACCES", text, run.report())
        self.assertNoCanary(run)
        self.assertIn(run.code, (0, 2), run.report())

    # --- controls: why the example's lines are there ----------------------------
    def test_without_env_pass_the_agent_is_not_logged_in(self):
        text = re.sub(r"(?m)^env_pass = .*$", "", self.example)
        self.assertNotIn("env_pass", re.sub(r"(?m)#.*$", "", text))
        run = self.run_wrapped("Bash", {"command": "true", "description": "x"},
                               policy=self.write_policy(text, "no-env-pass.toml"),
                               extra_env={"PALDRON_DEBUG": "1"})
        self.assertIn("Not logged in", run.out, run.report())
        self.assertIn("paldron: env: dropped ANTHROPIC_API_KEY (secret-looking)", run.err,
                      run.report())
        self.assertEqual(run.stub.requests(), [], run.report())
        self.assertEqual(run.code, 1, run.report())

    def test_with_the_network_off_the_agent_cannot_reach_its_model(self):
        text = re.sub(r"(?m)^allow_network = true$", "allow_network = false", self.example)
        self.assertIn("allow_network = false", text)
        run = self.run_wrapped("Bash", {"command": "true", "description": "x"},
                               policy=self.write_policy(text, "network-off.toml"))
        self.assertIn("ECONNREFUSED", run.out, run.report())
        self.assertEqual(run.stub.requests(), [], run.report())
        self.assertEqual(run.code, 1, run.report())

    def test_the_key_reaches_the_model_and_the_tools(self):
        # What env_pass hands the agent, its commands see too (documented in
        # the example and docs/wrap-agent.md).
        run = self.run_wrapped("Bash", {"command": "printenv ANTHROPIC_API_KEY",
                                        "description": "x"})
        text, _ = self.tool_result(run)
        self.assertEqual(text.strip(), KEY, run.report())
        self.assertClean(run)


def paldron_lines(err):
    return [ln for ln in err.splitlines() if ln.startswith("paldron: ")]


if __name__ == "__main__":
    main()
