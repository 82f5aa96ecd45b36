"""What must not pass under `paldron exec` with the example policy, proven by the
probe (one operation, prints "<ret> <errno>"; dynamic and static, so the kernel
layers are what refuses) and by the state of the world afterwards. Run for real
as the unprivileged test user.

The probes are copied into src/ (a writable root, so the sandboxed shell may run
them); each is started through `sh -c` so that the path it is given never reaches
the argv gate: the kernel (or the post-run scan) must stop it on its own.

The dynamic probe loads the live gate (the preload), which refuses many of these
calls before the kernel sees them; the static one does not. So the kernel's
refusal is proven by the static probe, and by the dynamic probe under --audit
(the live gate only logs, the kernel decides); the live gate's own refusal is
proven by the dynamic probe in a normal run (exit 2, a `[live]` deny line)."""

import errno
import os
import socket
import subprocess
import time

from harness import main, skip
from test_exec_result import ExecBase, PROBES, example_policy, pid_alive


class DenialTest(ExecBase):
    def setUp(self):
        super().setUp()
        self.probes = self.copy_probes()
        # the probes live in src/ (a writable root): named by absolute path
        self.binaries = ["sh", "python3"] + self.probe_paths()

    def policy(self, extra=()):
        return example_policy(binaries=self.binaries + list(extra))

    def probe(self, probe, *args, policy=None, opts=()):
        """Run `sh -c 'src/<probe> args...'`; returns (result, (ret, errno))."""
        script = " ".join([probe] + ["'%s'" % a for a in args])
        r = self.exec(["sh", "-c", script], policy=policy or self.policy(), opts=opts)
        return r, self.probe_result(r)

    def each_probe(self):
        """The dynamic probe, then the static one (which no preload reaches)."""
        return self.probes

    def kernel_refuses(self, *args, expect_errno=errno.EACCES, policy=None):
        """The kernel refuses the operation: the static probe (no live gate)
        and the dynamic probe under --audit (the live gate only logs) both
        get expect_errno. Returns the two results."""
        dyn, static = self.probes
        r_static, res = self.probe(static, *args, policy=policy)
        self.assertEqual(res, (-1, expect_errno), repr(r_static))
        self.assertRun(r_static, 0, self.coverage_line(static), absent=["paldron: deny"])
        r_audit, res = self.probe(dyn, *args, policy=policy, opts=["--audit"])
        self.assertEqual(res, (-1, expect_errno), repr(r_audit))
        self.assertRun(r_audit, 0, absent=["paldron: deny"])
        return r_static, r_audit

    def live_refuses(self, line, *args, policy=None):
        """The dynamic probe in a normal run: the live gate refuses the call
        with EACCES, and the run is denied with its [live] line."""
        r, res = self.probe(self.probes[0], *args, policy=policy)
        self.assertEqual(res, (-1, errno.EACCES), repr(r))
        self.assertRun(r, 2, "[EXIT CODE] 0 (success)", "paldron: deny: " + line + " [live]")
        return r

    def live_blocks(self, line, *args, policy=None):
        """A write outside the writable roots that no rule names: refused
        with EACCES and reported as blocked; the command decides the verdict
        (issue 11, item 5)."""
        r, res = self.probe(self.probes[0], *args, policy=policy)
        self.assertEqual(res, (-1, errno.EACCES), repr(r))
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)",
                       "paldron: blocked: " + line + " (outside the writable roots) [live]",
                       absent=["paldron: deny:"])
        return r

    # --- files ------------------------------------------------------------
    def test_write_env_outside_the_writable_roots(self):
        r_static, r_audit = self.kernel_refuses("open-write", ".env")
        self.assertIn("paldron: audit: would deny: probe create .env (policy deny_glob .env) "
                      "[live]", r_audit.err)
        self.assertFalse(self.ws.exists(".env"))
        self.live_refuses("probe create .env (policy deny_glob .env)", "open-write", ".env")
        self.assertFalse(self.ws.exists(".env"))

    def test_write_env_inside_src_is_denied_by_the_scan(self):
        # the static probe: Landlock cannot express "src/ but not src/.env":
        # the write happens, and the post-run scan denies the run
        r, res = self.probe(self.probes[1], "open-write", "src/.env")
        self.assertEqual(res, (0, 0), repr(r))
        self.assertRun(r, 2, "paldron: deny: run produced src/.env (policy deny_glob) "
                       "[deny_globs: .env]", self.coverage_line(self.probes[1]),
                       absent=["[live]"])
        self.assertQuarantined(r, self.ws, "src/.env")
        # a dynamic program: the live gate refuses the write itself
        self.live_refuses("probe create src/.env (policy deny_glob .env)",
                          "open-write", "src/.env")
        self.assertFalse(self.ws.exists("src/.env"))
        r = self.exec(["sh", "-c", "echo x > src/.env"], policy=self.policy())
        self.assertRun(r, 2, "cannot create src/.env: Permission denied",
                       "paldron: deny: sh create src/.env (policy deny_glob .env) [live]")
        self.assertFalse(self.ws.exists("src/.env"))
        self.ws.write("src/w.py", "open('src/.env', 'w').write('x')\n")
        r = self.exec(["python3", "src/w.py"], policy=self.policy())
        self.assertRun(r, 2, "PermissionError: [Errno 13] Permission denied: 'src/.env'",
                       "paldron: deny: python3 create src/.env (policy deny_glob .env) [live]")
        self.assertFalse(self.ws.exists("src/.env"))

    def test_write_pem_inside_src_is_denied_by_the_scan(self):
        r, res = self.probe(self.probes[1], "creat", "src/x.pem")
        self.assertEqual(res, (0, 0), repr(r))
        self.assertRun(r, 2, "paldron: deny: run produced src/x.pem (policy deny_glob)",
                       absent=["[live]"])
        self.assertQuarantined(r, self.ws, "src/x.pem")
        # *.pem is decided by content (a bundle of public certificates is no
        # secret), so a new .pem is created live and judged after the run
        r = self.exec(["sh", "-c", "echo x > src/x.pem"], policy=self.policy())
        self.assertRun(r, 2, "paldron: deny: run produced src/x.pem (policy deny_glob)",
                       absent=["[live]"])
        # a secret decided by name is refused live
        self.live_refuses("probe create src/x.key (secret *.key)", "creat", "src/x.key")
        self.assertFalse(self.ws.exists("src/x.key"))

    def test_rename_and_link_into_a_secret_name_are_denied(self):
        self.ws.write("src/old.txt", "x")
        old = time.time() - 3600
        os.utime(self.p("src/old.txt"), (old, old))
        # the live gate refuses the dynamic probe's link and rename
        self.live_refuses("probe create src/id_rsa (secret id_rsa*)",
                          "link", "src/old.txt", "src/id_rsa")
        self.assertFalse(self.ws.exists("src/id_rsa"))
        self.live_refuses("probe create src/.env.prod (policy deny_glob .env.*)",
                          "rename", "src/old.txt", "src/.env.prod")
        self.assertFalse(self.ws.exists("src/.env.prod"))
        self.assertEqual(self.ws.read("src/old.txt"), "x")
        # the static probe's happen (src/ is writable); the scan denies them
        r, res = self.probe(self.probes[1], "link", "src/old.txt", "src/id_rsa")
        self.assertEqual(res, (0, 0), repr(r))
        self.assertRun(r, 2, "paldron: deny: run produced src/id_rsa (secret)",
                       absent=["[live]"])
        # the new name moves out of the way; the file it links stays
        self.assertQuarantined(r, self.ws, "src/id_rsa")
        self.assertEqual(self.ws.read("src/old.txt"), "x")
        r, res = self.probe(self.probes[1], "rename", "src/old.txt", "src/.env.prod")
        self.assertEqual(res, (0, 0), repr(r))
        self.assertRun(r, 2, "paldron: deny: run produced src/.env.prod (policy deny_glob)",
                       absent=["[live]"])
        with open(self.assertQuarantined(r, self.ws, "src/.env.prod")) as f:
            self.assertEqual(f.read(), "x")

    def test_write_outside_the_workspace(self):
        target = os.path.join(self.ws.outside, "pwned")
        self.kernel_refuses("open-write", target)
        self.assertFalse(os.path.lexists(target))
        self.live_blocks("probe create %s" % target, "open-write", target)
        self.assertFalse(os.path.lexists(target))

    def test_write_in_the_real_home(self):
        target = os.path.join(self.ws.user.pw_dir, "paldron-pwned")
        self.kernel_refuses("open-write", target)
        self.assertFalse(os.path.lexists(target))
        self.live_blocks("probe create %s" % target, "open-write", target)
        self.assertFalse(os.path.lexists(target))

    def test_overwrite_outside_src_leaves_the_file_unchanged(self):
        self.ws.write("README.md", "original")
        self.kernel_refuses("truncate", "README.md", "0")
        self.assertEqual(self.ws.read("README.md"), "original")
        self.live_blocks("probe write README.md", "truncate", "README.md", "0")
        self.assertEqual(self.ws.read("README.md"), "original")
        # strict = true: the same refusal denies the run
        strict = example_policy(binaries=self.binaries, strict=True)
        self.live_refuses("probe write README.md (outside the writable roots)", "truncate",
                          "README.md", "0", policy=strict)
        self.assertEqual(self.ws.read("README.md"), "original")

    def test_program_outside_the_exec_paths_cannot_run(self):
        outside = os.path.join(self.ws.outside, "tool")
        subprocess.run(["cp", os.path.join(self.p("src"), "probe_static"), outside], check=True)
        os.chmod(outside, 0o755)
        # not in allow_binaries: the kernel floor (execution only on the
        # allowed files) refuses the static probe, which no live gate sees
        r, res = self.probe(self.probes[1], "exec", outside, "x")
        self.assertEqual(res, (-1, errno.EACCES), repr(r))
        self.assertRun(r, 0, absent=["paldron: deny"])
        # named in allow_binaries by absolute path, that one file may run
        r = self.exec(["sh", "-c", "src/probe_static exec %s" % outside],
                      policy=self.policy([outside]))
        self.assertIn("usage", r.out + r.err, repr(r))
        # not in allow_binaries: the live gate refuses the dynamic probe first
        self.live_refuses("probe exec %s (not in allow_binaries)" % outside, "exec", outside, "x")

    # --- network ------------------------------------------------------------
    def test_tcp_to_the_hosts_localhost_is_unreachable(self):
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
            # the run's own network namespace: its lo has no listener there
            self.assertEqual(res, (-1, errno.ECONNREFUSED), repr(r))
            self.assertRun(r, 0, absent=["paldron: deny"])
            with self.assertRaises(socket.timeout):
                srv.accept()

    def test_udp_to_the_hosts_localhost_is_unreachable(self):
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
            # sent, to the run's own lo: nothing arrives on the host's
            self.assertEqual(res, (0, 0), repr(r))
            self.assertRun(r, 0, absent=["paldron: deny"])
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
            # ptrace is not gated by the live gate: the kernel refuses it
            self.assertRun(r, 0, absent=["paldron: deny"])
            self.assertIsNone(victim.poll())

    def test_signal_to_the_launcher(self):
        for probe in self.each_probe():
            # $PPID of the shell is paldron itself
            r = self.exec(["sh", "-c", "%s kill $PPID 9; echo survived" % probe],
                          policy=self.policy())
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
            self.assertRun(r, 0, absent=["paldron: deny"])
        time.sleep(0.1)
        self.assertTrue(pid_alive(victim.pid))


if __name__ == "__main__":
    main()
