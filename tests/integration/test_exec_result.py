"""`paldron exec`: the result block, the verdict order, the environment, degraded
mode and start failures, run for real as the unprivileged test user.

Also home of ExecBase, the fixture the other test_exec_*.py files share."""

import ctypes
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import time
import unittest

from harness import (BINARY_DIR, PALDRON, RUN_PATH, SOURCE_DIR, PaldronTest, Workspace, main,
                     skip)

EXAMPLE_DIR = os.path.join(SOURCE_DIR, "examples", "paldron-exec")
PROBE_DIR = os.path.join(BINARY_DIR, "tests", "probe")
PROBES = ("probe", "probe_static")


def landlock_abi():
    """The kernel's Landlock ABI, 0 if none."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "aarch64"):
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    # landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION): 444 on both
    abi = libc.syscall(ctypes.c_long(444), None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return abi if abi > 0 else 0


def example_policy(binaries=("python3",), **keys):
    """The example's policy.toml with allow_binaries replaced and keys set."""
    with open(os.path.join(EXAMPLE_DIR, "policy.toml")) as f:
        text = f.read()
    text = re.sub(r"^allow_binaries = .*$",
                  "allow_binaries = [%s]" % ", ".join('"%s"' % b for b in binaries),
                  text, flags=re.M)
    for key, value in keys.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, str):
            value = '"%s"' % value
        line = "%s = %s" % (key, value)
        if re.search(r"^%s = " % key, text, flags=re.M):
            text = re.sub(r"^%s = .*$" % key, line, text, flags=re.M)
        else:
            text += line + "\n"
    return text


def pid_alive(pid):
    """Is pid a living (not zombie) process?"""
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


def user_processes(uid, marker):
    """Pids of living processes of uid whose command line holds marker."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            st = os.stat("/proc/" + name)
            with open("/proc/%s/cmdline" % name, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if st.st_uid == uid and marker in cmd and pid_alive(int(name)):
            found.append(int(name))
    return found


class ExecBase(PaldronTest):
    """A fresh workspace (with src/) owned by the test user; exec() runs
    `paldron exec --policy P -- argv` there as that user."""

    needs_landlock = True

    def setUp(self):
        if self.needs_landlock and landlock_abi() < 4:
            skip(self, "needs Landlock ABI >= 4 (this kernel: %d)" % landlock_abi())
        try:
            self.ws = Workspace(as_user=True)
        except unittest.SkipTest as e:
            skip(self, str(e))
        self.addCleanup(self.ws.close)
        self.ws.mkdir("src")
        self.uid = self.ws.user.pw_uid

    def exec(self, argv, policy=None, env=None, timeout=120, opts=()):
        pol = self.ws.policy(policy if policy is not None else example_policy())
        return self.ws.run(["exec", "--policy", pol] + list(opts) + ["--"] + list(argv),
                           env=env, timeout=timeout)

    def p(self, rel):
        return os.path.join(self.ws.path, rel)

    def copy_probes(self):
        """Put probe and probe_static into src/ (a writable root, so the
        sandboxed shell may execute them); returns their workspace paths.
        They live in a writable root, so a policy must name them by absolute
        path in allow_binaries (probe_paths()): a bare name does not match."""
        for name in PROBES:
            src = os.path.join(PROBE_DIR, name)
            if not os.path.exists(src):
                skip(self, "probe not built at %s" % src)
            shutil.copy(src, self.p("src/" + name))
            os.chmod(self.p("src/" + name), 0o755)
        self.ws._own()
        return ["src/" + name for name in PROBES]

    def probe_paths(self):
        """The absolute paths of the copied probes, for allow_binaries."""
        return [self.p("src/" + name) for name in PROBES]

    def coverage_line(self, rel):
        """The launcher's note that a static program ran without the live gate."""
        return ("paldron: coverage: ran without the live gate (kernel layers only): %s "
                "(static binary)" % self.p(rel))

    def probe_result(self, r):
        """The probe's "<ret> <errno>" line from the [STDOUT] section."""
        m = re.search(r"\[STDOUT\]\n(-?\d+) (\d+)\n", r.out)
        self.assertIsNotNone(m, repr(r))
        return int(m.group(1)), int(m.group(2))


class ResultBlockTest(ExecBase):
    def test_block_layout(self):
        r = self.exec(["sh", "-c", "echo out; echo err >&2"],
                      policy=example_policy(binaries=["sh"]))
        self.assertRun(r, 0)
        self.assertEqual(r.out, "[STDOUT]\nout\n\n[STDERR]\nerr\n\n[EXIT CODE] 0 (success)\n")
        self.assertEqual(r.err, "")

    def test_empty_streams_have_no_section(self):
        r = self.exec(["sh", "-c", "exit 0"], policy=example_policy(binaries=["sh"]))
        self.assertRun(r, 0)
        self.assertEqual(r.out, "[EXIT CODE] 0 (success)\n")

    def test_each_stream_is_capped_at_one_mebibyte(self):
        r = self.exec(["python3", "-c", "import sys; sys.stdout.write('x' * 2000000); "
                       "sys.stderr.write('y' * 1048576)"])
        self.assertRun(r, 0, "[TRUNCATED: output exceeded 1048576 bytes]")
        out = r.out.split("[STDOUT]\n", 1)[1]
        # the first 256 KiB, the exact count of what is left out, the last 768 KiB
        # (one line of x: the cut cannot fall between lines)
        self.assertTrue(out.startswith("x" * 262144 + "\n[... %d bytes dropped ...] [TRUNCATED: "
                                       "output exceeded 1048576 bytes]\n" % (2000000 - 1048576)
                                       + "x" * 786432 + "\n[STDERR]\n"), out[262140:262300])
        # exactly at the cap: no marker for stderr
        self.assertEqual(r.out.count("[TRUNCATED"), 1)
        self.assertIn("[STDERR]\n" + "y" * 1048576 + "\n[EXIT CODE] 0 (success)", r.out)

    def test_nonzero_exit_is_broken(self):
        r = self.exec(["sh", "-c", "echo partial; exit 3"], policy=example_policy(binaries=["sh"]))
        self.assertRun(r, 1, "[EXIT CODE] 3", "partial", "paldron: command exited 3")

    def test_killed_by_a_signal_says_which(self):
        r = self.exec(["sh", "-c", "kill -9 $$"], policy=example_policy(binaries=["sh"]))
        self.assertRun(r, 1, "[EXIT CODE] -1",
                       "paldron: command exited -1 (killed by signal 9, SIGKILL)")

    def test_denial_wins_over_a_failed_exit(self):
        # the original reported "command exited 1" and hid the deny.
        # the live gate: sh's write fails at once, the file never exists
        r = self.exec(["sh", "-c", "echo x > src/.env; exit 1"],
                      policy=example_policy(binaries=["sh"]))
        self.assertRun(r, 2, "[EXIT CODE] 1", "cannot create src/.env: Permission denied",
                       "paldron: deny: sh create src/.env (policy deny_glob .env) [live]",
                       absent=["command exited"])
        self.assertFalse(self.ws.exists("src/.env"))
        # the post-run scan: the static probe escapes the live gate, the kernel
        # lets the write into src/ happen, the scan denies it
        self.copy_probes()
        r = self.exec(["sh", "-c", "src/probe_static open-write src/.env; exit 1"],
                      policy=example_policy(binaries=["sh"] + self.probe_paths()))
        self.assertRun(r, 2, "[STDOUT]\n0 0\n", "[EXIT CODE] 1",
                       "paldron: deny: run produced src/.env (policy deny_glob) [deny_globs: .env]",
                       self.coverage_line("src/probe_static"),
                       absent=["command exited", "[live]"])
        self.assertQuarantined(r, self.ws, "src/.env")
        # the block comes before the verdict and shows the command's own status
        self.assertLess(r.out.index("[EXIT CODE] 1"), len(r.out))

    def test_denial_wins_over_a_timeout(self):
        r = self.exec(["sh", "-c", "echo x > src/k.key; sleep 30"],
                      policy=example_policy(binaries=["sh", "sleep"], timeout_sec=1))
        self.assertRun(r, 2, "[TIMEOUT] Command killed after exceeding time limit",
                       "paldron: deny: sh create src/k.key (secret *.key) [live]",
                       "paldron: denied: 1 finding; the command itself timed out after 1 s",
                       absent=["paldron: command timed out"])
        self.assertFalse(self.ws.exists("src/k.key"))
        self.copy_probes()
        r = self.exec(["sh", "-c", "src/probe_static creat src/k.pem; sleep 30"],
                      policy=example_policy(binaries=["sh", "sleep"] + self.probe_paths(),
                                            timeout_sec=1))
        self.assertRun(r, 2, "[TIMEOUT] Command killed after exceeding time limit",
                       "paldron: deny: run produced src/k.pem (policy deny_glob)",
                       "the command itself timed out after 1 s",
                       absent=["paldron: command timed out", "[live]"])
        self.assertQuarantined(r, self.ws, "src/k.pem")

    def test_every_finding_is_reported(self):
        # live: every refused call is reported, in the order it happened
        r = self.exec(["sh", "-c", "echo 1 > src/b.key; echo 2 > src/.env.local; "
                       "mkdir -p src/secrets; echo 3 > src/secrets/t"],
                      policy=example_policy(binaries=["sh", "mkdir"]))
        self.assertRun(r, 2, "[EXIT CODE] 2")
        lines = [l for l in r.err.splitlines() if l.startswith("paldron: deny: ")]
        self.assertEqual(lines, [
            "paldron: deny: sh create src/b.key (secret *.key) [live] (add \"src/b.key\" to "
            "allow_secrets)",
            "paldron: deny: sh create src/.env.local (policy deny_glob .env.*) [live]",
            # mkdir -p makes each level relative to its parent's descriptor:
            # the line shows the path as judged, and as passed ("secrets")
            "paldron: deny: mkdir create src/secrets (written secrets) "
            "(policy deny_glob **/secrets/**) [live]",
            "paldron: deny: sh create src/secrets/t (policy deny_glob **/secrets/**) [live]",
        ], r.err)
        for rel in ("src/b.key", "src/.env.local", "src/secrets"):
            self.assertFalse(self.ws.exists(rel), rel)
        # the post-run scan (static probe, no live gate): every file it finds
        self.copy_probes()
        r = self.exec(["sh", "-c", "src/probe_static creat src/b.pem; "
                       "src/probe_static creat src/.env.local; src/probe_static mkdir src/secrets; "
                       "src/probe_static creat src/secrets/t"],
                      policy=example_policy(binaries=["sh"] + self.probe_paths()))
        self.assertRun(r, 2, "[STDOUT]\n0 0\n0 0\n0 0\n0 0\n")
        lines = [re.sub(r"; moved to \S+$", "", l) for l in r.err.splitlines()
                 if l.startswith("paldron: deny: ")]
        # the files move out of the way (a folder stays: harmless by itself)
        for rel in ("src/.env.local", "src/b.pem", "src/secrets/t"):
            self.assertQuarantined(r, self.ws, rel)
        self.assertTrue(self.ws.exists("src/secrets"))
        self.assertEqual(lines, [
            "paldron: deny: run produced src/.env.local (policy deny_glob) [deny_globs: .env.*]",
            "paldron: deny: run produced src/b.pem (policy deny_glob) [deny_globs: *.pem]",
            "paldron: deny: run produced src/secrets (policy deny_glob) [deny_globs: **/secrets/**]",
            "paldron: deny: run produced src/secrets/t (policy deny_glob) [deny_globs: **/secrets/**]",
        ], r.err)

    def test_environment_is_filtered_with_private_home(self):
        # seed row X25
        r = self.exec(["env"], policy=example_policy(binaries=["env"]),
                      env={"VIRTUAL_ENV": "/tmp/untrusted-venv", "JEV_API_KEY": "k",
                           "SSH_AUTH_SOCK": "/tmp/agent", "http_proxy": "http://p:1"})
        # ordinary variables pass (VIRTUAL_ENV, SSH_AUTH_SOCK: the socket stays out of reach
        # of the run), secret-looking ones do not, nor proxies with the network off
        self.assertRun(r, 0, "CARGO_NET_OFFLINE=true", "PATH=" + RUN_PATH, "VIRTUAL_ENV=",
                       "SSH_AUTH_SOCK=", absent=["JEV_API_KEY=", "http_proxy="])
        env = dict(l.split("=", 1) for l in r.out.split("[STDOUT]\n", 1)[1].split("\n\n")[0]
                   .splitlines())
        self.assertIn("reeve-sandbox-", env["HOME"])
        # the run directory: /dev/shm with the run's own mount namespace, else
        # $TMPDIR (tests/integration/test_run_directory.py)
        self.assertTrue(env["HOME"].startswith(("/dev/shm/paldron-run-", "/tmp/paldron-run-")),
                        env["HOME"])
        # the run's own /tmp (a private tmpfs; tests/integration/test_exec_namespaces.py)
        self.assertEqual(env["TMPDIR"], "/tmp")
        # the caches live in the workspace's persistent cache folder (no pycache prefix:
        # Python uses the stdlib's own .pyc files); tests/integration/test_transparent_env.py
        cache = os.path.join(self.ws.base, "cache", "paldron")  # the harness's XDG_CACHE_HOME
        for var, sub in [("GOCACHE", "go-build"), ("XDG_CACHE_HOME", "xdg"),
                         ("npm_config_cache", "npm"), ("PIP_CACHE_DIR", "pip")]:
            self.assertTrue(env[var].startswith(cache + "/"), env[var])
            self.assertTrue(env[var].endswith("/" + sub), env[var])
        self.assertNotIn("PYTHONPYCACHEPREFIX", env)
        self.assertEqual(env["CARGO_HOME"], self.ws.user.pw_dir + "/.cargo")
        # the temp home is gone after the run
        self.assertFalse(os.path.exists(env["HOME"]))
        self.assertFalse(os.path.exists(os.path.dirname(env["HOME"])))

    def test_temp_home_is_writable_and_private(self):
        r = self.exec(["sh", "-c", "echo hi > $HOME/f && cat $HOME/f && "
                       "stat -c %a $(dirname $HOME) && ls $(dirname $HOME)/.. >/dev/null"],
                      policy=example_policy(binaries=["sh", "cat", "stat", "dirname", "ls"]))
        # the home is writable, its run directory is 0700, /tmp is the run's own
        self.assertRun(r, 0, "hi\n700\n", absent=["paldron: deny", "Permission denied"])

    def test_missing_binary(self):
        r = self.exec(["definitely-not-a-binary-xyz"], policy=example_policy(binaries=[]))
        self.assertRun(r, 1, '[SANDBOX ERROR] exec: "definitely-not-a-binary-xyz": executable '
                       'file not found in $PATH', "paldron: sandbox: exec: ")

    def test_sandbox_error_names_the_failing_step(self):
        # the script's interpreter lies outside every executable path: execve
        # itself is refused by Landlock, in the child, before anything ran (or,
        # with the build tree under /tmp, the private /tmp hides it)
        probe = os.path.join(PROBE_DIR, "probe")
        self.ws.write("src/s.sh", "#!%s\n" % probe, mode=0o755)
        r = self.exec(["src/s.sh"], policy=example_policy(binaries=[]))
        why = "No such file or directory" if probe.startswith("/tmp/") else "Permission denied"
        self.assertRun(r, 1, "[SANDBOX ERROR] execve %s: %s" % (self.p("src/s.sh"), why),
                       "paldron: sandbox: execve ", absent=["[EXIT CODE]"])

    def test_argv0_is_the_absolute_invocation_path(self):
        r = self.exec(["sh", "-c", "echo $0"], policy=example_policy(binaries=["sh"]))
        self.assertRun(r, 0, "[STDOUT]\n/usr/bin/sh\n")

    def test_stdin_is_the_null_device(self):
        r = self.ws.run(["exec", "--policy", self.ws.policy(example_policy(binaries=["cat"])),
                         "--", "cat"], input="secret input\n")
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)", absent=["secret input"])

    def test_timeout_option_only_shortens(self):
        pol = example_policy(binaries=["sleep"], timeout_sec=30)
        t0 = time.monotonic()
        r = self.exec(["sleep", "10"], policy=pol, opts=["--timeout", "1"])
        self.assertLess(time.monotonic() - t0, 5)
        self.assertRun(r, 1, "paldron: command timed out")
        r = self.exec(["sleep", "0"], policy=example_policy(binaries=["sleep"], timeout_sec=2),
                      opts=["--timeout", "100"])
        self.assertRun(r, 0, "paldron: warning: --timeout 100 is longer than the policy's "
                       "timeout_sec = 2; using 2")

    def test_unknown_option_is_refused(self):
        r = self.exec(["sh", "-c", "touch src/ran"],
                      policy=example_policy(binaries=["sh", "touch"]), opts=["--bogus"])
        self.assertRun(r, 1, "paldron: unknown option '--bogus' for exec", absent=["[EXIT CODE]"])
        self.assertFalse(self.ws.exists("src/ran"))

    def test_audit_logs_instead_of_denying(self):
        # --audit: the live gate only logs, so python's write to src/.env
        # happens (src/ is a writable root: the kernel allows it); the exit is
        # therefore not the live gate's, but the post-run scan still finds the
        # file the write produced and denies the run
        self.ws.write("src/w.py", "open('src/.env', 'w').write('x')\nprint('wrote')\n")
        r = self.exec(["python3", "src/w.py"], opts=["--audit"])
        self.assertRun(r, 2, "[STDOUT]\nwrote\n", "[EXIT CODE] 0 (success)",
                       "paldron: audit: would deny: python3 create src/.env "
                       "(policy deny_glob .env) [live]\n"
                       "paldron: audit:   smallest change: none narrow: src/.env is also a built-in "
                       "secret\n",
                       "paldron: deny: run produced src/.env (policy deny_glob) "
                       "[deny_globs: .env]",
                       absent=["PermissionError", "paldron: deny: python3"])
        self.assertEqual(self.ws.read("src/.env"), "x")
        # the kernel layers stay on: a write outside src/ is still refused
        self.ws.write("src/o.py", "open('notes.txt', 'w')\n")
        r = self.exec(["python3", "src/o.py"], opts=["--audit"])
        self.assertRun(r, 1, "PermissionError: [Errno 13] Permission denied: 'notes.txt'",
                       "paldron: audit: would deny: python3 create notes.txt "
                       "(outside allow_paths) [live]", "paldron: command exited 1",
                       absent=["paldron: deny"])
        self.assertFalse(self.ws.exists("notes.txt"))

    def test_log_writes_json_lines(self):
        self.ws.write("src/w.py", "open('src/.env', 'w').write('x')\n")
        log = os.path.join(self.ws.base, "run.jsonl")
        r = self.exec(["python3", "src/w.py"], opts=["--log", log])
        self.assertRun(r, 2, "PermissionError", "[EXIT CODE] 1",
                       "paldron: deny: python3 create src/.env (policy deny_glob .env) [live]")
        self.assertFalse(self.ws.exists("src/.env"))
        with open(log) as f:
            recs = [json.loads(line) for line in f]
        self.assertEqual(len(recs), 1, recs)
        rec = recs[0]
        self.assertIsInstance(rec.pop("pid"), int)
        self.assertEqual(rec, {"kind": "deny", "op": "create", "path": "src/.env",
                               "resolved": self.p("src/.env"),
                               "rule": {"key": "deny_globs", "pattern": ".env"},
                               "reason": "policy deny_glob", "program": "python3",
                               "argv": ["/usr/bin/python3", "src/w.py"]})

    def test_usage(self):
        r = self.ws.run(["exec", "--"])
        self.assertRun(r, 1, "paldron: usage: paldron exec --policy p.toml -- argv...")
        r = self.ws.run(["exec", "--help"])
        self.assertRun(r, 0, "usage: paldron exec")


class DegradedModeTest(ExecBase):
    needs_landlock = False

    def test_warning_on_every_run_and_real_home(self):
        pol = example_policy(binaries=["sh"], require_os_isolation=False)
        r = self.exec(["sh", "-c", "echo $HOME"], policy=pol)
        self.assertRun(r, 0, "paldron: warning: running without OS isolation: the argv gate, "
                       "the live gate in dynamically linked programs, the post-run scan and "
                       "the output scan run; no kernel boundary", "[EXIT CODE] 0 (success)",
                       absent=["reeve-sandbox-"])
        self.assertIn(self.ws.user.pw_dir, r.out)

    def test_scan_runs_in_degraded_mode(self):
        # the live gate is on without the kernel layers: sh's writes fail
        pol = example_policy(binaries=["sh"], require_os_isolation=False)
        r = self.exec(["sh", "-c", "echo x > .env; echo y > notes.txt; exit 1"], policy=pol)
        self.assertRun(r, 2, "paldron: deny: sh create .env (policy deny_glob .env) [live]",
                       "paldron: blocked: sh create notes.txt (outside the writable roots) [live]",
                       "[EXIT CODE] 1", absent=["command exited"])
        self.assertFalse(self.ws.exists(".env"))
        self.assertFalse(self.ws.exists("notes.txt"))
        # a static program: no live gate, no kernel boundary; the writes happen
        # and the post-run scan denies them
        self.copy_probes()
        pol = example_policy(binaries=["sh"] + self.probe_paths(), require_os_isolation=False)
        r = self.exec(["sh", "-c", "src/probe_static open-write .env; "
                       "src/probe_static open-write notes.txt; exit 1"], policy=pol)
        self.assertRun(r, 2, "[STDOUT]\n0 0\n0 0\n",
                       "paldron: deny: run produced .env (policy deny_glob)",
                       "paldron: deny: run produced notes.txt (outside allow_paths)",
                       self.coverage_line("src/probe_static"),
                       absent=["command exited", "[live]"])
        # what the kernel did not stop is moved out of the way
        self.assertQuarantined(r, self.ws, ".env")
        self.assertQuarantined(r, self.ws, "notes.txt")

    def test_resource_limits_apply_in_degraded_mode(self):
        pol = example_policy(binaries=["sh"], require_os_isolation=False, max_open_files=77)
        r = self.exec(["sh", "-c", "ulimit -n"], policy=pol)
        self.assertRun(r, 0, "[STDOUT]\n77\n")

    def test_isolation_unavailable_fails_closed(self):
        if landlock_abi() >= 1:
            skip(self, "this kernel has Landlock ABI %d; the refusal path needs a kernel "
                 "without it (seed row X52)" % landlock_abi())
        r = self.exec(["true"], policy=example_policy(binaries=["true"]))
        self.assertRun(r, 1, "paldron: OS isolation unavailable on linux: ",
                       "Set require_os_isolation=false for policy-gate-only mode")


if __name__ == "__main__":
    main()
