"""The process tree of `paldron exec`: nothing the command starts outlives the
run (not through a double fork, not through setsid), timeouts end the whole tree,
output capture never hangs on a pipe a descendant holds, keep_background keeps
background processes sandboxed and still ends them at the deadline. Run for real
as the unprivileged test user; every pid is checked afterwards."""

import os
import re
import signal
import subprocess
import time

from harness import PALDRON, main
from test_exec_result import ExecBase, example_policy, pid_alive, user_processes

SH = ["sh", "sleep", "setsid"]


def wait_dead(pids, seconds):
    until = time.monotonic() + seconds
    while time.monotonic() < until and any(pid_alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if pid_alive(p)]


class TreeTest(ExecBase):
    def pids(self, *names):
        out = []
        for n in names:
            with open(self.p("src/" + n)) as f:
                out.append(int(f.read().split()[0]))
        return out

    def test_timeout_ends_the_whole_tree(self):
        # seed row X22, plus a setsid grandchild and a double-forked orphan
        script = ("sleep 300 & echo $! > src/bg.pid; "
                  "setsid sh -c 'echo $$ > src/sid.pid; exec sleep 301' & "
                  "sh -c 'sleep 302 & echo $! > src/df.pid' & "
                  "wait")
        t0 = time.monotonic()
        r = self.exec(["sh", "-c", script], policy=example_policy(binaries=SH, timeout_sec=2))
        elapsed = time.monotonic() - t0
        self.assertRun(r, 1, "paldron: command timed out",
                       "[TIMEOUT] Command killed after exceeding time limit", "[EXIT CODE] -1")
        self.assertLess(elapsed, 2 + 0.5 + 2, "SIGTERM, a short grace, SIGKILL")
        pids = self.pids("bg.pid", "sid.pid", "df.pid")
        self.assertEqual(wait_dead(pids, 0.5), [], "still alive after paldron returned")

    def test_timeout_kills_what_ignores_sigterm(self):
        script = "trap '' TERM; sh -c 'trap \"\" TERM; echo $$ > src/stubborn.pid; " \
                 "while :; do sleep 1; done' & wait"
        t0 = time.monotonic()
        r = self.exec(["sh", "-c", script], policy=example_policy(binaries=SH, timeout_sec=1))
        self.assertRun(r, 1, "paldron: command timed out")
        self.assertLess(time.monotonic() - t0, 1 + 0.5 + 2)
        self.assertEqual(wait_dead(self.pids("stubborn.pid"), 0.5), [])

    def test_background_processes_are_ended_when_the_command_exits(self):
        # a bounded "fork bomb" in the background: a binary tree of shells
        # with 32 sleeping leaves
        script = ("b() { if [ $1 -gt 0 ]; then b $(($1-1)) & b $(($1-1)) & wait; "
                  "else exec sleep 303; fi; }; "
                  "b 5 & sleep 1; n=0; for f in /proc/[0-9]*/cmdline; do "
                  "case \"$(tr '\\0' ' ' 2>/dev/null < $f)\" in 'sleep 303'*) n=$((n+1));; esac; "
                  "done; echo leaves $n; echo main done")
        r = self.exec(["sh", "-c", script], policy=example_policy(binaries=SH + ["tr"]))
        self.assertRun(r, 0, "main done\n", "[EXIT CODE] 0 (success)", absent=["paldron: deny"])
        # the bomb was running when the command exited (the count is racy:
        # some leaves may not have reached exec yet)
        leaves = int(re.search(r"leaves (\d+)", r.out).group(1))
        self.assertGreaterEqual(leaves, 16, r.out)
        until = time.monotonic() + 0.5
        while time.monotonic() < until and user_processes(self.uid, "sleep 303"):
            time.sleep(0.05)
        self.assertEqual(user_processes(self.uid, "sleep 303"), [])

    def test_pipe_held_by_a_descendant_does_not_hang(self):
        # seed row X48: the original waited 2 s, then reported a sandbox error
        # and left the holder running
        t0 = time.monotonic()
        r = self.exec(["sh", "-c", "sleep 304 & echo $! > src/holder.pid; echo out"],
                      policy=example_policy(binaries=SH))
        self.assertLess(time.monotonic() - t0, 2)
        self.assertRun(r, 0, "[STDOUT]\nout\n", "[EXIT CODE] 0 (success)",
                       absent=["WaitDelay"])
        self.assertEqual(wait_dead(self.pids("holder.pid"), 0.5), [])

    def test_keep_background(self):
        pol = example_policy(binaries=SH, keep_background=True, timeout_sec=3)
        t0 = time.monotonic()
        r = self.exec(["sh", "-c", "sleep 305 >/dev/null 2>&1 & echo $! > src/kept.pid; "
                       "echo started"], policy=pol)
        self.assertLess(time.monotonic() - t0, 2, "paldron returns when the command exits")
        self.assertRun(r, 0, "[STDOUT]\nstarted\n", "paldron: warning: 1 background process(es) "
                       "still running (keep_background = true)")
        pid = self.pids("kept.pid")[0]
        self.assertTrue(pid_alive(pid), "the background process was kept")
        with open("/proc/%d/status" % pid) as f:
            status = f.read()
        self.assertIn("NoNewPrivs:\t1", status)
        self.assertIn("Seccomp:\t2", status, "still sandboxed")
        # ...and still ended at the deadline (3 s after the start, + grace)
        self.assertEqual(wait_dead([pid], 3 + 0.5 + 2 - (time.monotonic() - t0)), [])

    def test_keep_background_writer_survives_the_launcher(self):
        # output written after paldron returned is dropped, not a SIGPIPE
        pol = example_policy(binaries=SH, keep_background=True, timeout_sec=5)
        r = self.exec(["sh", "-c", "(for i in 1 2 3 4 5; do echo tick $i; sleep 0.2; done; "
                       "echo done > src/bg.done) & echo started"], policy=pol)
        self.assertRun(r, 0, "started", "keep_background = true")
        until = time.monotonic() + 4
        while not self.ws.exists("src/bg.done") and time.monotonic() < until:
            time.sleep(0.05)
        self.assertEqual(self.ws.read("src/bg.done"), "done\n")

    def test_signal_to_paldron_ends_the_tree(self):
        pol = self.ws.policy(example_policy(binaries=SH))
        user = self.ws.user
        cmd = ["setpriv", "--reuid", str(user.pw_uid), "--regid", str(user.pw_gid),
               "--clear-groups", PALDRON, "exec", "--policy", pol, "--", "sh", "-c",
               "setsid sleep 306 & echo $! > src/victim.pid; sleep 307"]
        self.ws._own()
        p = subprocess.Popen(cmd, cwd=self.ws.path, env=self.ws.env(), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        until = time.monotonic() + 10
        while not self.ws.exists("src/victim.pid") and time.monotonic() < until:
            time.sleep(0.05)
        time.sleep(0.1)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=10)
        self.assertEqual(p.returncode, 1, err)
        self.assertIn(b"paldron: interrupted by SIGTERM", err)
        self.assertEqual(wait_dead(self.pids("victim.pid"), 0.5), [])
        self.assertEqual(user_processes(self.uid, "sleep 307"), [])


if __name__ == "__main__":
    main()
