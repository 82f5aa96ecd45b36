"""Adversarial: the processes around the run. ptrace and process_vm_readv of
the launcher and of a process of the same user outside the run, signals to
the launcher and to everything (kill -1), TIOCSTI on a real terminal (a
pseudo-terminal, capture and --interactive mode), the launcher killed with
SIGKILL from outside mid-run, and background processes that try to outlive
the run (setsid + double fork, nohup, a daemon) with and without
keep_background."""

import os
import signal
import unittest
import subprocess
import time

from adv_base import (PALDRON, processes_of, PROBE_DIR, AdvCase, TcpCounter, landlock_abi, main, pid_alive,
                      proc_state, proc_status, skip, wait_until)

VICTIM = ("import ctypes, os, sys, time\n"
          "ctypes.CDLL(None).prctl(0x59616d61, ctypes.c_ulong(-1), 0, 0, 0)  # PR_SET_PTRACER_ANY\n"
          "secret = os.environ.get('OPENAI_API_KEY', '')\n"
          "print(os.getpid(), flush=True)\n"
          "time.sleep(120)\n")


class ProcessesTest(AdvCase):
    def victim(self):
        """A process of the test user outside the run, open to ptrace."""
        p = subprocess.Popen(self.as_user(["/usr/bin/python3", "-c", VICTIM]), env=self.env(),
                             stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        self.addCleanup(p.stdout.close)
        self.addCleanup(p.wait)
        self.addCleanup(p.kill)
        pid = int(p.stdout.readline())
        self.assertEqual(pid, p.pid)
        return p

    def assertVictimUntouched(self, p):
        self.assertIsNone(p.poll(), "the process outside the run died")
        self.assertEqual(proc_status(p.pid, "TracerPid"), "0")
        self.assertIn(proc_state(p.pid), ("S", "R"), "the process outside the run was stopped")

    # --- ptrace and memory ---------------------------------------------------------------
    def test_ptrace_the_launcher(self):
        ps = self.probes["probe_static"]
        r = self.sh("p=$PPID; while [ $p -gt 1 ]; do chk %s ptrace-attach $p && exit 0; "
                    "p=$(cut -d' ' -f4 /proc/$p/stat); done; exit 1" % ps, binaries=["cut"])
        self.assertWorld(r, codes=(1,))
        self.assertIn("[EXIT CODE] 1", r.out)
        body = ("pid = os.getppid()\n"
                "pt = libc_fn('ptrace', ctypes.c_long)\n"
                "while pid > 1:\n"
                "    attempt('seize %d' % pid, lambda: cchk(pt(0x4206, pid, None, None)))\n"
                "    attempt('raw attach %d' % pid, sc, 'ptrace', 16, pid, 0, 0)\n"
                "    pid = int(open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()[1])\n"
                "finish()\n")
        r = self.py(body)
        self.assertWorld(r, codes=(1,))
        self.assertAllRefused(r)

    def test_ptrace_a_process_outside_the_run(self):
        v = self.victim()
        # control: outside the run, the same user may attach to it
        ctl = subprocess.run(self.as_user([os.path.join(PROBE_DIR, "probe_static"),
                                           "ptrace-attach", str(v.pid)]),
                             capture_output=True, text=True)
        self.assertEqual(ctl.stdout.strip(), "0 0", ctl.stdout + ctl.stderr)
        ps = self.probes["probe_static"]
        r = self.sh("chk %s ptrace-attach %d || chk %s ptrace-attach %d"
                    % (ps, v.pid, self.probes["probe"], v.pid))
        self.assertWorld(r, codes=(1,), stragglers=False)
        self.assertVictimUntouched(v)

    def test_process_memory_of_others(self):
        v = self.victim()
        with open("/proc/%d/maps" % v.pid) as f:
            addr = int(next(l for l in f if " r" in l[17:40] or "r-" in l).split("-")[0], 16)
        body = ("class iovec(ctypes.Structure):\n"
                "    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]\n"
                "buf = ctypes.create_string_buffer(64)\n"
                "local = iovec(ctypes.cast(buf, ctypes.c_void_p), 64)\n"
                "remote = iovec(%d, 64)\n"
                "for pid in (%d, os.getppid()):\n"
                "    attempt('vm_readv %%d' %% pid, sc, 'process_vm_readv', pid, ctypes.byref(local), 1,"
                " ctypes.byref(remote), 1, 0)\n"
                "    for what in ('mem', 'environ', 'maps'):\n"
                "        attempt('%%s %%d' %% (what, pid), lambda: open('/proc/%%d/%%s' %% (pid, what), 'rb').read(4096))\n"
                "finish()\n" % (addr, v.pid))
        r = self.py(body)
        self.assertWorld(r, codes=(1,), stragglers=False)
        self.assertAllRefused(r)
        self.assertVictimUntouched(v)

    # --- signals -------------------------------------------------------------------
    def test_stop_and_kill_the_launcher(self):
        if landlock_abi() < 6:
            skip(self, "signals are scoped from Landlock ABI 6 (this kernel: %d)" % landlock_abi())
        ps = self.probes["probe_static"]
        r = self.sh("p=$PPID; while [ $p -gt 1 ]; do kill -STOP $p; kill -9 $p; "
                    "chk %s kill $p 19 && exit 0; chk %s kill $p 9 && exit 0; "
                    "p=$(cut -d' ' -f4 /proc/$p/stat); done; exit 1" % (ps, ps), binaries=["cut"],
                    timeout=30)
        # the launcher lived to print the result
        self.assertWorld(r, codes=(1,))
        self.assertIn("[EXIT CODE] 1", r.out)

    def test_kill_everything(self):
        if landlock_abi() < 6:
            skip(self, "signals are scoped from Landlock ABI 6 (this kernel: %d)" % landlock_abi())
        v = self.victim()
        r = self.sh("kill -9 -1; kill -STOP -1; %s kill -1 9; sleep 1; exit 1"
                    % self.probes["probe_static"], binaries=["sleep"], timeout=30)
        self.assertWorld(r, codes=(1,), stragglers=False)
        self.assertIn("[EXIT CODE]", r.out)
        self.assertVictimUntouched(v)

    # --- the terminal ---------------------------------------------------------------
    def tiocsti(self, opts):
        text = "touch %s\n" % os.path.join(self.outside, "INJ" + "ECTED")
        body = ("import fcntl, termios\n"
                "text = %r\n"
                "fds = [0, 1, 2]\n"
                "try:\n"
                "    fds.append(os.open('/dev/tty', os.O_RDWR))\n"
                "except OSError as e:\n"
                "    print('/dev/tty: -1', e.errno)\n"
                "for fd in fds:\n"
                "    def inject():\n"
                "        for ch in text:\n"
                "            fcntl.ioctl(fd, termios.TIOCSTI, ch.encode())\n"
                "    attempt('ioctl %%d' %% fd, inject)\n"
                "    c = ctypes.c_char(b'x')\n"
                "    attempt('raw ioctl %%d' %% fd, sc, 'ioctl', fd, termios.TIOCSTI, ctypes.byref(c))\n"
                "finish()\n" % text)
        path = self.p("src/tty.py")
        from adv_base import PY_PRELUDE, SYSCALLS
        import platform
        with open(path, "w") as f:
            f.write(PY_PRELUDE.replace("@NR@", repr(SYSCALLS[platform.machine()])) + body)
        os.chown(path, self.uid, self.gid)
        pol = self.write_policy(self.policy())
        out = self.pty_run([PALDRON, "exec", "--policy", pol] + list(opts) +
                           ["--", "python3", "src/tty.py"])
        return out

    def test_tiocsti_capture_mode(self):
        out = self.tiocsti([])
        self.assertIn("PALDRON-EXIT", out, out)
        self.assertNotIn("INJ" + "ECTED", out.replace("'INJ' + 'ECTED'", ""), out)
        self.assertIn("LEFT[b'']", out, out)
        self.assertAbsent(os.path.join(self.outside, "INJ" + "ECTED"))
        self.assertEqual(self.world_changes(), [])
        # the command failed (every injection refused): exit 1
        self.assertIn("PALDRON-EXIT 1", out, out)

    def test_tiocsti_interactive_mode(self):
        # the terminal is passed through: seccomp must refuse TIOCSTI
        out = self.tiocsti(["--interactive"])
        self.assertIn("PALDRON-EXIT", out, out)
        self.assertIn("LEFT[b'']", out, out)
        self.assertNotIn("touch " + self.outside, out, out)
        self.assertAbsent(os.path.join(self.outside, "INJ" + "ECTED"))
        self.assertEqual(self.world_changes(), [])
        self.assertIn("PALDRON-EXIT 1", out, out)

    # --- the launcher killed ----------------------------------------------------------
    def launcher_killed(self):
        """Start a run that leaves five kinds of background process, kill
        the launcher with SIGKILL; the markers of the background ones and
        that of the foreground command."""
        pol = self.write_policy(self.policy(binaries=["sleep", "setsid", "nohup"],
                                            timeout_sec=60))
        n = self.nonce
        script = ("sleep {a} & setsid sleep {b} & (sleep {c} &) ; "
                  "nohup sleep {d} >/dev/null 2>&1 & "
                  "python3 -c 'import os, time\nif os.fork() == 0:\n os.setsid()\n "
                  "if os.fork() == 0:\n  time.sleep({e})' ; "
                  "echo ready > src/ready; exec sleep {f}").format(
                      a=n + 1, b=n + 2, c=n + 3, d=n + 4, e=n + 5, f=n + 6)
        p = subprocess.Popen(self.as_user([PALDRON, "exec", "--policy", pol, "--", "sh", "-c",
                                           script]), cwd=self.wsp, env=self.env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        self.assertTrue(wait_until(lambda: os.path.exists(self.p("src/ready")), 20),
                        "the command never started")
        background = ["sleep %d" % (n + i) for i in (1, 2, 3, 4)] + ["time.sleep(%d)" % (n + 5)]
        foreground = ["sleep %d" % (n + 6)]
        self.assertTrue(wait_until(lambda: len(self.stragglers(background + foreground)) >= 5, 5))
        os.kill(p.pid, signal.SIGKILL)
        p.communicate(timeout=10)
        self.assertEqual(p.returncode, -signal.SIGKILL)
        return background, foreground

    def test_launcher_killed_ends_the_command(self):
        # the command has the launcher's death as its own (PR_SET_PDEATHSIG)
        background, foreground = self.launcher_killed()
        self.markers.update(background)  # ended by the cleanup (the known gap below)

        def running():
            return processes_of(self.uid, lambda pid, cmd, env, cwd: foreground[0] in cmd)
        self.assertTrue(wait_until(lambda: not running(), 5),
                        "the command outlived the launcher: %s" % running())
        self.assertEqual(self.world_changes(), [])
        self.assertEqual(self.leaks(), [])

    @unittest.expectedFailure
    def test_launcher_killed_ends_the_background(self):
        # KNOWN GAP (docs/security.md, "What no layer stops"): background
        # processes the run started outlive a launcher killed with SIGKILL
        # (they are reparented to init; only a PID namespace whose init dies
        # with the launcher would end them). They stay inside every kernel
        # layer and, under allow_hosts, without network; the post-run scan
        # never runs for them.
        background, _ = self.launcher_killed()
        self.assertNoStragglers(background, seconds=5)

    # --- background processes ---------------------------------------------------------
    def bg(self, script, binaries, **keys):
        r = self.sh(script, binaries=binaries, **keys)
        pids = []
        for n in sorted(os.listdir(self.p("src"))):
            if n.endswith(".pid"):
                with open(self.p("src/" + n)) as f:
                    pids += [int(x) for x in f.read().split()]
        return r, pids

    def test_setsid_and_double_fork(self):
        n = self.nonce
        r, pids = self.bg("setsid sh -c 'sleep %d & echo $! > src/a.pid' & "
                          "(sh -c 'sleep %d & echo $! > src/b.pid' &) ; sleep 0.5; exit 1"
                          % (n, n + 1), ["setsid", "sleep"])
        self.assertEqual(len(pids), 2, repr(r))
        self.assertWorld(r, codes=(1,), markers=["sleep %d" % n, "sleep %d" % (n + 1)])
        self.assertFalse([p for p in pids if pid_alive(p)])

    def test_nohup(self):
        n = self.nonce
        r, pids = self.bg("nohup sleep %d >/dev/null 2>&1 & echo $! > src/n.pid; exit 1" % n,
                          ["nohup", "sleep"])
        self.assertEqual(len(pids), 1, repr(r))
        self.assertWorld(r, codes=(1,), markers=["sleep %d" % n])
        self.assertFalse([p for p in pids if pid_alive(p)])

    def test_daemon(self):
        # the classic daemon: fork, setsid, fork, chdir /, close everything
        r, pids = self.bg(
            "python3 -c 'import os, sys, time\nif os.fork(): sys.exit(0)\nos.setsid()\n"
            "if os.fork(): sys.exit(0)\nopen(\"src/d.pid\", \"w\").write(str(os.getpid()))\n"
            "os.chdir(\"/\"); os.closerange(0, 1024)\ntime.sleep(%d)'; sleep 0.5; exit 1"
            % self.nonce, ["sleep"])
        self.assertEqual(len(pids), 1, repr(r))
        self.assertWorld(r, codes=(1,), markers=["time.sleep(%d)" % self.nonce])
        self.assertFalse([p for p in pids if pid_alive(p)])

    def test_keep_background_stays_sandboxed_and_ends_at_the_deadline(self):
        t = self.server(TcpCounter())
        bashrc = os.path.join(self.home, ".bashrc")
        body = ("import socket, time\n"
                "if os.fork() == 0:\n"
                "    os.setsid()\n"
                "    open('src/k.pid', 'w').write(str(os.getpid()))\n"
                "    end = time.time() + 30\n"
                "    while time.time() < end:\n"
                "        for f in (%r, %r, '.env'):\n"
                "            try: open(f, 'a').write('PWNED')\n"
                "            except OSError: pass\n"
                "        try: socket.create_connection(('127.0.0.1', %d), timeout=1).sendall(b'x')\n"
                "        except OSError: pass\n"
                "        time.sleep(0.2)\n"
                "    os._exit(0)\n"
                "time.sleep(0.3)\n"
                "raise SystemExit(1)\n" % (bashrc, os.path.join(self.outside, "canary.txt"), t.port))
        t0 = time.monotonic()
        r = self.py(body, keep_background=True, timeout_sec=4)
        self.assertLess(time.monotonic() - t0, 4, "paldron returns when the command exits")
        with open(self.p("src/k.pid")) as f:
            pid = int(f.read())
        self.assertTrue(pid_alive(pid), "keep_background kept nothing\n%r" % r)
        self.assertEqual(proc_status(pid, "NoNewPrivs"), "1")
        self.assertEqual(proc_status(pid, "Seccomp"), "2")
        # ended at the deadline (4 s after the start, a grace period)
        self.assertTrue(wait_until(lambda: not pid_alive(pid), 4 + 3 - (time.monotonic() - t0)),
                        "the kept process outlived the deadline")
        self.assertWorld(r, codes=(1, 2))
        self.assertEqual(t.settle(), 0, "the kept process reached the host")


if __name__ == "__main__":
    main()
