"""The preload's exec gate: every way to start a program (execve, execv, execvp,
execvpe, execl, execlp, execle, execveat, fexecve, posix_spawn, posix_spawnp,
system, popen, vfork) denied and allowed through ctypes; allow_binaries on
programs started anywhere in the tree; "#!" interpreters; toolchains that run
their own helpers (gcc, git); and targets the preload cannot follow (static,
set-uid) reported as coverage records.
"""
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "preload"))
import preload_fixture as pf  # noqa: E402

POLICY = """allow_paths = ["src/"]
allow_binaries = ["python3", "sh", "echo", "env", "cat"]
"""

ID = "/usr/bin/id"
ECHO = "/usr/bin/echo"


class ExecEntryPoints(pf.PreloadTest):
    def setUp(self):
        super().setUp()
        self.sb = self.sandbox(POLICY)

    def denied(self, *call, path=ID):
        r = self.sb.probe(*call)
        self.assertDenied(r)
        self.assertNotIn("uid=", r.out)
        rec = self.assertRecord(self.sb.records(), kind="deny", op="exec", path=path,
                                reason="not in allow_binaries", key="allow_binaries",
                                program="python3")
        return rec

    def allowed(self, *call):
        r = self.sb.probe(*call)
        self.assertOut(r, 0, "hi-from-child", absent=("fail",))
        self.assertNoRecord(self.sb.records(), kind="deny")

    def test_execve_family(self):
        for fn in ("execve", "execv"):
            with self.subTest(fn=fn):
                rec = self.denied(fn, ID, "id")
                self.assertEqual(rec["resolved"], os.path.realpath(ID))
                self.allowed(fn, ECHO, "echo", "hi-from-child")
        for fn in ("execvp", "execvpe"):
            with self.subTest(fn=fn):
                self.denied(fn, "id", "id", path="id")
                self.allowed(fn, "echo", "echo", "hi-from-child")
        with self.subTest(fn="execl"):
            self.denied("execl", ID, "id")
            self.allowed("execl", ECHO, "echo", "hi-from-child")
        with self.subTest(fn="execlp"):
            self.denied("execlp", "id", "id", path="id")
            self.allowed("execlp", "echo", "echo", "hi-from-child")
        with self.subTest(fn="execle"):
            self.denied("execle", ID, "id")
            self.allowed("execle", ECHO, "echo", "hi-from-child")
        with self.subTest(fn="execveat"):
            self.denied("execveat", "/usr/bin", "id", "id", path="/usr/bin/id")
            self.allowed("execveat", "/usr/bin", "echo", "echo", "hi-from-child")
        with self.subTest(fn="fexecve"):
            self.denied("fexecve", ID, "id", path=os.path.realpath(ID))
            self.allowed("fexecve", ECHO, "echo", "hi-from-child")

    def test_posix_spawn(self):
        self.denied("posix_spawn", ID, "id")
        self.allowed("posix_spawn", ECHO, "echo", "hi-from-child")
        self.denied("posix_spawnp", "id", "id", path="id")
        self.allowed("posix_spawnp", "echo", "echo", "hi-from-child")

    def test_system_and_popen_gate_the_shell_and_the_shell_gates_the_command(self):
        r = self.sb.probe("system", "echo hi-from-child")
        self.assertOut(r, 0, "hi-from-child", "ok")
        r = self.sb.probe("system", "/usr/bin/id")
        self.assertNotIn("uid=", r.out)
        self.assertRecord(self.sb.records(), kind="deny", op="exec", path="/usr/bin/id",
                          program="sh")
        r = self.sb.probe("popen", "echo hi")
        self.assertOut(r, 0, "ok")
        sb = self.sandbox('allow_binaries = ["python3"]\n')
        r = sb.probe("system", "echo hi-from-child")
        self.assertDenied(r)
        self.assertNotIn("hi-from-child", r.out)
        self.assertRecord(sb.records(), kind="deny", op="exec", path="/bin/sh")
        r = sb.probe("popen", "echo hi-from-child")
        self.assertDenied(r)

    def test_vfork_runs_as_fork(self):
        r = self.sb.probe("vfork")
        self.assertAllowed(r)


class AllowBinaries(pf.PreloadTest):
    def test_allowed_python_cannot_start_other_programs(self):
        sb = self.sandbox(POLICY)
        code = ("import subprocess, sys\n"
                "for argv in (['/usr/bin/id'], ['curl', '--version'], ['echo', 'fine']):\n"
                "    try:\n"
                "        subprocess.run(argv, check=False)\n"
                "    except OSError as e:\n"
                "        print(argv[0], e.errno)\n")
        r = sb.run([pf.PYTHON, "-c", code])
        self.assertOut(r, 0, "/usr/bin/id 13", "fine", absent=("uid=",))
        recs = sb.records()
        self.assertRecord(recs, kind="deny", op="exec", path="/usr/bin/id")
        if shutil.which("curl", path=pf.RUN_PATH):
            self.assertIn("curl 13", r.out)
            self.assertRecord(recs, kind="deny", op="exec", reason="not in allow_binaries")

    def test_grandchildren_are_gated_too(self):
        sb = self.sandbox(POLICY)
        r = sb.run(["sh", "-c", "env sh -c 'python3 -c \"import os; os.execv(\\\"/usr/bin/id\\\", [\\\"id\\\"])\"'"])
        self.assertNotEqual(r.code, 0, repr(r))
        self.assertNotIn("uid=", r.out)
        self.assertRecord(sb.records(), kind="deny", path="/usr/bin/id", program="python3")

    def test_scripts_are_judged_by_their_interpreter(self):
        sb = self.sandbox(POLICY)
        sb.write("src/tool.py", "#!/usr/bin/env python3\nprint('py-script-ran')\n", 0o755)
        sb.write("src/tool.sh", "#!/bin/sh\necho sh-script-ran\n", 0o755)
        sb.write("src/tool.bash", "#!/bin/bash\necho bash-script-ran\n", 0o755)
        r = sb.run(["sh", "-c", "./src/tool.py; ./src/tool.sh; ./src/tool.bash; true"])
        self.assertOut(r, 0, "py-script-ran", "sh-script-ran", absent=("bash-script-ran",))
        rec = self.assertRecord(sb.records(), kind="deny", op="exec", path="./src/tool.bash")
        self.assertEqual(rec["reason"], "not in allow_binaries")

    def test_a_workspace_copy_of_an_allowed_name_does_not_run(self):
        sb = self.sandbox(POLICY)
        os.makedirs(sb.path("src/bin"))
        shutil.copy("/usr/bin/id", sb.path("src/bin/cat"))
        r = sb.run(["sh", "-c", "./src/bin/cat"])
        self.assertNotIn("uid=", r.out)
        self.assertRecord(sb.records(), kind="deny", op="exec", path="./src/bin/cat")

    def test_gcc_runs_its_helpers_with_only_its_name_allowed(self):
        if not shutil.which("gcc", path=pf.RUN_PATH):
            pf.skip(self, "gcc not installed")
        sb = self.sandbox('allow_paths = ["src/"]\nallow_binaries = ["gcc"]\n', roots=[])
        sb.write("src/t.c", "int main(void) { return 3; }\n")
        tmp = sb.path("src/tmp")
        os.makedirs(tmp)
        r = sb.run(["gcc", "src/t.c", "-o", "src/t"], env=sb.env({"TMPDIR": tmp}))
        self.assertOut(r, 0)
        self.assertNoRecord(sb.records(), kind="deny")
        self.assertEqual(subprocess.run([sb.path("src/t")]).returncode, 3)

    def test_git_runs_its_helpers_with_only_its_name_allowed(self):
        if not shutil.which("git", path=pf.RUN_PATH):
            pf.skip(self, "git not installed")
        sb = self.sandbox('allow_paths = []\nallow_binaries = ["git"]\n')
        env = dict(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@e", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@e", GIT_CONFIG_NOSYSTEM="1", PATH=pf.RUN_PATH)
        subprocess.run(["git", "init", "-q", sb.ws], check=True, env=env)
        sb.write("a.txt", "a\n")
        r = sb.run(["git", "add", "a.txt"], env=sb.env(env))
        self.assertOut(r, 0)
        # "git commit" starts /usr/lib/git-core/git (maintenance): a helper
        r = sb.run(["git", "commit", "-q", "-m", "one"], env=sb.env(env, debug=True))
        self.assertOut(r, 0)
        self.assertNoRecord(sb.records(), kind="deny")
        r = sb.run(["git", "-c", "alias.x=!id", "x"], env=sb.env(env))
        self.assertNotEqual(r.code, 0, repr(r))
        self.assertRecord(sb.records(), kind="deny", op="exec", program="git")


class Coverage(pf.PreloadTest):
    def static_program(self):
        probe = os.path.join(pf.BINARY_DIR, "tests", "probe", "probe_static")
        return probe if os.access(probe, os.X_OK) else pf.tool("static_hello")

    def test_static_target_is_reported_unmonitored(self):
        sb = self.sandbox("allow_binaries = []\n")
        prog = self.static_program()
        shutil.copy(pf.tool("static_hello"), sb.path("hello-static"))
        r = sb.run(["sh", "-c", "./hello-static"])
        self.assertOut(r, 0, "static")
        rec = self.assertRecord(sb.records(), kind="coverage", op="exec", path="./hello-static",
                                reason="static binary", program="sh")
        self.assertEqual(rec["resolved"], sb.path("hello-static"))
        r = sb.run(["sh", "-c", prog + " >/dev/null 2>&1; true"])
        self.assertRecord(sb.records(), kind="coverage", reason="static binary")
        self.assertNoRecord(sb.records(), kind="deny")

    def test_static_target_still_passes_the_gate_first(self):
        sb = self.sandbox('allow_binaries = ["sh"]\n')
        shutil.copy(pf.tool("static_hello"), os.path.join(sb.outside, "hello-static"))
        r = sb.run(["sh", "-c", os.path.join(sb.outside, "hello-static")])
        self.assertNotIn("static\n", r.out)
        self.assertRecord(sb.records(), kind="deny", op="exec")

    def test_setuid_target_is_reported_unmonitored(self):
        sb = self.sandbox("allow_binaries = []\n")
        target = os.path.join(sb.outside, "suid-echo")
        shutil.copy("/usr/bin/echo", target)
        os.chmod(target, 0o4755)
        r = sb.run(["sh", "-c", target + " suid-ran"])
        self.assertOut(r, 0, "suid-ran")
        self.assertRecord(sb.records(), kind="coverage", reason="set-uid program", path=target)

    def test_dynamic_target_is_not_reported(self):
        sb = self.sandbox("allow_binaries = []\n")
        r = sb.run(["sh", "-c", "/usr/bin/echo dyn"])
        self.assertOut(r, 0, "dyn")
        self.assertNoRecord(sb.records(), kind="coverage")


if __name__ == "__main__":
    pf.main()
