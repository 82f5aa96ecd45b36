"""What must not pass under `paldron exec` with the example policy, proven by the
probe (one operation, prints "<ret> <errno>"; dynamic and static, so the kernel
layers are what refuses) and by the state of the world afterwards. Run for real
as the unprivileged test user.

The probes are copied into src/ (a writable root, so the sandboxed shell may run
them); each is started through `sh -c` so that the path it is given never reaches
the argv gate: the kernel (or the post-run scan) must stop it on its own."""

import errno
import os
import socket
import subprocess
import time

from harness import main, skip
from test_exec_result import ExecBase, PROBES, example_policy, pid_alive

POLICY = dict(binaries=["sh", "python3"])


class DenialTest(ExecBase):
    def setUp(self):
        super().setUp()
        self.probes = self.copy_probes()

    def probe(self, probe, *args, policy=None):
        """Run `sh -c 'src/<probe> args...'`; returns (result, (ret, errno))."""
        script = " ".join([probe] + ["'%s'" % a for a in args])
        r = self.exec(["sh", "-c", script], policy=policy or example_policy(**POLICY))
        return r, self.probe_result(r)

    def each_probe(self):
        """The dynamic probe, then the static one (which no preload reaches)."""
        return self.probes

    # --- files ------------------------------------------------------------
    def test_write_env_outside_the_writable_roots(self):
        for probe in self.each_probe():
            r, res = self.probe(probe, "open-write", ".env")
            self.assertEqual(res, (-1, errno.EACCES), repr(r))
            self.assertRun(r, 0)
            self.assertFalse(self.ws.exists(".env"))

    def test_write_env_inside_src_is_denied_by_the_scan(self):
        for probe in self.each_probe():
            r, res = self.probe(probe, "open-write", "src/.env")
            # Landlock cannot express "src/ but not src/.env": the write
            # happens, and the run is denied
            self.assertEqual(res, (0, 0), repr(r))
            self.assertRun(r, 2, "paldron: deny: run produced src/.env (policy deny_glob) "
                           "[deny_globs: .env]")
            os.unlink(self.p("src/.env"))

    def test_write_pem_inside_src_is_denied_by_the_scan(self):
        for probe in self.each_probe():
            r, res = self.probe(probe, "creat", "src/x.pem")
            self.assertEqual(res, (0, 0), repr(r))
            self.assertRun(r, 2, "paldron: deny: run produced src/x.pem (policy deny_glob)")
            os.unlink(self.p("src/x.pem"))

    def test_rename_and_link_into_a_secret_name_are_denied(self):
        self.ws.write("src/old.txt", "x")
        old = time.time() - 3600
        os.utime(self.p("src/old.txt"), (old, old))
        for probe in self.each_probe():
            r, res = self.probe(probe, "link", "src/old.txt", "src/id_rsa")
            self.assertEqual(res, (0, 0), repr(r))
            self.assertRun(r, 2, "paldron: deny: run produced src/id_rsa (secret)")
            os.unlink(self.p("src/id_rsa"))
        r, res = self.probe(self.probes[1], "rename", "src/old.txt", "src/.env.prod")
        self.assertEqual(res, (0, 0), repr(r))
        self.assertRun(r, 2, "paldron: deny: run produced src/.env.prod (policy deny_glob)")

    def test_write_outside_the_workspace(self):
        target = os.path.join(self.ws.outside, "pwned")
        for probe in self.each_probe():
            r, res = self.probe(probe, "open-write", target)
            self.assertEqual(res, (-1, errno.EACCES), repr(r))
            self.assertFalse(os.path.lexists(target))

    def test_write_in_the_real_home(self):
        target = os.path.join(self.ws.user.pw_dir, "paldron-pwned")
        for probe in self.each_probe():
            r, res = self.probe(probe, "open-write", target)
            self.assertEqual(res, (-1, errno.EACCES), repr(r))
            self.assertFalse(os.path.lexists(target))

    def test_overwrite_outside_src_leaves_the_file_unchanged(self):
        self.ws.write("README.md", "original")
        for probe in self.each_probe():
            r, res = self.probe(probe, "truncate", "README.md", "0")
            self.assertEqual(res, (-1, errno.EACCES), repr(r))
            self.assertEqual(self.ws.read("README.md"), "original")

    def test_program_outside_the_exec_paths_cannot_run(self):
        outside = os.path.join(self.ws.outside, "tool")
        subprocess.run(["cp", os.path.join(self.p("src"), "probe_static"), outside], check=True)
        os.chmod(outside, 0o755)
        for probe in self.each_probe():
            r, res = self.probe(probe, "exec", outside, "x")
            self.assertEqual(res, (-1, errno.EACCES), repr(r))

    # --- network ------------------------------------------------------------
    def test_tcp_to_localhost_is_refused(self):
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.bind(("127.0.0.1", 0))
        srv.listen(8)
        srv.settimeout(0.5)
        self.addCleanup(srv.close)
        port = str(srv.getsockname()[1])
        # control: outside the sandbox the probe reaches the listener
        ctl = subprocess.run([os.path.join(self.p("src"), "probe"), "connect-tcp", "127.0.0.1",
                              port], capture_output=True, text=True)
        self.assertEqual(ctl.stdout.strip(), "0 0", ctl.stderr)
        srv.accept()[0].close()
        for probe in self.each_probe():
            r, res = self.probe(probe, "connect-tcp", "127.0.0.1", port)
            self.assertEqual(res, (-1, errno.EPERM), repr(r))
            with self.assertRaises(socket.timeout):
                srv.accept()

    def test_udp_to_localhost_is_refused(self):
        rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        rx.bind(("127.0.0.1", 0))
        rx.settimeout(0.5)
        self.addCleanup(rx.close)
        port = str(rx.getsockname()[1])
        ctl = subprocess.run([os.path.join(self.p("src"), "probe"), "udp-send", "127.0.0.1", port],
                             capture_output=True, text=True)
        self.assertEqual(ctl.stdout.strip(), "0 0", ctl.stderr)
        self.assertEqual(rx.recv(16), b"x")
        for probe in self.each_probe():
            r, res = self.probe(probe, "udp-send", "127.0.0.1", port)
            self.assertEqual(res, (-1, errno.EPERM), repr(r))
            with self.assertRaises(socket.timeout):
                rx.recv(16)

    # --- processes ------------------------------------------------------------
    def test_ptrace_of_another_process(self):
        # a process of the same user, outside the sandbox
        victim = subprocess.Popen(["setpriv", "--reuid", str(self.uid), "--regid",
                                   str(self.ws.user.pw_gid), "--clear-groups", "sleep", "30"])
        self.addCleanup(victim.wait)
        self.addCleanup(victim.kill)
        time.sleep(0.1)
        for probe in self.each_probe():
            r, res = self.probe(probe, "ptrace-attach", str(victim.pid))
            self.assertEqual(res, (-1, errno.EPERM), repr(r))
            self.assertIsNone(victim.poll())

    def test_signal_to_the_launcher(self):
        for probe in self.each_probe():
            # $PPID of the shell is paldron itself
            r = self.exec(["sh", "-c", "%s kill $PPID 9; echo survived" % probe],
                          policy=example_policy(**POLICY))
            self.assertRun(r, 0, "[STDOUT]\n-1 %d\nsurvived\n" % errno.EPERM,
                           "[EXIT CODE] 0 (success)")
        r = self.exec(["python3", "-c", "import os, signal; os.kill(os.getppid(), signal.SIGTERM)"])
        self.assertRun(r, 1, "PermissionError", "paldron: command exited 1")

    def test_signal_to_another_process_of_the_user(self):
        victim = subprocess.Popen(["setpriv", "--reuid", str(self.uid), "--regid",
                                   str(self.ws.user.pw_gid), "--clear-groups", "sleep", "30"])
        self.addCleanup(victim.wait)
        self.addCleanup(victim.kill)
        time.sleep(0.1)
        for probe in self.each_probe():
            r, res = self.probe(probe, "kill", str(victim.pid), "9")
            self.assertEqual(res, (-1, errno.EPERM), repr(r))
        time.sleep(0.1)
        self.assertTrue(pid_alive(victim.pid))


if __name__ == "__main__":
    main()
