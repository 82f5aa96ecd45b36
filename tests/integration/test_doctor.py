"""`paldron doctor [claude-code|codex]`: the real binary checking setups made
by `paldron init`, and each way a setup can fail to block: a missing paldron,
a missing or broken policy, no `|| exit 2`, a relative policy, a narrow
matcher, a hook that lets `cat .env` through, no hook, broken settings, no
client; for Codex (the real codex from tests/clients/install.sh's cache, SKIP
when absent) an untrusted project, an untrusted hook, a hook changed after it
was trusted, an invalid config.toml.

Each problem must show as a `problem: <client>: ...` line naming it and how
to fix it, and make doctor exit 2; a good setup gives only `ok:` lines and
exit 0. Claude Code is a fake `claude` on PATH that answers --version (doctor
runs no model); the hook itself always runs for real.
"""

import json
import os

from harness import PaldronTest, main
from test_init import PALDRON_REAL, Setup, codex_bin_dir, hook_line, hooks_json

CLAUDE_VERSION = "2.1.332 (Claude Code)"


class DoctorTest(PaldronTest):
    def setUp(self):
        self.s = Setup()
        self.addCleanup(self.s.close)
        self.s.fake_client("claude", CLAUDE_VERSION)

    def doctor(self, *args, **kw):
        return self.s.run(["doctor"] + list(args), **kw)

    def configure(self, command, matcher="*", rel=".claude/settings.json"):
        self.s.write(rel, json.dumps(hooks_json(command, matcher), indent=2) + "\n")
        if not self.s.exists(".paldron.toml"):
            self.assertRun(self.s.run(["init", "claude-code", "--dry-run"]), 0)
            self.s.write(".paldron.toml", "allow_paths = [\"src/\"]\ndeny_globs = [\".env\"]\n")

    def assertAllOk(self, r):
        self.assertEqual(r.code, 0, repr(r))
        lines = r.out.splitlines()
        self.assertEqual(lines[0], "paldron doctor: project %s" % self.s.proj, r)
        self.assertEqual(lines[-1], "paldron doctor: every check passed", r)
        for line in lines[1:-1]:
            self.assertTrue(line.startswith("ok: "), repr(r))

    def assertProblem(self, r, *fragments, fix=None):
        self.assertEqual(r.code, 2, repr(r))
        problems = [ln for ln in r.out.splitlines() if ln.startswith("problem: ")]
        match = [ln for ln in problems if all(f in ln for f in fragments)]
        self.assertTrue(match, "no problem line with %r\n%r" % (fragments, r))
        if fix:
            self.assertIn(" - fix: " + fix, match[0], repr(r))
        self.assertRegex(r.out, r"paldron doctor: \d+ problems?\n$")
        return match[0]

    # --- good setups ---------------------------------------------------------------
    def test_setup_made_by_init_passes(self):
        self.assertRun(self.s.run(["init", "claude-code"]), 0)
        r = self.doctor("claude-code")
        self.assertAllOk(r)
        where = self.s.path(".claude/settings.json") + ":7"
        for frag in ("ok: claude-code: %s (%s)" % (CLAUDE_VERSION,
                                                   os.path.join(self.s.bin, "claude")),
                     "ok: claude-code: %s: the hook runs %s" % (where, PALDRON_REAL),
                     "the policy %s loads" % self.s.policy,
                     "the hook ends with `|| exit 2`",
                     "a sample `cat .env` call is blocked (exit 2, paldron: deny: Bash tool "
                     "call: read .env",
                     "a harmless shell call is allowed and routed through paldron exec"):
            self.assertIn(frag, r.out)

    def test_static_only_hooks_pass(self):
        self.assertRun(self.s.run(["init", "claude-code", "--no-route"]), 0)
        r = self.doctor("claude-code")
        self.assertAllOk(r)
        self.assertIn("static-only hook (--no-route or hook_route = false)", r.out)
        self.s.write(".paldron.toml", "deny_globs = [\".env\"]\nhook_route = false\n")
        self.assertRun(self.s.run(["init", "claude-code"]), 0)
        self.assertIn("static-only", self.doctor("claude-code").out)

    def test_user_hook_passes(self):
        self.assertRun(self.s.run(["init", "claude-code", "--user"]), 0)
        r = self.doctor("claude-code")
        self.assertAllOk(r)
        self.assertIn(self.s.path(".claude/settings.json", root=self.s.home) + ":7: a sample",
                      r.out)

    def test_project_option(self):
        other = Setup()
        self.addCleanup(other.close)
        self.assertRun(self.s.run(["init", "claude-code", "--project", other.proj]), 0)
        r = self.doctor("--project", other.proj, "claude-code")
        self.assertEqual(r.code, 0, r)
        self.assertIn("project %s\n" % other.proj, r.out)

    # --- what would not block ---------------------------------------------------------
    def test_missing_binary(self):
        missing = os.path.join(self.s.base, "gone", "paldron")
        self.configure(hook_line(self.s.policy).replace("'%s'" % PALDRON_REAL, "'%s'" % missing))
        r = self.doctor("claude-code")
        self.assertProblem(r, "the hook runs %s, which is not an executable file" % missing,
                           fix="paldron init claude-code")
        self.assertProblem(r, "a sample `cat .env` call is blocked, but not by the policy",
                           "not found")

    def test_missing_policy(self):
        self.assertRun(self.s.run(["init", "claude-code"]), 0)
        os.remove(self.s.policy)
        r = self.doctor("claude-code")
        self.assertProblem(r, "the hook's policy %s does not exist" % self.s.policy,
                           fix="paldron init claude-code")
        self.assertProblem(r, "is blocked, but not by the policy", "Paldron itself failed")

    def test_broken_policy(self):
        self.assertRun(self.s.run(["init", "claude-code"]), 0)
        self.s.write(".paldron.toml", "allow_paths = [\"src/\"]\nbogus = 1\n")
        r = self.doctor("claude-code")
        self.assertProblem(r, "the hook's policy does not load",
                           "policy unknown key: bogus (%s:2)" % self.s.policy,
                           fix="correct the policy")

    def test_hook_without_exit2(self):
        self.configure(hook_line(self.s.policy).replace(" || exit 2", ""))
        r = self.doctor("claude-code")
        self.assertProblem(r, "does not end with `|| exit 2`", "runs the call unchecked",
                           fix="paldron init claude-code")
        self.assertIn("a sample `cat .env` call is blocked (exit 2, paldron: deny:", r.out)

    def test_relative_policy(self):
        self.configure(hook_line(self.s.policy).replace(
            "'%s'" % self.s.policy, ".paldron.toml"))
        r = self.doctor("claude-code")
        self.assertProblem(r, "the hook's policy .paldron.toml is a relative path",
                           fix="paldron init claude-code")

    def test_narrow_matcher(self):
        self.configure(hook_line(self.s.policy), matcher="Bash")
        r = self.doctor("claude-code")
        self.assertProblem(r, "matcher is \"Bash\", not \"*\"", fix="paldron init claude-code")

    def test_hook_that_lets_the_call_run(self):
        # a "paldron" that allows everything: the sample must catch it
        fake = os.path.join(self.s.bin, "paldron")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\ncat >/dev/null\nexit 0\n")
        os.chmod(fake, 0o755)
        self.configure("'%s' check --policy '%s' --hook || exit 2" % (fake, self.s.policy))
        r = self.doctor("claude-code")
        self.assertProblem(r, "a sample `cat .env` call is not blocked: the hook exits 0",
                           fix="paldron init claude-code")
        self.assertProblem(r, "allowed but not routed through paldron exec")

    def test_async_hook(self):
        doc = hooks_json(hook_line(self.s.policy))
        doc["hooks"]["PreToolUse"][0]["hooks"][0]["async"] = True
        self.s.write(".claude/settings.json", json.dumps(doc, indent=2))
        self.assertRun(self.s.run(["init", "claude-code", "--dry-run"]), 0)
        self.s.write(".paldron.toml", "deny_globs = [\".env\"]\n")
        r = self.doctor("claude-code")
        self.assertProblem(r, "\"async\"", "blocks nothing", fix="paldron init claude-code")

    def test_no_hook(self):
        r = self.doctor("claude-code")
        self.assertProblem(r, "no Paldron hook in %s" % self.s.path(".claude/settings.json",
                                                                    root=self.s.home),
                           fix="paldron init claude-code")

    def test_broken_settings_json(self):
        p = self.s.write(".claude/settings.json", "{\n  \"hooks\": {,}\n}\n")
        r = self.doctor("claude-code")
        self.assertProblem(r, "%s:2: " % p, fix="correct the JSON")

    def test_client_missing(self):
        os.remove(os.path.join(self.s.bin, "claude"))
        self.assertRun(self.s.run(["init", "claude-code"]), 0)
        r = self.doctor("claude-code")
        self.assertProblem(r, "`claude` is not on PATH", fix="install it")
        self.assertIn("a sample `cat .env` call is blocked", r.out)

    # --- which clients ------------------------------------------------------------------
    def test_no_client_found(self):
        os.remove(os.path.join(self.s.bin, "claude"))
        r = self.doctor()
        self.assertEqual(r.code, 2, r)
        self.assertIn("problem: no agent client found", r.out)

    def test_without_argument_every_client_found(self):
        self.assertRun(self.s.run(["init", "claude-code"]), 0)
        self.assertRun(self.s.run(["init", "codex"]), 0)  # a hook, but no codex on PATH
        r = self.doctor()
        self.assertIn("ok: claude-code: %s" % CLAUDE_VERSION, r.out)
        self.assertProblem(r, "codex: `codex` is not on PATH")
        self.assertProblem(r, "codex: cannot ask Codex whether it trusts the hook")
        self.assertIn("ok: codex: %s:7: a sample `cat .env` call is blocked" %
                      self.s.path(".codex/hooks.json"), r.out)

    def test_bad_arguments(self):
        for args, msg in ((["cursor"], "unknown client 'cursor'"),
                          (["--trust"], "unknown option '--trust'"),
                          (["codex", "claude-code"], "unexpected argument"),
                          (["--project", "/nonexistent/x"], "--project /nonexistent/x")):
            self.assertRun(self.doctor(*args), 1, msg)
        self.assertRun(self.doctor("--help"), 0, "usage: paldron doctor")


class DoctorCodexTest(PaldronTest):
    """Codex's trust, asked from the real codex."""

    def setUp(self):
        self.s = Setup()
        self.addCleanup(self.s.close)
        self.codex_dir = codex_bin_dir(self)

    def run_p(self, *args):
        return self.s.run(list(args), path_first=[self.codex_dir])

    assertProblem = DoctorTest.assertProblem

    def test_trusted_setup_passes(self):
        self.assertRun(self.run_p("init", "codex", "--trust"), 0)
        r = self.run_p("doctor", "codex")
        self.assertEqual(r.code, 0, r)
        self.assertIn("ok: codex: codex-cli ", r.out)
        self.assertIn("Codex trusts the hook (%s:pre_tool_use:0:0)" %
                      self.s.path(".codex/hooks.json"), r.out)
        self.assertNotIn("problem:", r.out)

    def test_untrusted_project(self):
        self.assertRun(self.run_p("init", "codex"), 0)
        r = self.run_p("doctor", "codex")
        self.assertProblem(r, "Codex ignores %s/.codex/ because the project is not trusted"
                           % self.s.proj, fix="paldron init codex --trust")

    def test_untrusted_hook(self):
        self.assertRun(self.run_p("init", "codex"), 0)
        with open(os.path.join(self.s.codex_home, "config.toml"), "w") as f:
            f.write("[projects.\"%s\"]\ntrust_level = \"trusted\"\n" % self.s.proj)
        r = self.run_p("doctor", "codex")
        self.assertProblem(r, "Codex does not trust the hook (trust status untrusted)",
                           "skips it silently", fix="paldron init codex --trust")

    def test_hook_changed_after_trust(self):
        self.assertRun(self.run_p("init", "codex", "--trust"), 0)
        self.assertRun(self.run_p("init", "codex", "--no-route"), 0)
        r = self.run_p("doctor", "codex")
        self.assertProblem(r, "the hook changed since it was trusted",
                           fix="paldron init codex --no-route --trust")

    def test_invalid_config_toml(self):
        self.assertRun(self.run_p("init", "codex", "--trust"), 0)
        with open(os.path.join(self.s.codex_home, "config.toml"), "a") as f:
            f.write("broken = [\n")
        r = self.run_p("doctor", "codex")
        self.assertProblem(r, "Codex finds its configuration invalid", "config.toml:")

    def test_hook_in_config_toml(self):
        # Codex also takes hooks from config.toml: doctor asks Codex, so it
        # finds and checks that one too (init writes hooks.json only)
        self.assertRun(self.run_p("init", "codex", "--dry-run"), 0)
        self.s.write(".paldron.toml", "deny_globs = [\".env\"]\n")
        with open(os.path.join(self.s.codex_home, "config.toml"), "w") as f:
            f.write("[[hooks.PreToolUse]]\nmatcher = \"*\"\n[[hooks.PreToolUse.hooks]]\n"
                    "type = \"command\"\ncommand = %s\ntimeout = 30\n"
                    % json.dumps(hook_line(self.s.policy)))
        r = self.run_p("doctor", "codex")
        where = os.path.join(self.s.codex_home, "config.toml")
        self.assertProblem(r, "%s: Codex does not trust the hook" % where,
                           fix="paldron init codex --trust (then remove this one)")
        self.assertIn("ok: codex: %s: a sample `cat .env` call is blocked" % where, r.out)
        self.assertNotIn("no Paldron hook", r.out)

    def test_user_hook_trusted(self):
        self.assertRun(self.run_p("init", "codex", "--user", "--trust"), 0)
        r = self.run_p("doctor", "codex")
        self.assertEqual(r.code, 0, r)
        self.assertIn("Codex trusts the hook (%s/hooks.json:pre_tool_use:0:0)" %
                      self.s.codex_home, r.out)


if __name__ == "__main__":
    main()
