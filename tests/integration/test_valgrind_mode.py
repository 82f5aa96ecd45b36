"""`paldron exec` with the launcher under valgrind (launcher/exec/exec_valgrind.c,
tests/valgrind/run.sh): valgrind knows neither Landlock nor seccomp, so the
platform probe and the child's last step are made by the launcher's own
binary run natively (`paldron __probe FD`, `paldron __sandbox FD`). Proven
here by the state of the world, the exit code and the message, as the
unprivileged test user, with paldron under valgrind memcheck:

- the same layers in the same order: a write to .env is denied live (the
  preload) and, from a static binary, by Landlock; nothing is written
  outside the workspace; seccomp refuses AF_INET where there is no network
  namespace; the namespaces hold (a secret masked, a private /tmp, TMPDIR,
  the coverage line read from the report page); the policy's rlimits hold
  in isolated and in degraded mode; keep_background's keeper hands off too;
- a run says what a native run says, byte for byte;
- `check` sees the isolation valgrind hides (execute_code);
- the launcher has no valgrind error and no definite leak;
- the internal commands refuse to run without a sealed memfd of paldron
  exec (exit 1, one line), and no help, man page or completion names them.

Under tests/valgrind/run.sh every paldron of Workspace.run is already under
valgrind (PALDRON_WRAPPER) and the runner judges the logs; run by itself,
this file starts valgrind on its own and reads its own logs."""

import errno
import fcntl
import glob
import os
import re
import shutil
import subprocess
import tempfile
import time

import harness
from harness import PALDRON, RUN_PATH, main, skip
from test_exec_result import ExecBase, example_policy

VALGRIND = shutil.which("valgrind")
VG_ARGS = ["--tool=memcheck", "--error-exitcode=97", "--leak-check=full",
           "--show-leak-kinds=definite", "--errors-for-leak-kinds=definite", "--track-fds=no",
           "--vgdb=no"]
SEALS = 0x1 | 0x2 | 0x4 | 0x8  # F_SEAL_SEAL | SHRINK | GROW | WRITE
F_ADD_SEALS = 1033


def under_runner():
    """tests/valgrind/run.sh already puts valgrind before every paldron."""
    return bool(harness.PALDRON_WRAPPER) and "valgrind" in harness.PALDRON_WRAPPER[0]


class ValgrindModeTest(ExecBase):
    def setUp(self):
        if not VALGRIND:
            skip(self, "valgrind is not installed")
        if harness.sanitized_build():
            skip(self, "an ASan build cannot run under valgrind (both map the shadow memory)")
        super().setUp()
        self.logs = tempfile.mkdtemp(prefix="paldron-vg-")
        os.chmod(self.logs, 0o1777)  # the test user's valgrind writes there
        self.addCleanup(shutil.rmtree, self.logs, True)
        self.copy_probes()

    def tearDown(self):
        if under_runner():
            return  # the runner judges every log
        # every launcher that ran to its end: no error, no definite leak
        finished = 0
        for log in glob.glob(os.path.join(self.logs, "vg.*.log")):
            with open(log) as f:
                text = f.read()
            m = re.search(r"ERROR SUMMARY: (\d+) errors", text)
            if m:
                finished += 1
                self.assertEqual(m.group(1), "0", text)
            self.assertNotRegex(text, r"definitely lost: [1-9]", text)
        self.assertGreater(finished, 0, "no finished valgrind log in %s" % self.logs)

    def under_valgrind(self, args, env=None):
        """paldron args as the test user, under valgrind (the runner's, or ours)."""
        if under_runner():
            return self.ws.run(args, env=env)
        vg = VG_ARGS + ["--log-file=" + os.path.join(self.logs, "vg.%p.log"), PALDRON]
        return self.ws.run(vg + args, env=env, prog=VALGRIND)

    def natively(self, args, env=None):
        """paldron args as the test user, without valgrind (runner: without its wrapper)."""
        saved = harness.PALDRON_WRAPPER
        harness.PALDRON_WRAPPER = []
        try:
            return self.ws.run(args, env=env)
        finally:
            harness.PALDRON_WRAPPER = saved

    def vg_exec(self, argv, policy, env=None):
        pol = self.ws.policy(policy)
        return self.under_valgrind(["exec", "--policy", pol, "--"] + list(argv), env=env)

    def native_exec(self, argv, policy, env=None):
        pol = self.ws.policy(policy)
        return self.natively(["exec", "--policy", pol, "--"] + list(argv), env=env)

    def pol(self, extra="", **keys):
        return example_policy(binaries=["sh", "cat", "ls", "id"] + self.probe_paths(),
                              **keys) + extra

    # --- the layers ----------------------------------------------------------
    def test_dotenv_write_is_denied_live_and_by_landlock(self):
        outside = os.path.join(self.ws.outside, "out.txt")
        os.chmod(self.ws.outside, 0o777)
        r = self.vg_exec(["sh", "-c", "echo x > src/.env; echo '== landlock';"
                          "src/probe_static open-write .env;"
                          "src/probe_static open-write %s;"
                          "src/probe_static open-write src/ok.txt" % outside], self.pol())
        self.assertRun(r, 2, "cannot create src/.env: Permission denied",
                       "paldron: deny: sh create src/.env (policy deny_glob .env) [live]",
                       "== landlock\n-1 %d\n-1 %d\n0 0\n" % (errno.EACCES, errno.EACCES),
                       self.coverage_line("src/probe_static"))
        self.assertFalse(self.ws.exists("src/.env"))
        self.assertFalse(self.ws.exists(".env"))
        self.assertFalse(os.path.lexists(outside))
        self.assertTrue(self.ws.exists("src/ok.txt"))

    def test_seccomp_refuses_inet_sockets_without_a_network_namespace(self):
        r = self.vg_exec(["sh", "-c", "src/probe_static socket-inet"],
                         self.pol(extra="namespaces = false\n"))
        self.assertRun(r, 0, "[STDOUT]\n-1 %d\n" % errno.EPERM, "[EXIT CODE] 0 (success)",
                       "paldron: coverage: no namespaces (namespaces = false in the policy)",
                       absent=["paldron: deny"])

    def test_namespaces_mask_secrets_and_report_through_the_page(self):
        self.ws.write("src/.env", "CANARY-vg\n")
        marker = tempfile.NamedTemporaryFile(prefix="paldron-vg-host-", dir="/tmp")
        self.addCleanup(marker.close)
        r = self.vg_exec(["sh", "-c", "echo TMPDIR=$TMPDIR; test -e %s && echo host-tmp ||"
                          " echo private-tmp; src/probe_static read-file src/.env" % marker.name],
                         self.pol(), env={"PALDRON_DEBUG": "1"})
        self.assertRun(r, 0, "TMPDIR=/tmp\nprivate-tmp\n-1 %d\n" % errno.EACCES,
                       "(user, mount, ipc, net namespaces)",
                       absent=["CANARY-vg", "no namespaces", "paldron: deny", "host-tmp"])
        self.assertRegex(r.err, r"paldron: coverage: kernel floor: [1-9]\d* secret path\(s\) "
                         r"masked")

    def test_rlimits_hold_isolated_and_degraded(self):
        script = "ulimit -n; ulimit -Hn; ulimit -c"
        for isolated in (True, False):
            with self.subTest(isolated=isolated):
                r = self.vg_exec(["sh", "-c", script],
                                 self.pol(max_open_files=200, require_os_isolation=isolated))
                self.assertRun(r, 0, "[STDOUT]\n200\n200\n0\n", "[EXIT CODE] 0 (success)")

    def test_keep_background_keeper_hands_off_too(self):
        r = self.vg_exec(["sh", "-c", "echo fg; src/probe_static open-write .env"],
                         self.pol(keep_background=True))
        self.assertRun(r, 0, "[STDOUT]\nfg\n-1 %d\n" % errno.EACCES, "[EXIT CODE] 0 (success)")
        self.assertFalse(self.ws.exists(".env"))

    def test_same_result_as_without_valgrind(self):
        argv = ["sh", "-c", "echo hi; echo x > src/.env; id -u; ulimit -n; echo $TMPDIR;"
                "src/probe_static open-write .env; echo err >&2; exit 3"]
        native = self.native_exec(argv, self.pol())
        vg = self.vg_exec(argv, self.pol())
        self.assertEqual(native.code, 2, repr(native))
        self.assertEqual((vg.code, vg.out, vg.err), (native.code, native.out, native.err))

    def test_a_failed_hand_off_fails_closed(self):
        # a copy of paldron that can no longer be executed once valgrind runs
        # it: the native probe (isolated) or the child's exec of `paldron
        # __sandbox` (degraded mode: no probe) fails, and nothing runs
        copy = os.path.join(self.ws.base, "bin", "paldron")
        os.makedirs(os.path.dirname(copy))
        preload = os.path.join(os.path.dirname(PALDRON), "libpaldron_preload.so")
        wrapper = harness.PALDRON_WRAPPER if under_runner() else [VALGRIND] + VG_ARGS + [
            "--log-file=" + os.path.join(self.logs, "vg.%p.log")]
        u = self.ws.user
        for isolated, why in (
                (True, "paldron: OS isolation unavailable on linux: Landlock unavailable: the "
                       "native probe under valgrind (paldron __probe): it failed. Set "
                       "require_os_isolation=false for policy-gate-only mode (no kernel "
                       "boundary).\n"),
                (False, "paldron: sandbox: valgrind hand-off execve: Permission denied\n")):
            with self.subTest(isolated=isolated):
                shutil.copy2(PALDRON, copy)
                pol = self.ws.policy(self.pol(require_os_isolation=isolated))
                self.ws._own()
                proc = subprocess.Popen(
                    ["setpriv", "--reuid", str(u.pw_uid), "--regid", str(u.pw_gid),
                     "--clear-groups"] + wrapper
                    + [copy, "exec", "--policy", pol, "--", "sh", "-c", "echo ran > src/ran"],
                    cwd=self.ws.path, env=self.ws.env({"PALDRON_PRELOAD_LIB": preload}),
                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    text=True)
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline and proc.poll() is None:
                    try:
                        with open("/proc/%d/maps" % proc.pid) as f:
                            if copy in f.read():
                                break  # valgrind has loaded the launcher
                    except OSError:
                        pass
                    time.sleep(0.005)
                os.chmod(copy, 0o644)
                out, err = proc.communicate(timeout=60)
                self.assertEqual(proc.returncode, 1, (out, err))
                self.assertTrue(err.endswith(why), err)
                self.assertEqual(out, "" if isolated else
                                 "[SANDBOX ERROR] valgrind hand-off execve: Permission denied\n")
                self.assertFalse(self.ws.exists("src/ran"))

    def test_check_sees_the_isolation_valgrind_hides(self):
        pol = self.ws.policy(self.pol())
        args = ["check", "--policy", pol, "--", "execute_code", '{"code": "print(1)"}']
        native = self.natively(args)
        r = self.under_valgrind(args)
        self.assertEqual((r.code, r.out, r.err), (native.code, native.out, native.err))


class InternalCommandsTest(harness.PaldronTest):
    """`paldron __sandbox FD` and `paldron __probe FD` run natively, started
    by paldron itself; by hand they refuse in one line."""

    def run_internal(self, args, fds=()):
        return subprocess.run([PALDRON] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, pass_fds=fds, env={"PATH": RUN_PATH})

    def assertRefused(self, p, name):
        self.assertEqual(p.returncode, 1, p)
        self.assertEqual(p.stdout, "")
        self.assertRegex(p.stderr, r"^paldron: %s: [^\n]+\n$" % name)

    def memfd(self, name, data=b"", seal=False):
        fd = os.memfd_create(name, os.MFD_ALLOW_SEALING if seal else 0)
        self.addCleanup(os.close, fd)
        os.write(fd, data)
        if seal:
            fcntl.fcntl(fd, F_ADD_SEALS, SEALS)
        return fd

    def test_sandbox_refuses_without_a_sealed_memfd_of_paldron_exec(self):
        for name in ("__sandbox", "__probe"):
            with self.subTest(name=name):
                self.assertRefused(self.run_internal([name]), name)
                self.assertRefused(self.run_internal([name, "1", "2"]), name)
                self.assertRefused(self.run_internal([name, "x"]), name)
                self.assertRefused(self.run_internal([name, "999"]), name)
        with open("/etc/hostname") as f:
            self.assertRefused(self.run_internal(["__sandbox", str(f.fileno())], [f.fileno()]),
                               "__sandbox")
        other = self.memfd("other", b"PDVG", seal=True)
        self.assertRefused(self.run_internal(["__sandbox", str(other)], [other]), "__sandbox")
        unsealed = self.memfd("paldron-sandbox", b"PDVG" + b"\0" * 64)
        self.assertRefused(self.run_internal(["__sandbox", str(unsealed)], [unsealed]),
                           "__sandbox")
        garbage = self.memfd("paldron-sandbox", b"PDVG" + b"\xff" * 64, seal=True)
        self.assertRefused(self.run_internal(["__sandbox", str(garbage)], [garbage]),
                           "__sandbox")
        full = self.memfd("paldron-probe", b"x")
        self.assertRefused(self.run_internal(["__probe", str(full)], [full]), "__probe")

    def test_probe_writes_its_answer_into_the_memfd(self):
        fd = self.memfd("paldron-probe")
        p = self.run_internal(["__probe", str(fd)], [fd])
        self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""))
        self.assertEqual(os.pread(fd, 4, 0), b"PDVG")

    def test_no_help_man_page_or_completion_names_them(self):
        for args in (["--help"], ["help"], ["help", "--man"], ["completion", "bash"],
                     ["completion", "zsh"], ["exec", "--help"]):
            p = self.run_internal(args)
            self.assertEqual(p.returncode, 0, (args, p))
            self.assertNotIn("__sandbox", p.stdout + p.stderr, args)
            self.assertNotIn("__probe", p.stdout + p.stderr, args)
        for word in ("__sandboxx", "__sandbo", "_probe"):
            p = self.run_internal([word])
            self.assertEqual(p.returncode, 1)
            self.assertEqual(p.stderr, "paldron: unknown command '%s' (see 'paldron help')\n"
                             % word)
        p = self.run_internal(["help", "__sandbox"])
        self.assertEqual((p.returncode, p.stderr),
                         (1, "paldron: unknown command '__sandbox' (see 'paldron help')\n"))


if __name__ == "__main__":
    main()
