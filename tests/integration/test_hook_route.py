"""Hook routing (issue 12, item 1): `check --hook` rewrites an allowed shell
call to run under `paldron exec --routed`; the rewritten command is then run
for real as the unprivileged user, the way the client runs it (`bash -c`
in the call's working directory). Also static-only mode, the project
workspace, refused inputs, and `exec --routed` / `exec --workspace`."""

import json
import os
import subprocess

from harness import PaldronTest, Workspace, main

POLICY = """allow_paths = ["src/"]
deny_globs = [".env", ".env.*", "*.pem"]
allow_network = false
allow_binaries = ["ls", "cat", "git", "python3", "sh", "echo", "grep", "find", "sed"]
"""
CANARY = "CANARY-7f3a9c1e-route"


def payload(cwd, command, tool="Bash", **extra):
    tool_input = {"command": command, "description": "run"}
    tool_input.update(extra)
    return {"session_id": "s", "transcript_path": "/t.jsonl", "cwd": cwd,
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": tool_input, "tool_use_id": "toolu_1"}


class RouteTest(PaldronTest):
    def setUp(self):
        self.ws = Workspace(as_user=True)
        self.addCleanup(self.ws.close)
        self.ws.write(".env", "API_KEY=%s\n" % CANARY)
        self.ws.write("src/a.txt", "alpha\nbeta\n")
        self.ws.write("README.md", "# readme\n")
        self.pol = self.ws.write(".paldron.toml", POLICY)
        self.git("init", "-q")
        self.git("add", "src/a.txt", "README.md")
        self.git("commit", "-qm", "init")

    def git(self, *args):
        r = self.ws.run(["-c", "user.email=t@t", "-c", "user.name=t"] + list(args),
                        prog="/usr/bin/git")
        self.assertEqual(r.code, 0, repr(r))

    def hook(self, data, args=(), cwd=None, policy=None):
        text = data if isinstance(data, (str, bytes)) else json.dumps(data)
        return self.ws.run(["check", "--policy", policy or self.pol, "--hook"] + list(args),
                           input=text, cwd=cwd)

    def routed(self, r):
        self.assertRun(r, 0)
        out = json.loads(r.out)["hookSpecificOutput"]
        self.assertEqual(out["hookEventName"], "PreToolUse")
        self.assertEqual(out["permissionDecision"], "allow", repr(r))
        self.assertIsInstance(out["updatedInput"]["command"], str)
        return out["updatedInput"]

    def run_as_client(self, command, cwd=None):
        """What the client does with updatedInput.command: its shell runs it."""
        return self.ws.run(["-c", command], prog="/bin/bash", cwd=cwd or self.ws.path,
                           timeout=60)

    # --- the rewritten call ---------------------------------------------------
    def test_routed_command_shape(self):
        r = self.hook(payload(self.ws.path, "cat src/a.txt", timeout=5000))
        upd = self.routed(r)
        self.assertEqual(upd["description"], "run")  # every other key is kept
        self.assertEqual(upd["timeout"], 5000)
        cmd = upd["command"]
        paldron = os.path.realpath(os.path.join(os.environ.get("PALDRON_BINARY_DIR", ""),
                                                "launcher", "paldron"))
        self.assertTrue(cmd.startswith("'%s' exec --routed " % paldron), cmd)
        self.assertIn(" --policy '%s'" % os.path.realpath(self.pol), cmd)
        self.assertIn(" --workspace '%s'" % os.path.realpath(self.ws.path), cmd)
        self.assertIn(" --timeout 5 ", cmd)  # the client's 5000 ms
        self.assertTrue(cmd.endswith(" -- 'cat src/a.txt'"), cmd)
        self.assertEqual(r.err, "")

    def test_routed_run_is_transparent(self):
        for command, out in [("cat src/a.txt", "alpha\nbeta\n"),
                             ("ls src", "a.txt\n"),
                             ("grep -n beta src/a.txt", "2:beta\n"),
                             ("echo 'it'\"'\"'s' && echo two", "it's\ntwo\n")]:
            upd = self.routed(self.hook(payload(self.ws.path, command)))
            bare = self.ws.run(["-c", command], prog="/bin/bash")
            got = self.run_as_client(upd["command"])
            self.assertRun(got, 0)
            self.assertEqual(got.out, out, command)
            self.assertEqual((got.code, got.out, got.err), (bare.code, bare.out, bare.err),
                             command)

    def test_routed_exit_status_and_stderr_pass_through(self):
        upd = self.routed(self.hook(payload(self.ws.path, "cat src/nope; echo done; sh -c 'exit 3'")))
        got = self.run_as_client(upd["command"])
        self.assertRun(got, 3, "cat: src/nope: No such file or directory", "done")
        self.assertNotIn("paldron", got.err)

    def test_routed_python_reading_env_is_denied_at_run_time(self):
        cmd = "python3 -c \"print(open('.env').read())\""
        upd = self.routed(self.hook(payload(self.ws.path, cmd)))
        got = self.run_as_client(upd["command"])
        self.assertNotEqual(got.code, 0, repr(got))
        self.assertIn("Permission denied", got.err)
        self.assertIn("paldron: deny: python3 read .env", got.err)
        self.assertNotIn(CANARY, got.both)

    def test_routed_git_commit_under_allow_paths_src(self):
        cmd = ("echo gamma >> src/a.txt && git add src/a.txt && "
               "git -c user.email=t@t -c user.name=t commit -qm change && git log --oneline")
        upd = self.routed(self.hook(payload(self.ws.path, cmd)))
        got = self.run_as_client(upd["command"])
        self.assertRun(got, 0, "change", "init")
        # the hooks and config of the repository stay protected
        # (not literal: a literal .git/hooks path is blocked by the hook itself)
        bad = "h=.git/hooks; echo x > $h/pre-commit; git config core.pager id"
        upd = self.routed(self.hook(payload(self.ws.path, bad)))
        got = self.run_as_client(upd["command"])
        self.assertNotEqual(got.code, 0)
        self.assertIn("paldron: deny:", got.err)
        self.assertFalse(self.ws.exists(".git/hooks/pre-commit"))
        self.assertNotIn("pager", self.ws.read(".git/config"))

    def test_subfolder_cwd_keeps_the_project_workspace(self):
        sub = os.path.join(self.ws.path, "src")
        upd = self.routed(self.hook(payload(sub, "cat a.txt"), cwd=sub))
        self.assertIn(" --workspace '%s'" % os.path.realpath(self.ws.path), upd["command"])
        got = self.run_as_client(upd["command"], cwd=sub)
        self.assertRun(got, 0)
        self.assertEqual(got.out, "alpha\nbeta\n")
        # a literal ../.env from src is the project's .env
        self.assertRun(self.hook(payload(sub, "cat ../.env"), cwd=sub), 2, "paldron: deny:",
                       ".env")

    def test_explicit_workspace_refuses_a_cwd_outside_it(self):
        r = self.hook(payload(self.ws.outside, "ls"), ["--workspace", self.ws.path])
        self.assertRun(r, 2, "outside the workspace")
        self.assertNotIn("updatedInput", r.out)

    def test_literal_deny_is_not_routed(self):
        for cmd, frag in [("cat .env", ".env"), ("echo x > .git/hooks/pre-commit", "protected"),
                          ("curl http://127.0.0.1/", "network"), ("id", "not in allow_binaries")]:
            r = self.hook(payload(self.ws.path, cmd))
            self.assertRun(r, 2, "paldron: deny: Bash tool call:", frag)
            self.assertEqual(json.loads(r.out)["hookSpecificOutput"]["permissionDecision"], "deny")

    def test_argv_command_is_routed_as_a_string(self):
        r = self.hook(payload(self.ws.path, ["cat", "src/a.txt"], tool="shell"))
        upd = self.routed(r)
        self.assertTrue(upd["command"].endswith(" -- ''\\''cat'\\'' '\\''src/a.txt'\\'''"),
                        upd["command"])
        got = self.run_as_client(upd["command"])
        self.assertRun(got, 0)
        self.assertEqual(got.out, "alpha\nbeta\n")

    def test_client_shell_argv_routes_its_script(self):
        # ["bash", "-lc", SCRIPT]: the client's shell; SCRIPT runs in Paldron's
        upd = self.routed(self.hook(payload(self.ws.path, ["bash", "-lc", "cat src/a.txt"],
                                            tool="shell")))
        self.assertTrue(upd["command"].endswith(" -- 'cat src/a.txt'"), upd["command"])
        got = self.run_as_client(upd["command"])
        self.assertRun(got, 0)
        self.assertEqual(got.out, "alpha\nbeta\n")

    def test_cmd_key_is_judged_and_replaced(self):
        data = payload(self.ws.path, "x")
        del data["tool_input"]["command"]
        data["tool_input"]["cmd"] = "cat .env"
        self.assertRun(self.hook(data), 2, "paldron: deny:", ".env")
        data["tool_input"]["cmd"] = "cat src/a.txt"
        upd = self.routed(self.hook(data))
        self.assertNotIn("cmd", upd)
        self.assertTrue(upd["command"].endswith(" -- 'cat src/a.txt'"), upd["command"])

    def test_apply_patch_shell_call_is_judged_not_routed(self):
        ok = "*** Begin Patch\n*** Add File: src/new.txt\n+hi\n*** End Patch\n"
        for command in ("apply_patch <<'EOF'\n%sEOF\n" % ok, ["apply_patch", ok]):
            r = self.hook(payload(self.ws.path, command))
            self.assertRun(r, 0)
            self.assertEqual(r.out, "", "an apply_patch call is left for the client to apply")
        bad = "*** Begin Patch\n *** Add File: .git/hooks/pre-commit\n+id\n*** End Patch\n"
        for command in ("apply_patch <<'EOF'\n%sEOF\n" % bad, ["apply_patch", bad]):
            self.assertRun(self.hook(payload(self.ws.path, command)), 2, "paldron: deny:",
                           ".git/hooks/pre-commit")

    # --- timeouts ---------------------------------------------------------------
    def test_client_timeout_unless_the_policy_sets_one(self):
        upd = self.routed(self.hook(payload(self.ws.path, "ls")))
        self.assertIn(" --timeout 120 ", upd["command"])  # Claude Code's default
        upd = self.routed(self.hook(payload(self.ws.path, "ls", run_in_background=True)))
        self.assertIn(" --timeout 86400 ", upd["command"])
        # a policy that sets timeout_sec caps the client's limit at run time
        pol = self.ws.write(".paldron.toml", "timeout_sec = 2\n")
        upd = self.routed(self.hook(payload(self.ws.path, "sleep 5; echo late"), policy=pol))
        got = self.run_as_client(upd["command"])
        self.assertRun(got, 124, "paldron: command timed out after 2 s", absent=["late"])
        # without timeout_sec in the file, the client's 120 s hold (not the default 30)
        pol = self.ws.write(".paldron.toml", "allow_network = false\n")
        upd = self.routed(self.hook(payload(self.ws.path, "sleep 1; echo on time", timeout=3000),
                                    policy=pol))
        got = self.run_as_client(upd["command"])
        self.assertRun(got, 0, "on time")

    # --- static-only mode ----------------------------------------------------------
    def test_no_route_allows_bare_and_warns_about_interpreters(self):
        r = self.hook(payload(self.ws.path, "cat src/a.txt"), ["--no-route"])
        self.assertRun(r, 0, "warning: static-only hook mode", "python3", "sh")
        self.assertEqual(r.out, "")

    def test_no_route_blocks_what_it_cannot_judge(self):
        r = self.hook(payload(self.ws.path, "f=.env; cat $f"), ["--no-route"])
        self.assertRun(r, 2, "cannot judge statically", "static-only mode")
        pol = self.ws.write(".paldron.toml", POLICY + "hook_route = false\n")
        r = self.hook(payload(self.ws.path, "f=.env; cat $f"), policy=pol)
        self.assertRun(r, 2, "cannot judge statically")
        # routing on: the same call runs in the sandbox, which refuses the read
        self.ws.write(".paldron.toml", POLICY)
        upd = self.routed(self.hook(payload(self.ws.path, "f=.env; cat $f")))
        got = self.run_as_client(upd["command"])
        self.assertRun(got, 1, "Permission denied", "paldron: deny: cat read .env",
                       absent=[CANARY])

    # --- inputs the hook refuses -------------------------------------------------
    def test_broken_or_missing_policy_blocks_never_routes(self):
        bad = self.ws.write("bad.toml", "allow_paths = [\n")
        for pol in (bad, os.path.join(self.ws.path, "missing.toml")):
            r = self.hook(payload(self.ws.path, "ls"), policy=pol)
            self.assertRun(r, 2, "Paldron itself failed")
            self.assertNotIn("updatedInput", r.out)

    def test_nul_in_the_input_is_refused(self):
        text = json.dumps(payload(self.ws.path, "cat src/a.txt\u0000; cat .env"))
        self.assertIn("\\u0000", text)
        self.assertRun(self.hook(text), 2, "NUL")
        raw = text.replace("\\u0000", "\u0000").encode()
        self.assertRun(self.hook(raw), 2, "NUL byte")
        # an escaped backslash before u0000 is six characters, not a NUL
        ok = json.dumps(payload(self.ws.path, "echo '\\u0000'"))
        self.routed(self.hook(ok))

    def test_duplicate_keys_are_refused(self):
        text = ('{"hook_event_name":"PreToolUse","cwd":"%s","tool_name":"Bash","tool_input":'
                '{"command":"cat src/a.txt","command":"cat .env"}}' % self.ws.path)
        self.assertRun(self.hook(text), 2, "the key \"command\" twice")
        text = ('{"hook_event_name":"PreToolUse","cwd":"%s","tool_name":"Read",'
                '"tool_name":"Bash","tool_input":{"command":"ls"}}' % self.ws.path)
        self.assertRun(self.hook(text), 2, "the key \"tool_name\" twice")


class PolicyFromGitRootTest(PaldronTest):
    """--policy-from-git-root: the hook finds the project's policy itself, so
    that one user-level hook command serves every repository."""

    def setUp(self):
        self.ws = Workspace()
        self.addCleanup(self.ws.close)
        self.ws.write("src/a.txt", "alpha\n")
        self.ws.write(".paldron.toml", POLICY)
        subprocess.run(["git", "init", "-q", self.ws.path], check=True)

    def hook(self, cwd, command, extra=()):
        data = json.dumps(payload(cwd, command))
        return self.ws.run(["check", "--policy-from-git-root", "--hook"] + list(extra),
                           input=data, cwd=self.ws.outside)

    def test_policy_at_the_root_of_the_work_tree(self):
        sub = os.path.join(self.ws.path, "src")
        r = self.hook(sub, "cat a.txt")
        self.assertRun(r, 0)
        cmd = json.loads(r.out)["hookSpecificOutput"]["updatedInput"]["command"]
        self.assertIn("--policy '%s/.paldron.toml'" % os.path.realpath(self.ws.path), cmd)
        self.assertRun(self.hook(sub, "cat ../.env"), 2, "paldron: deny: Bash tool call:")

    def test_no_repository_or_no_policy_blocks(self):
        self.assertRun(self.hook(self.ws.outside, "ls"), 2, "is in no git repository")
        os.unlink(os.path.join(self.ws.path, ".paldron.toml"))
        self.assertRun(self.hook(self.ws.path, "ls"), 2, "no policy at")

    def test_conflicting_options(self):
        r = self.ws.run(["check", "--policy", "x.toml", "--policy-from-git-root", "--hook"],
                        input="{}")
        self.assertRun(r, 2, "exclude each other")
        r = self.ws.run(["check", "--no-route", "--", "read_file", "{}"])
        self.assertRun(r, 1, "go with --hook")


class ExecRoutedTest(PaldronTest):
    def setUp(self):
        self.ws = Workspace(as_user=True)
        self.addCleanup(self.ws.close)
        self.ws.write("src/a.txt", "alpha\n")
        self.ws.write(".env", "K=%s\n" % CANARY)
        self.pol = self.ws.policy('allow_paths = ["src/"]\nallow_binaries = ["ls", "cat"]\n')

    def test_own_shell_is_not_judged_but_what_it_starts_is(self):
        r = self.ws.run(["exec", "--routed", "--policy", self.pol, "--", "ls src | cat"])
        self.assertRun(r, 0)
        self.assertEqual(r.out, "a.txt\n")
        r = self.ws.run(["exec", "--routed", "--policy", self.pol, "--", "ls src; bash -c ls"])
        self.assertNotEqual(r.code, 0)
        self.assertIn("a.txt", r.out)
        self.assertIn("paldron: deny: bash exec", r.err)
        self.assertIn("not in allow_binaries", r.err)

    def test_plain_command_runs_directly_and_is_judged(self):
        r = self.ws.run(["exec", "--routed", "--policy", self.pol, "--", "cat src/a.txt"])
        self.assertRun(r, 0)
        self.assertEqual((r.out, r.err), ("alpha\n", ""))
        r = self.ws.run(["exec", "--routed", "--policy", self.pol, "--", "id -u"])
        self.assertRun(r, 2, "paldron: deny: binary 'id' not in allow_binaries")

    def test_routed_takes_one_command_text(self):
        r = self.ws.run(["exec", "--routed", "--policy", self.pol, "--", "ls", "src"])
        self.assertRun(r, 1, "exec --routed takes one command text")

    def test_workspace_option(self):
        src = os.path.join(self.ws.path, "src")
        r = self.ws.run(["exec", "--routed", "--policy", self.pol, "--workspace", self.ws.path,
                         "--", "cat a.txt ../.env"], cwd=src)
        self.assertEqual(r.out, "alpha\n")
        self.assertIn("Permission denied", r.err)
        self.assertNotIn(CANARY, r.both)
        r = self.ws.run(["exec", "--policy", self.pol, "--workspace", src, "--", "ls"])
        self.assertRun(r, 2, "paldron: deny: the working directory", "is outside the workspace")
        r = self.ws.run(["exec", "--workspace", "relative", "--", "ls"])
        self.assertRun(r, 1, "--workspace needs an absolute directory")


if __name__ == "__main__":
    main()
