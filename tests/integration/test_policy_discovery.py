"""Policy discovery (issue 14): without --policy, the .paldron.toml of the
working directory or of the nearest parent up to the git work-tree root is
used (outside a work tree, the working directory only), and its folder is
the workspace; relative argv paths still start at the working directory.
An unsafe file (another user's, or writable by others) stops the command;
--no-policy skips discovery; a workspace of "/", $HOME or a top-level
folder is refused unless --workspace names it. `check --hook` discovers
from the call's cwd. Run as the unprivileged test user, for real."""

import json
import os
import subprocess
import tempfile

from harness import PALDRON, PaldronTest, Result, Workspace, main, wrapped

# *.private is no built-in secret: a deny of it can only come from this file
POLICY = """allow_paths = ["src/"]
deny_globs = ["*.private"]
allow_binaries = ["cat", "ls", "python3", "git"]
"""
NOTE = "nothing private really\n"
README = "# project readme\n"
USED = "(found from the working directory; --no-policy for the built-in defaults)"


class DiscoveryBase(PaldronTest):
    def setUp(self):
        self.ws = Workspace(as_user=True)
        self.addCleanup(self.ws.close)
        self.user = self.ws.user
        self.root = os.path.realpath(self.ws.path)

    def p(self, *rel):
        return os.path.join(self.root, *rel)

    def put(self, rel, text, mode=0o644):
        self.ws.write(rel, text, mode=mode)
        return self.p(rel)

    def git_init(self, rel="."):
        d = self.p(rel)
        os.makedirs(d, exist_ok=True)
        subprocess.run(["git", "init", "-q", d], check=True)
        self.ws._own()

    def run_user(self, args, cwd, input=None, env=None):
        """paldron as the test user in cwd. Unlike Workspace.run this leaves
        the owners of the files alone (tests here make some root's or
        another user's on purpose)."""
        cmd = ["setpriv", "--reuid", str(self.user.pw_uid), "--regid", str(self.user.pw_gid),
               "--clear-groups", PALDRON] + list(args)
        e = self.ws.env(env)
        e["PWD"] = cwd
        p = subprocess.run(wrapped(cmd), cwd=cwd, env=e, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE,
                           input=input.encode() if input is not None else None,
                           stdin=None if input is not None else subprocess.DEVNULL, timeout=120)
        return Result(p.returncode, p.stdout.decode("utf-8", "replace"),
                      p.stderr.decode("utf-8", "replace"))

    def used_line(self, policy_file):
        return "paldron: policy: %s %s" % (policy_file, USED)


class DiscoveryTest(DiscoveryBase):
    def setUp(self):
        super().setUp()
        self.put("README.md", README)
        self.put("notes.private", NOTE)
        self.put("src/deep/keep.txt", "keep\n")
        self.put("src/deep/local.private", NOTE)
        self.pol = self.put(".paldron.toml", POLICY)

    def test_from_the_project_root(self):
        r = self.run_user(["exec", "--", "cat", "notes.private"], cwd=self.root)
        self.assertRun(r, 2, self.used_line(self.pol),
                       "paldron: deny: notes.private (policy deny_glob) [deny_globs: *.private]",
                       absent=[NOTE])
        r = self.run_user(["exec", "--", "cat", "README.md"], cwd=self.root)
        self.assertRun(r, 0, self.used_line(self.pol), "[STDOUT]\n" + README,
                       absent=["paldron: deny"])
        # check finds it as well
        r = self.run_user(["check", "--", "read_file",
                           json.dumps({"path": self.p("notes.private")})], cwd=self.root)
        self.assertRun(r, 2, self.used_line(self.pol), "(policy deny_glob) [deny_globs: *.private]")

    def test_from_a_subfolder_of_the_work_tree(self):
        self.git_init()
        sub = self.p("src", "deep")
        # relative names start at the working directory
        r = self.run_user(["exec", "--", "cat", "../README.md"], cwd=self.p("src"))
        self.assertRun(r, 0, self.used_line(self.pol), "[STDOUT]\n" + README,
                       absent=["paldron: deny"])
        r = self.run_user(["exec", "--", "cat", "../../README.md"], cwd=sub)
        self.assertRun(r, 0, self.used_line(self.pol), "[STDOUT]\n" + README,
                       absent=["paldron: deny"])
        r = self.run_user(["exec", "--", "cat", "keep.txt"], cwd=sub)
        self.assertRun(r, 0, "[STDOUT]\nkeep\n", absent=["paldron: deny"])
        r = self.run_user(["exec", "--", "cat", "../../notes.private"], cwd=sub)
        self.assertRun(r, 2, self.used_line(self.pol),
                       "paldron: deny: ../../notes.private (policy deny_glob) [deny_globs: "
                       "*.private; resolved notes.private]", absent=[NOTE])
        r = self.run_user(["exec", "--", "cat", "local.private"], cwd=sub)
        self.assertRun(r, 2, "local.private (policy deny_glob)", absent=[NOTE])
        # the workspace is the policy's folder: allow_paths = ["src/"] is the
        # project's src/, so the working directory (inside it) is writable and
        # the project's top is not
        r = self.run_user(["exec", "--", "python3", "-c", "open('made.txt', 'w').write('m')"],
                          cwd=sub)
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)", absent=["paldron: deny", "blocked"])
        self.assertEqual(self.ws.read("src/deep/made.txt"), "m")
        r = self.run_user(["exec", "--", "python3", "-c",
                           "open('../../top.txt', 'w').write('t')"], cwd=sub)
        self.assertRun(r, 1, "PermissionError", "paldron: blocked: python3 create top.txt "
                       "(written ../../top.txt) (outside the writable roots) [live]")
        self.assertFalse(self.ws.exists("top.txt"))

    def test_no_policy_skips_discovery(self):
        r = self.run_user(["exec", "--no-policy", "--", "cat", "notes.private"], cwd=self.root)
        self.assertRun(r, 0, "[STDOUT]\n" + NOTE, absent=["paldron: policy:", "paldron: deny"])
        r = self.run_user(["check", "--no-policy", "--", "read_file",
                           json.dumps({"path": self.p("notes.private")})], cwd=self.root)
        self.assertRun(r, 0, "paldron: allow read_file", absent=["paldron: policy:"])

    def test_policy_and_no_policy_exclude_each_other(self):
        for sub in (["exec"], ["check"]):
            args = sub + ["--policy", self.pol, "--no-policy", "--"] + (
                ["true"] if sub == ["exec"] else ["read_file", '{"path": "README.md"}'])
            r = self.run_user(args, cwd=self.root)
            self.assertRun(r, 1, "paldron: --policy and --no-policy exclude each other",
                           absent=["[EXIT CODE]", "paldron: allow"])

    def test_explicit_policy_wins(self):
        other = os.path.join(self.ws.base, "other.toml")
        with open(other, "w") as f:
            f.write('allow_paths = ["src/"]\n')
        self.ws._own()
        r = self.run_user(["exec", "--policy", other, "--", "cat", "notes.private"], cwd=self.root)
        self.assertRun(r, 0, "[STDOUT]\n" + NOTE, absent=["paldron: policy:", "paldron: deny"])


class DiscoveryLimitsTest(DiscoveryBase):
    def test_stops_at_the_git_root(self):
        # a policy ABOVE the work tree is not used, from its root or below
        outer_pol = self.put(".paldron.toml", 'deny_globs = ["README.md", "a.txt"]\n')
        self.put("proj/README.md", README)
        self.put("proj/src/a.txt", "a\n")
        self.git_init("proj")
        r = self.run_user(["exec", "--", "cat", "README.md"], cwd=self.p("proj"))
        self.assertRun(r, 0, "[STDOUT]\n" + README, absent=["paldron: policy:", "paldron: deny"])
        r = self.run_user(["exec", "--", "cat", "a.txt"], cwd=self.p("proj", "src"))
        self.assertRun(r, 0, "[STDOUT]\na\n", absent=["paldron: policy:", "paldron: deny"])
        # control: from its own folder (no work tree there) it is used
        self.put("README.md", README)
        r = self.run_user(["exec", "--", "cat", "README.md"], cwd=self.root)
        self.assertRun(r, 2, self.used_line(outer_pol), "(policy deny_glob) [deny_globs: README.md]")

    def test_outside_a_work_tree_only_the_working_directory(self):
        self.put(".paldron.toml", POLICY)
        self.put("sub/x.private", NOTE)
        r = self.run_user(["exec", "--", "cat", "x.private"], cwd=self.p("sub"))
        self.assertRun(r, 0, "[STDOUT]\n" + NOTE, absent=["paldron: policy:", "paldron: deny"])
        # the same layout in a work tree finds it
        self.git_init()
        r = self.run_user(["exec", "--", "cat", "x.private"], cwd=self.p("sub"))
        self.assertRun(r, 2, self.used_line(self.p(".paldron.toml")),
                       "x.private (policy deny_glob)", absent=[NOTE])

    def test_nearest_policy_wins(self):
        self.git_init()
        self.put(".paldron.toml", 'deny_globs = ["*.private"]\n')
        inner = self.put("pkg/.paldron.toml", 'deny_globs = ["*.inner"]\n')
        self.put("pkg/a.private", NOTE)
        self.put("pkg/b.inner", NOTE)
        r = self.run_user(["exec", "--", "cat", "a.private"], cwd=self.p("pkg"))
        self.assertRun(r, 0, self.used_line(inner), "[STDOUT]\n" + NOTE,
                       absent=["paldron: deny"])
        r = self.run_user(["exec", "--", "cat", "b.inner"], cwd=self.p("pkg"))
        self.assertRun(r, 2, self.used_line(inner), "b.inner (policy deny_glob)")

    def test_writable_by_others_is_refused(self):
        self.put("notes.private", NOTE)
        for mode in (0o666, 0o664, 0o646):
            pol = self.put(".paldron.toml", POLICY, mode=mode)
            self.assertEqual(os.stat(pol).st_mode & 0o777, mode)
            r = self.run_user(["exec", "--", "cat", "notes.private"], cwd=self.root)
            self.assertRun(r, 1, "paldron: %s is writable by other users: refusing to take rules "
                           "from it (chmod go-w, or name it with --policy)" % pol,
                           absent=["[STDOUT]", NOTE, "paldron: policy:"])
            self.assertEqual(len(r.err.strip().splitlines()), 1, repr(r))
        # named on purpose, it is taken
        r = self.run_user(["exec", "--policy", pol, "--", "cat", "notes.private"], cwd=self.root)
        self.assertRun(r, 2, "notes.private (policy deny_glob)", absent=[NOTE])
        # chmod go-w, and discovery takes it again
        os.chmod(pol, 0o644)
        r = self.run_user(["exec", "--", "cat", "notes.private"], cwd=self.root)
        self.assertRun(r, 2, self.used_line(pol), "notes.private (policy deny_glob)")

    def test_another_users_file_is_refused(self):
        # in a folder the test user owns, a policy owned by someone else
        # (nobody, not root) could only have been put there to steer it
        self.put("notes.private", NOTE)
        pol = self.put(".paldron.toml", POLICY)
        nobody = 65534
        os.chown(pol, nobody, nobody)
        r = self.run_user(["exec", "--", "cat", "notes.private"], cwd=self.root)
        self.assertRun(r, 1, "paldron: %s belongs to uid %d, not to you: refusing to take rules "
                       "from it (name it with --policy if you mean it)" % (pol, nobody),
                       absent=["[STDOUT]", NOTE, "paldron: policy:"])
        self.assertEqual(len(r.err.strip().splitlines()), 1, repr(r))
        # root's file (created as root in the user's folder) is trusted
        os.chown(pol, 0, 0)
        r = self.run_user(["exec", "--", "cat", "notes.private"], cwd=self.root)
        self.assertRun(r, 2, self.used_line(pol), "notes.private (policy deny_glob)",
                       absent=[NOTE])

    def test_hook_discovers_from_the_call_cwd(self):
        self.git_init()
        self.put("README.md", README)
        self.put("notes.private", NOTE)
        self.put("src/deep/keep.txt", "keep\n")

        def payload(cwd, path):
            return json.dumps({
                "session_id": "s-1", "transcript_path": "/nonexistent/t.jsonl", "cwd": cwd,
                "permission_mode": "default", "hook_event_name": "PreToolUse",
                "tool_name": "Read", "tool_input": {"file_path": path}, "tool_use_id": "t-1"})

        note = self.p("notes.private")
        # no policy yet: nothing denies the read
        r = self.run_user(["check", "--hook"], cwd=self.ws.outside,
                          input=payload(self.root, note))
        self.assertRun(r, 0, absent=["deny"])
        self.put(".paldron.toml", POLICY)
        # from the project root and from a subfolder: the deny the file adds
        for cwd in (self.root, self.p("src", "deep")):
            r = self.run_user(["check", "--hook"], cwd=self.ws.outside, input=payload(cwd, note))
            self.assertRun(r, 2, "(policy deny_glob) [deny_globs: *.private]")
            reason = json.loads(r.out)["hookSpecificOutput"]["permissionDecisionReason"]
            self.assertIn("notes.private (policy deny_glob)", reason)
        # --no-policy: the built-in defaults
        r = self.run_user(["check", "--hook", "--no-policy"], cwd=self.ws.outside,
                          input=payload(self.root, note))
        self.assertRun(r, 0, absent=["deny"])
        # the hook's own working directory does not count
        r = self.run_user(["check", "--hook"], cwd=self.root,
                          input=payload(self.ws.outside, note))
        self.assertRun(r, 0, absent=["deny_globs: *.private"])
        # an unsafe file blocks the call
        os.chmod(self.p(".paldron.toml"), 0o666)
        r = self.run_user(["check", "--hook"], cwd=self.ws.outside,
                          input=payload(self.root, self.p("README.md")))
        self.assertRun(r, 2, "is writable by other users", "the tool call is blocked")


class WideWorkspaceTest(DiscoveryBase):
    def refused(self, ws, why):
        return ("paldron: refusing the workspace %s: it is %s, and every file under it would be "
                "in the command's reach; run in a project folder, or name it on purpose with "
                "--workspace %s" % (ws, why, ws))

    def assertNoPolicyAt(self, d):
        if os.path.exists(os.path.join(d, ".paldron.toml")):
            self.skipTest("%s/.paldron.toml exists on this machine" % d)

    def test_root_folder(self):
        self.assertNoPolicyAt("/")
        r = self.run_user(["exec", "--", "true"], cwd="/")
        self.assertRun(r, 1, self.refused("/", "the root folder"), absent=["[EXIT CODE]"])
        r = self.run_user(["check", "--", "read_file", '{"path": "/etc/hostname"}'], cwd="/")
        self.assertRun(r, 1, self.refused("/", "the root folder"), absent=["paldron: allow"])

    def test_home_folder(self):
        home = os.path.realpath(self.user.pw_dir)
        self.assertNoPolicyAt(home)
        r = self.run_user(["exec", "--", "true"], cwd=home)
        self.assertRun(r, 1, self.refused(home, "your home folder"), absent=["[EXIT CODE]"])

    def test_top_level_folders(self):
        for top in ("/tmp", "/home"):
            self.assertNoPolicyAt(top)
            r = self.run_user(["exec", "--", "true"], cwd=top)
            self.assertRun(r, 1, self.refused(top, "a top-level system folder"),
                           absent=["[EXIT CODE]"])

    def test_a_project_folder_is_fine(self):
        r = self.run_user(["exec", "--", "true"], cwd=self.root)
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)", absent=["refusing the workspace"])

    def test_workspace_option_names_the_home_on_purpose(self):
        home = os.path.realpath(self.user.pw_dir)
        fd, path = tempfile.mkstemp(prefix="paldron-discovery-", suffix=".txt", dir=home)
        with os.fdopen(fd, "w") as f:
            f.write("in the home\n")
        os.chown(path, self.user.pw_uid, self.user.pw_gid)
        self.addCleanup(os.unlink, path)
        r = self.run_user(["exec", "--workspace", home, "--", "cat", os.path.basename(path)],
                          cwd=home)
        self.assertRun(r, 0, "[STDOUT]\nin the home\n", "[EXIT CODE] 0 (success)",
                       absent=["refusing the workspace", "paldron: deny"])


if __name__ == "__main__":
    main()
