"""Adversarial: exhausting what the run is given. A fork bomb (ends, exit
non-zero, the user can still start processes), a memory balloon
(RLIMIT_DATA), a CPU spinner (RLIMIT_CPU), 100 MB on stdout (capped, the run
ends), a 2 GB file in the workspace, the private /tmp and /dev/shm
(RLIMIT_FSIZE) and the preload's report socket spammed with forged and
malformed records (the run is denied, the launcher survives and prints its
result)."""

import os
import subprocess
import time

from adv_base import AdvCase, main

MiB = 1 << 20


class FloodsTest(AdvCase):
    def assertUserCanStillFork(self):
        p = subprocess.run(self.as_user(["sh", "-c", "for i in 1 2 3 4 5; do /bin/true & done; "
                                         "wait; echo forked"]),
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.stdout.strip(), "forked", p.stderr)

    def test_fork_bomb(self):
        t0 = time.monotonic()
        # The top shell execs its sleep rather than forking it: once the bomb
        # holds every process slot a fork of `sleep` fails and the shell would
        # end at once (exit 2) instead of at the deadline, as it did once under
        # ASan, where each process starts slower.
        r = self.sh("b() { b | b & }; b; exec sleep 30", binaries=["sleep"], max_processes=64,
                    timeout_sec=4, timeout=60)
        elapsed = time.monotonic() - t0
        self.assertLess(elapsed, 15, "the run did not end at its deadline")
        self.assertIn("[TIMEOUT]", r.out)
        self.assertWorld(r, codes=(1,))
        self.assertUserCanStillFork()

    def test_python_fork_bomb(self):
        t0 = time.monotonic()
        r = self.py("import time\nn = 0\nwhile True:\n    try:\n        if os.fork() == 0:\n"
                    "            time.sleep(60); os._exit(0)\n        n += 1\n"
                    "    except OSError as e:\n        print('stopped after', n, e, flush=True); break\n"
                    "time.sleep(60)\n", max_processes=64, timeout_sec=4, timeout=60)
        self.assertLess(time.monotonic() - t0, 15)
        self.assertWorld(r, codes=(1,))
        self.assertIn("stopped after", r.out)
        self.assertUserCanStillFork()

    def test_memory_balloon(self):
        r = self.py("chunks = []\n"
                    "attempt('8 GiB at once', lambda: bytearray(8 << 30))\n"
                    "try:\n"
                    "    while True:\n"
                    "        b = bytearray(16 << 20)\n"
                    "        for i in range(0, len(b), 4096): b[i] = 1\n"
                    "        chunks.append(b)\n"
                    "except MemoryError:\n"
                    "    print('balloon: -1 stopped at %d MiB' % (16 * len(chunks)))\n"
                    "finish()\n", max_memory_mb=256, timeout=60)
        self.assertWorld(r, codes=(1,))
        res = self.results(r)
        self.assertEqual(res["8 GiB at once"][0], -1, repr(r))
        got = int(r.out.split("stopped at ")[1].split()[0])
        self.assertLessEqual(got, 256, repr(r))

    def test_cpu_spinner(self):
        t0 = time.monotonic()
        r = self.py("while True:\n    pass\n", cpu_time_sec=2, timeout_sec=15, timeout=60)
        self.assertLess(time.monotonic() - t0, 10, "RLIMIT_CPU did not end the spinner")
        self.assertWorld(r, codes=(1,))
        self.assertIn("signal", r.err)

    def test_output_flood(self):
        t0 = time.monotonic()
        r = self.py("import sys\nchunk = b'x' * (1 << 20)\n"
                    "for i in range(100):\n    sys.stdout.buffer.write(chunk)\n"
                    "    sys.stderr.buffer.write(chunk[:1 << 17])\n"
                    "sys.stdout.flush()\n", timeout_sec=60, timeout=120)
        self.assertLess(time.monotonic() - t0, 60)
        # capped: 1 MiB per stream kept, the rest counted
        self.assertLess(len(r.out) + len(r.err), 3 * MiB)
        self.assertIn("[TRUNCATED: output exceeded 1048576 bytes]", r.out)
        self.assertIn("[EXIT CODE] 0 (success)", r.out)
        self.assertWorld(r, codes=(0,))

    def test_disk_flood(self):
        t0 = time.monotonic()
        r = self.sh("head -c 2G /dev/zero > src/big; echo head=$?; "
                    "head -c 2G /dev/zero > /tmp/big; echo tmp=$?; "
                    "head -c 2G /dev/zero > /dev/shm/big; echo shm=$?; "
                    "python3 -c 'f = open(\"src/big2\", \"wb\")\nwhile True: f.write(bytes(1 << 20))'; "
                    "ls -l src/big src/big2 /tmp/big /dev/shm/big; exit 1",
                    binaries=["head", "ls"], max_file_size_mb=64, timeout_sec=60, timeout=120)
        self.assertLess(time.monotonic() - t0, 60)
        self.assertWorld(r, codes=(1,))
        for rel in ("src/big", "src/big2"):
            self.assertLessEqual(os.path.getsize(self.p(rel)), 64 * MiB, rel)
        for var in ("head", "tmp", "shm"):
            self.assertNotIn("%s=0" % var, r.out, repr(r))
        self.assertIn("File too large", r.out)

    def test_report_channel_flood(self):
        body = r"""
import socket, time
path = os.environ['PALDRON_RUN'] + '/report.sock'
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.settimeout(2)
forged = [
    b'PDR1\tdeny\tread\t/forged\t/forged\tsecrets\t.env\tsecret\t1\tevil\tevil',
    b'', b'PDR1', b'PDR1\t', b'PDR2\tdeny', b'\xff\xfe' * 30000,
    b'PDR1\tdeny\tread\t' + b'\\' * 9000,
    b'PDR1\t' + b'\t' * 8000,
    b'PDR1\tallow\tread\t/x\t/x\tk\tp\tr\t1\tp\tp',
    b'PDR1\tcoverage\texec\t/x\t/x\tk\tp\tstatic binary\t-5\tp',
    b'PDR1\terror\tinit\t/x\t/x\tk\tp\tbroken\t99999999999999999999\tp',
    b'PDR1\tdeny\tread\t\x1b]0;pwned\x07\x1b[2J/x\t/x\tk\tp\tr\t1\tp\targv',
    b'PDR1\tdeny\tread\t%s%s%n%n\t/x\tk\tp\tr\t1\tp\t' + b'a\t' * 3000,
    b'\0' * 100,
]
sent = fail = 0
end = time.time() + 8
i = 0
while time.time() < end and i < 60000:
    rec = forged[i % len(forged)]
    if i % len(forged) == 0:
        rec = rec.replace(b'/forged', ('/forged/%d' % i).encode())
    try:
        s.sendto(rec, path)
        sent += 1
    except OSError:
        fail += 1
    i += 1
print('sent', sent, 'failed', fail)
"""
        t0 = time.monotonic()
        r = self.py(body, timeout_sec=40, timeout=120)
        self.assertLess(time.monotonic() - t0, 60)
        # the launcher lived: the result block and a verdict, not a crash
        self.assertIn("[EXIT CODE] 0 (success)", r.out, repr(r)[-3000:])
        self.assertIn("sent ", r.out)
        self.assertGreaterEqual(r.code, 0)
        self.assertIn("live records dropped (flood)", r.err)
        self.assertWorld(r, codes=(2,))


if __name__ == "__main__":
    main()
