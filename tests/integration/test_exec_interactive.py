"""`paldron exec --interactive`: the terminal is passed through (stdin connected,
nothing captured, no result block), there is no deadline unless --timeout, the
live gate's denials are printed on stderr as they happen and summarised at the
end, and nothing the command starts outlives it. Run for real as the
unprivileged test user, through pipes and under a real pseudo-terminal."""

import os
import pty
import select
import shlex
import shutil
import signal
import subprocess
import time

from harness import PALDRON, main, skip
from test_exec_result import ExecBase, example_policy, pid_alive

DENY_ENV = "paldron: deny: python3 create src/.env (policy deny_glob .env) [live]"


def read_until(fd, needle, seconds, buf=b""):
    """Read fd until needle (bytes) is in what was read; returns all of it."""
    until = time.monotonic() + seconds
    while needle not in buf:
        left = until - time.monotonic()
        if left <= 0:
            break
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the pty's other side is gone
            break
        if not chunk:
            break
        buf += chunk
    return buf


class InteractiveTest(ExecBase):
    def interactive(self, argv, policy=None, opts=(), input=None):
        pol = self.ws.policy(policy if policy is not None else example_policy())
        return self.ws.run(["exec", "--interactive", "--policy", pol] + list(opts) + ["--"] +
                           list(argv), input=input)

    def command(self, argv, policy=None, opts=()):
        """The full command line that runs paldron as the test user."""
        pol = self.ws.policy(policy if policy is not None else example_policy())
        u = self.ws.user
        self.ws._own()
        return ["setpriv", "--reuid", str(u.pw_uid), "--regid", str(u.pw_gid),
                "--clear-groups", PALDRON, "exec", "--interactive", "--policy", pol] + \
            list(opts) + ["--"] + list(argv)

    def popen(self, argv, policy=None, opts=()):
        p = subprocess.Popen(self.command(argv, policy, opts), cwd=self.ws.path,
                             env=self.ws.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        return p

    def test_help_says_the_output_is_not_held_back(self):
        r = self.ws.run(["exec", "--help"])
        self.assertRun(r, 0, "--interactive")
        # the help is wrapped to the terminal: compare with one space between words
        text = " ".join(r.out.split())
        self.assertIn("cannot be held back", text)
        self.assertIn("the policy's timeout_sec limits one captured command", text)

    def test_stdin_passes_through_and_stdout_is_not_captured(self):
        r = self.interactive(["python3", "-c", "import sys; print(sys.stdin.read().upper())"],
                             input="hello")
        self.assertRun(r, 0, "paldron: interactive run ended: 0 live denial(s), exit 0",
                       absent=["[STDOUT]", "[EXIT CODE]", "[STDERR]"])
        self.assertEqual(r.out, "HELLO\n")
        self.assertNotIn("HELLO", r.err)

    def test_command_failure_is_broken(self):
        r = self.interactive(["python3", "-c", "import sys; sys.stderr.write('oops\\n'); "
                              "sys.exit(3)"])
        self.assertRun(r, 1, "paldron: interactive run ended: 0 live denial(s), exit 3",
                       "paldron: command exited 3", absent=["[EXIT CODE]"])
        self.assertTrue(r.err.startswith("oops\n"), r.err)  # not captured, not delayed

    def test_live_denial_is_printed_as_it_happens(self):
        # the command is denied, then waits for a line on stdin: the deny line
        # must be on stderr while it still runs
        script = ("import sys\n"
                  "try:\n    open('src/.env', 'w')\nexcept OSError as e:\n    print('refused', e.errno)\n"
                  "sys.stdout.flush()\n"
                  "print('got', sys.stdin.readline().strip())\n")
        p = self.popen(["python3", "-c", script])
        err = read_until(p.stderr.fileno(), DENY_ENV.encode(), 20)
        self.assertIn(DENY_ENV.encode(), err)
        self.assertIsNone(p.poll(), "the denial was printed only after the run")
        out, rest = p.communicate(b"go\n", timeout=30)
        err = (err + rest).decode()
        self.assertEqual(p.returncode, 2, err)
        self.assertEqual(out.decode(), "refused 13\ngot go\n")
        # once as it happened, then in the verdict after the summary
        self.assertEqual(err.count(DENY_ENV), 2, err)
        summary = "paldron: interactive run ended: 1 live denial(s), exit 0"
        self.assertIn(summary, err)
        self.assertLess(err.index(DENY_ENV), err.index(summary))
        self.assertFalse(self.ws.exists("src/.env"))

    def test_no_timeout_by_default(self):
        pol = example_policy(binaries=["sleep"], timeout_sec=1)
        t0 = time.monotonic()
        r = self.interactive(["sleep", "2"], policy=pol)
        self.assertRun(r, 0, "paldron: interactive run ended: 0 live denial(s), exit 0",
                       absent=["timed out"])
        self.assertGreaterEqual(time.monotonic() - t0, 2)

    def test_timeout_option_ends_the_run(self):
        pol = example_policy(binaries=["sleep"], timeout_sec=1)
        t0 = time.monotonic()
        r = self.interactive(["sleep", "5"], policy=pol, opts=["--timeout", "1"])
        self.assertRun(r, 1, "paldron: command timed out",
                       "paldron: interactive run ended: 0 live denial(s), exit -1",
                       absent=["[TIMEOUT]", "[EXIT CODE]"])
        self.assertLess(time.monotonic() - t0, 4)

    def test_descendants_are_ended_when_the_command_exits(self):
        script = ("sleep 300 & echo $! > src/bg.pid; "
                  "setsid sh -c 'echo $$ > src/sid.pid; exec sleep 301' & "
                  "sleep 0.5; echo started")
        r = self.interactive(["sh", "-c", script],
                             policy=example_policy(binaries=["sh", "sleep", "setsid"]))
        self.assertRun(r, 0, "paldron: interactive run ended: 0 live denial(s), exit 0")
        self.assertEqual(r.out, "started\n")
        pids = []
        for name in ("src/bg.pid", "src/sid.pid"):
            pids.append(int(self.ws.read(name).split()[0]))
        until = time.monotonic() + 0.5
        while time.monotonic() < until and any(pid_alive(x) for x in pids):
            time.sleep(0.05)
        self.assertEqual([x for x in pids if pid_alive(x)], [])

    def test_keep_background_does_not_apply(self):
        # the keeper would take the command out of the terminal's session
        script = "sleep 300 & echo $! > src/bg.pid; echo started"
        r = self.interactive(["sh", "-c", script],
                             policy=example_policy(binaries=["sh", "sleep"], keep_background=True))
        self.assertRun(r, 0, "paldron: warning: keep_background does not apply to an "
                       "interactive run: the command's processes are ended when it exits")
        pid = int(self.ws.read("src/bg.pid").split()[0])
        until = time.monotonic() + 0.5
        while time.monotonic() < until and pid_alive(pid):
            time.sleep(0.05)
        self.assertFalse(pid_alive(pid))

    def test_sigint_sent_to_paldron_stops_the_run(self):
        # a kill(2) to paldron is not the terminal's Ctrl-C: the run is stopped
        p = self.popen(["python3", "-c", "import time; print('ready', flush=True); "
                        "time.sleep(60)"])
        self.assertIn(b"ready", read_until(p.stdout.fileno(), b"ready", 20))
        t0 = time.monotonic()
        os.kill(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=30)
        self.assertLess(time.monotonic() - t0, 5)
        self.assertEqual(p.returncode, 1, err)
        self.assertIn(b"paldron: interrupted by SIGINT", err)

    def spawn_pty(self, argv, policy=None, cmd=None, env=None):
        """paldron (or cmd) in a new session on a pty (its controlling terminal)."""
        if not shutil.which("setpriv"):
            skip(self, "setpriv not found")
        cmd = cmd or self.command(argv, policy)
        env = self.ws.env(dict(TERM="dumb", **(env or {})))
        pid, fd = pty.fork()
        if pid == 0:
            try:
                os.chdir(self.ws.path)
                os.execvpe(cmd[0], cmd, env)
            finally:
                os._exit(127)
        self.addCleanup(os.close, fd)

        def reap():
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        self.addCleanup(reap)
        return pid, fd

    def wait_pty(self, pid, fd, buf, seconds=20):
        buf = read_until(fd, b"\0never\0", seconds, buf)  # until EOF (EIO)
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status), buf.decode("utf-8", "replace")
            time.sleep(0.05)
        self.fail("paldron did not end: %r" % buf)

    def test_under_a_pseudo_terminal(self):
        script = ("import os, sys\n"
                  "print('tty', os.isatty(0), os.tcgetpgrp(0) == os.getpgrp(), flush=True)\n"
                  "print('got', input('> ').upper())\n")
        pid, fd = self.spawn_pty(["python3", "-c", script])
        buf = read_until(fd, b"> ", 20)
        self.assertIn(b"tty True True", buf, "the command is the terminal's foreground job")
        os.write(fd, b"hello\n")
        code, text = self.wait_pty(pid, fd, buf)
        self.assertEqual(code, 0, text)
        self.assertIn("hello\r\n", text)  # the terminal's echo
        self.assertIn("got HELLO\r\n", text)
        self.assertIn("paldron: interactive run ended: 0 live denial(s), exit 0", text)

    def test_ctrl_c_is_the_commands_to_handle(self):
        # the terminal's Ctrl-C reaches the command (an agent may only cancel
        # a step); paldron lets the run go on
        script = ("import time\n"
                  "try:\n    print('ready', flush=True); time.sleep(60)\n"
                  "except KeyboardInterrupt:\n    print('cancelled, going on', flush=True)\n"
                  "print('got', input())\n")
        pid, fd = self.spawn_pty(["python3", "-c", script])
        buf = read_until(fd, b"ready", 20)
        self.assertIn(b"ready", buf)
        os.write(fd, b"\x03")
        buf = read_until(fd, b"going on", 20, buf)
        self.assertIn(b"cancelled, going on", buf)
        os.write(fd, b"more\n")
        code, text = self.wait_pty(pid, fd, buf)
        self.assertEqual(code, 0, text)
        self.assertIn("got more", text)
        self.assertNotIn("interrupted", text)

    def test_job_control_of_the_calling_shell(self):
        # Ctrl-Z in an interactive shell stops paldron and the command
        # together (one job); fg continues both, and the command still reads
        # the terminal
        bash = shutil.which("bash")
        if not bash:
            skip(self, "bash not found")
        u = self.ws.user
        cmd = ["setpriv", "--reuid", str(u.pw_uid), "--regid", str(u.pw_gid), "--clear-groups",
               bash, "--norc", "--noprofile", "-i"]
        # the shell is already the test user: paldron's part of the command
        line = shlex.join(self.command(["python3", "-c", "print('rea' 'dy', flush=True); "
                                        "print('got', input())"])[6:])
        pid, fd = self.spawn_pty(None, cmd=cmd, env=dict(PS1="$ "))
        buf = read_until(fd, b"$ ", 20)
        os.write(fd, line.encode() + b"\n")
        buf = read_until(fd, b"\nready", 20, buf)
        self.assertIn(b"\nready", buf)
        time.sleep(0.2)
        os.write(fd, b"\x1a")
        buf = read_until(fd, b"Stopped", 10, buf)
        self.assertIn(b"Stopped", buf)
        # bash flushes typeahead when it sets up the terminal for its next
        # prompt (TCSAFLUSH): send fg until bash echoes it and names the job
        resumed = False
        for _ in range(6):
            time.sleep(0.5)
            mark = len(buf)
            os.write(fd, b"fg\n")
            buf = read_until(fd, b"\x00never", 2, buf)
            if b"paldron exec" in buf[mark:]:
                resumed = True
                break
        self.assertTrue(resumed, "fg never resumed the job: %r" % buf)
        time.sleep(0.5)
        os.write(fd, b"hello\n")
        buf = read_until(fd, b"exit 0", 20, buf)
        os.write(fd, b"echo rc=$?; exit\n")
        code, text = self.wait_pty(pid, fd, buf)
        self.assertIn("got hello", text)
        self.assertIn("paldron: interactive run ended: 0 live denial(s), exit 0", text)
        self.assertIn("rc=0", text)


if __name__ == "__main__":
    main()
