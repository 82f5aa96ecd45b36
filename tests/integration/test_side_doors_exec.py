"""Side doors around allow_binaries (issue 10, items 1, 2 and 4), tried as a
steered agent would, as the unprivileged test user with every layer on:
programs are judged by identity (a link named like an allowed program, the
dynamic loader, a relative "#!" interpreter, a memfd or deleted file started
through a descriptor), the kernel floor (a static binary cannot start a program
outside the list either), and capture mode leaves the command without a
terminal. Plus what must keep working: aliases outside the writable roots
(gmake -> make), a virtualenv's python link, a "./bin/app" entry."""

import os
import pty
import select
import shlex
import subprocess

from harness import PALDRON, main, skip
from test_exec_result import ExecBase, example_policy

ID = "/usr/bin/id"
LOADER = "/lib64/ld-linux-x86-64.so.2"

# ctypes helpers for the descriptor-based starts (memfd, execveat)
FD_EXEC = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def cargv(words):
    arr = (ctypes.c_char_p * (len(words) + 1))()
    arr[:-1] = [w.encode() for w in words]
    arr[-1] = None
    return arr
argv = cargv(["id"])
envp = cargv(["%s=%s" % kv for kv in os.environ.items()])
how = sys.argv[1]
if how == "deleted":
    fd = os.open("src/copy", os.O_RDONLY)
    os.unlink("src/copy")
else:
    fd = os.memfd_create("tool")
    with open("/usr/bin/id", "rb") as f:
        os.write(fd, f.read())
if how in ("memfd-fexecve", "deleted"):
    libc.fexecve(fd, argv, envp)
else:
    libc.execveat(fd, b"", argv, envp, 0x1000)  # AT_EMPTY_PATH
print("refused", ctypes.get_errno(), flush=True)
"""


class SideDoorsExecTest(ExecBase):
    def assertNoId(self, r):
        self.assertNotIn("uid=", r.out, repr(r))

    # --- item 1: identity ------------------------------------------------------
    def test_link_named_like_an_allowed_program_as_the_command(self):
        os.symlink(ID, self.p("src/python3"))
        r = self.exec(["src/python3"], policy=example_policy(binaries=["python3"]))
        self.assertRun(r, 2, "binary 'python3' resolves to %s" % ID)
        self.assertNoId(r)

    def test_link_named_like_an_allowed_program_inside_the_run(self):
        self.ws.write("src/alias.py", "import os\n"
                      "os.symlink('%s', 'src/python3')\n"
                      "os.execv('src/python3', ['python3'])\n" % ID)
        r = self.exec(["python3", "src/alias.py"], policy=example_policy(binaries=["python3"]))
        # the line shows the file judged, the name written, and what to add
        self.assertRun(r, 2, "paldron: deny: python3 exec %s (written src/python3) "
                       "(not in allow_binaries) [live] (add \"id\" to allow_binaries)"
                       % os.path.realpath(ID))
        self.assertNoId(r)

    def test_link_named_like_an_allowed_program_started_by_a_static_binary(self):
        self.copy_probes()
        script = ("python3 -c \"import os; os.symlink('%s', 'src/python3')\" && "
                  "src/probe_static exec src/python3" % ID)
        r = self.exec(["sh", "-c", script],
                      policy=example_policy(binaries=["sh", "python3"] + self.probe_paths()))
        self.assertNoId(r)
        self.assertEqual(self.probe_result(r), (-1, 13), repr(r))

    def test_loader_is_judged_by_the_program_it_runs(self):
        if not os.path.exists(LOADER):
            skip(self, "no %s here" % LOADER)
        self.ws.write("src/ld.py", "import os\nos.execv('%s', ['ld', '%s'])\n" % (LOADER, ID))
        r = self.exec(["python3", "src/ld.py"], policy=example_policy(binaries=["python3"]))
        real = os.path.realpath(LOADER)
        shown = real if real == LOADER else "%s (written %s)" % (real, LOADER)
        self.assertRun(r, 2, "paldron: deny: python3 exec %s (not in allow_binaries) [live]"
                       % shown)
        self.assertNoId(r)
        # the loader starting an allowed program is that program
        self.ws.write("src/ld2.py", "import os\n"
                      "os.execv('%s', ['ld', '/usr/bin/python3', '-c', 'print(7*6)'])\n" % LOADER)
        r = self.exec(["python3", "src/ld2.py"], policy=example_policy(binaries=["python3"]))
        self.assertRun(r, 0, "[STDOUT]\n42\n", absent=["paldron: deny"])

    def test_relative_interpreter_is_resolved_against_the_working_directory(self):
        with open(ID, "rb") as f:
            data = f.read()
        with open(self.p("src/tool"), "wb") as f:
            f.write(data)
        os.chmod(self.p("src/tool"), 0o755)
        self.ws.write("src/s", "#!src/tool\n", mode=0o755)
        self.ws.write("src/m", "#!src/missing\n", mode=0o755)
        self.ws.write("src/run.py", "import os, sys\nos.execv(sys.argv[1], ['x'])\n")
        pol = example_policy(binaries=["python3"])
        r = self.exec(["python3", "src/run.py", "src/s"], policy=pol)
        self.assertRun(r, 2, "paldron: deny: python3 exec src/s (not in allow_binaries) [live]")
        self.assertNoId(r)
        r = self.exec(["python3", "src/run.py", "src/m"], policy=pol)
        self.assertRun(r, 2, "paldron: deny: python3 exec src/m (not in allow_binaries) [live]")

    def fd_exec(self, how):
        self.ws.write("src/fdexec.py", FD_EXEC)
        if how == "deleted":
            with open(ID, "rb") as f:
                data = f.read()
            with open(self.p("src/copy"), "wb") as f:
                f.write(data)
            os.chmod(self.p("src/copy"), 0o755)
            self.ws._own()
        return self.exec(["python3", "src/fdexec.py", how],
                         policy=example_policy(binaries=["python3"]))

    def test_memfd_fexecve_is_denied(self):
        r = self.fd_exec("memfd-fexecve")
        self.assertRun(r, 2, "paldron: deny: python3 exec /proc/self/fd/", "[live]")
        self.assertNoId(r)
        self.assertIn("refused 13", r.out)

    def test_memfd_execveat_empty_path_is_denied(self):
        r = self.fd_exec("memfd-execveat")
        self.assertRun(r, 2, "paldron: deny: python3 exec /proc/self/fd/", "[live]")
        self.assertNoId(r)
        self.assertIn("refused 13", r.out)

    def test_deleted_file_fexecve_is_denied(self):
        r = self.fd_exec("deleted")
        self.assertRun(r, 2, "paldron: deny: python3 exec /proc/self/fd/", "[live]")
        self.assertNoId(r)

    # --- item 2: the kernel floor ------------------------------------------------
    def test_static_binary_cannot_start_a_program_outside_the_list(self):
        self.copy_probes()
        pol = example_policy(binaries=["sh", "cp"] + self.probe_paths())
        r = self.exec(["sh", "-c", "src/probe_static exec %s" % ID], policy=pol)
        self.assertNoId(r)
        self.assertEqual(self.probe_result(r), (-1, 13), repr(r))
        # nor a copy written where the run may write and no allowed program lives
        r = self.exec(["sh", "-c", 'cp %s "$HOME/x" && src/probe_static exec "$HOME/x"' % ID],
                      policy=pol)
        self.assertNoId(r)
        self.assertEqual(self.probe_result(r), (-1, 13), repr(r))

    # --- what keeps working ----------------------------------------------------------
    def test_alias_outside_the_writable_roots_matches_its_target(self):
        if not os.path.islink("/usr/bin/gmake"):
            skip(self, "no gmake link here")
        pol = example_policy(binaries=["make", "sh"])
        r = self.exec(["gmake", "--version"], policy=pol)
        self.assertRun(r, 0, "GNU Make", absent=["paldron: deny"])
        r = self.exec(["sh", "-c", "gmake --version"], policy=pol)
        self.assertRun(r, 0, "GNU Make", absent=["paldron: deny"])

    def test_virtualenv_python_link_matches_python3(self):
        self.ws.mkdir("src/.venv/bin")
        os.symlink("/usr/bin/python3", self.p("src/.venv/bin/python"))
        self.ws._own()
        pol = example_policy(binaries=["python3"])
        r = self.exec(["src/.venv/bin/python", "-c", "print('venv ok')"], policy=pol)
        self.assertRun(r, 0, "[STDOUT]\nvenv ok\n", absent=["paldron: deny"])
        self.ws.write("src/v.py", "import os\nos.execv('src/.venv/bin/python', "
                      "['python', '-c', 'print(\"inner ok\")'])\n")
        r = self.exec(["python3", "src/v.py"], policy=pol)
        self.assertRun(r, 0, "[STDOUT]\ninner ok\n", absent=["paldron: deny"])

    def test_relative_entry_names_a_workspace_file(self):
        self.ws.mkdir("bin")
        with open("/usr/bin/echo", "rb") as f:
            data = f.read()
        with open(self.p("bin/app"), "wb") as f:
            f.write(data)
        os.chmod(self.p("bin/app"), 0o755)
        self.ws._own()
        r = self.exec(["./bin/app", "app ran"], policy=example_policy(binaries=["./bin/app"]))
        self.assertRun(r, 0, "[STDOUT]\napp ran\n", absent=["paldron: deny"])

    # --- item 4: no terminal in capture mode ---------------------------------------
    def test_capture_mode_has_no_terminal(self):
        """paldron runs on a pseudo-terminal (its controlling terminal); the
        command writes a secret to /dev/tty. Nothing may reach the terminal."""
        pol = self.ws.policy(example_policy(binaries=["sh"]))
        u = self.ws.user
        cmd = ["setpriv", "--reuid", str(u.pw_uid), "--regid", str(u.pw_gid), "--clear-groups",
               PALDRON, "exec", "--policy", pol, "--", "sh", "-c",
               'printf "%s%s\\n" TOPSE CRETVALUE > /dev/tty; echo "tty rc=$?"']
        pid, master = pty.fork()
        if pid == 0:
            os.chdir(self.ws.path)
            os.execve("/usr/bin/setpriv", cmd, self.ws.env())
        out = b""
        while True:
            ready, _, _ = select.select([master], [], [], 60)
            if not ready:
                break
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        _, status = os.waitpid(pid, 0)
        text = out.decode("utf-8", "replace")
        self.assertNotIn("TOPSECRETVALUE", text, text)
        self.assertIn("tty rc=", text, text)
        self.assertNotIn("tty rc=0", text, text)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0, text)


if __name__ == "__main__":
    main()
