"""Everyday work under `paldron exec` with the example policy (allow_paths =
["src/"], secrets denied, no network, kernel isolation), run for real as the
unprivileged test user. Each command must succeed, and the world must show it.

The live gate (the preload) is on: allow_binaries names, per test, every program
the test's command starts (a program inside the workspace by absolute path), never
an empty list, which would allow anything and hide the gate."""

import os
import subprocess
import tarfile
import time

from harness import main
from test_exec_result import EXAMPLE_DIR, ExecBase, example_policy


class EverydayTest(ExecBase):
    def run_ok(self, binaries, argv, *fragments, **kw):
        self.assertTrue(binaries, "an empty allow_binaries would hide the live gate")
        r = self.exec(argv, policy=example_policy(binaries=binaries), **kw)
        # every program here is dynamic: the live gate followed each of them
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)", *fragments,
                       absent=["paldron: deny", "paldron: coverage"])
        return r

    def test_python_script_writes_inside_src(self):
        self.ws.write("src/w.py", "from pathlib import Path\n"
                      "Path('src/out.txt').write_text('written')\n"
                      "Path('src/data').mkdir()\n"
                      "Path('src/data/rows.csv').write_text('a,b\\n')\n"
                      "print('done')\n")
        self.run_ok(["python3"], ["python3", "src/w.py"], "[STDOUT]\ndone\n")
        self.assertEqual(self.ws.read("src/out.txt"), "written")
        self.assertEqual(self.ws.read("src/data/rows.csv"), "a,b\n")

    def test_git_init_add_commit_in_src(self):
        self.ws.write("src/g.sh", "set -e\n"
                      "cd src\n"
                      "git init -q repo\n"
                      "cd repo\n"
                      "echo hello > a.txt\n"
                      "git add a.txt\n"
                      "git -c user.name=T -c user.email=t@example.invalid commit -q -m first\n"
                      "git log --format=%s\n")
        self.run_ok(["sh", "git"], ["sh", "src/g.sh"], "[STDOUT]\nfirst\n")
        log = subprocess.run(["git", "-c", "safe.directory=*", "-C", self.p("src/repo"), "log",
                              "--format=%s %ae"], capture_output=True, text=True)
        self.assertEqual(log.stdout, "first t@example.invalid\n", log.stderr)

    def test_gcc_compiles_and_runs(self):
        self.ws.write("src/hello.c", '#include <stdio.h>\n'
                      'int main(void) { puts("hello from c"); return 0; }\n')
        self.run_ok(["sh", "gcc", self.p("src/hello")], ["sh", "-c", "gcc -O0 -o src/hello src/hello.c && src/hello"],
                    "[STDOUT]\nhello from c\n")
        self.assertTrue(os.access(self.p("src/hello"), os.X_OK))
        # the compiled program lives in a writable root: a bare name does not
        # allow it, only its absolute path does
        r = self.exec(["sh", "-c", "src/hello"], policy=example_policy(binaries=["sh", "hello"]))
        self.assertRun(r, 2, "paldron: deny: sh exec src/hello (not in allow_binaries) [live]",
                       absent=["hello from c"])

    def test_tar_extract_into_src(self):
        self.ws.write("src/in/run.sh", "#!/bin/sh\necho packed\n", mode=0o755)
        self.ws.write("src/in/data.txt", "payload")
        old = time.time() - 86400 * 30
        os.utime(self.p("src/in/data.txt"), (old, old))
        with tarfile.open(self.p("src/a.tar"), "w") as t:
            t.add(self.p("src/in"), arcname="pkg")
        self.ws.mkdir("src/out")
        self.run_ok(["tar"], ["tar", "-xf", "src/a.tar", "-C", "src/out"])
        self.assertEqual(self.ws.read("src/out/pkg/data.txt"), "payload")
        # tar restored the mode and the time (chmod and utimensat are allowed)
        self.assertEqual(os.stat(self.p("src/out/pkg/run.sh")).st_mode & 0o777, 0o755)
        self.assertAlmostEqual(os.stat(self.p("src/out/pkg/data.txt")).st_mtime, old, delta=1)

    def test_cp_preserving_attributes(self):
        self.ws.write("src/a.txt", "copy me", mode=0o640)
        old = time.time() - 86400
        os.utime(self.p("src/a.txt"), (old, old))
        self.run_ok(["cp"], ["cp", "-p", "src/a.txt", "src/b.txt"])
        st = os.stat(self.p("src/b.txt"))
        self.assertEqual(self.ws.read("src/b.txt"), "copy me")
        self.assertEqual(st.st_mode & 0o777, 0o640)
        self.assertAlmostEqual(st.st_mtime, old, delta=1)

    def test_touch(self):
        self.run_ok(["touch"], ["touch", "src/new.txt"])
        self.assertTrue(self.ws.exists("src/new.txt"))
        self.run_ok(["touch"], ["touch", "-d", "2001-02-03 04:05:06", "src/new.txt"])
        self.assertEqual(time.gmtime(os.stat(self.p("src/new.txt")).st_mtime).tm_year, 2001)

    def test_chmod_then_run_the_script(self):
        self.run_ok(["sh", "chmod"], ["sh", "-c", "printf '#!/bin/sh\\necho script ran\\n' > src/s.sh && "
                     "chmod +x src/s.sh && src/s.sh"], "[STDOUT]\nscript ran\n")
        self.assertTrue(os.stat(self.p("src/s.sh")).st_mode & 0o100)

    def test_shell_pipeline(self):
        self.run_ok(["sh", "sort", "head", "tr"], ["sh", "-c", "printf 'b\\na\\nc\\n' | sort | head -n 2 | tr a-z A-Z"],
                    "[STDOUT]\nA\nB\n")
        # the gate is on: the same pipeline with tr left out of the list
        r = self.exec(["sh", "-c", "printf 'b\\na\\nc\\n' | sort | head -n 2 | tr a-z A-Z"],
                      policy=example_policy(binaries=["sh", "sort", "head"]))
        self.assertRun(r, 2, "tr: Permission denied",
                       "paldron: deny: sh exec /usr/bin/tr (not in allow_binaries) [live]",
                       absent=["sort (not", "head (not"])

    def test_timeout_inside_the_command(self):
        # timeout(1) signals its own child: allowed, and reported as a failure
        t0 = time.monotonic()
        r = self.exec(["timeout", "1", "sleep", "5"],
                      policy=example_policy(binaries=["timeout", "sleep"]))
        self.assertLess(time.monotonic() - t0, 4.5)
        self.assertRun(r, 1, "[EXIT CODE] 124", "paldron: command exited 124",
                       absent=["timed out", "[TIMEOUT]", "paldron: deny"])

    def test_python_multiprocessing_pool(self):
        self.ws.write("src/mp.py", "from multiprocessing import Pool\n"
                      "def sq(x):\n    return x * x\n"
                      "if __name__ == '__main__':\n"
                      "    with Pool(2) as p:\n        print(sum(p.map(sq, range(10))))\n")
        self.run_ok(["python3"], ["python3", "src/mp.py"], "[STDOUT]\n285\n")

    def test_reading_etc_hosts(self):
        self.run_ok(["sh", "cat"], ["sh", "-c", "cat /etc/hosts"], "localhost")
        self.run_ok(["python3"], ["python3", "-c", "import sys; sys.stdout.write(open('/etc/hosts').read())"],
                    "localhost")

    def test_example_tool(self):
        with open(os.path.join(EXAMPLE_DIR, "src", "tool.py")) as f:
            self.ws.write("src/tool.py", f.read())
        self.run_ok(["python3"], ["python3", "src/tool.py"], "[STDOUT]\ntool done\n")
        self.assertEqual(self.ws.read("src/out.txt"), "via paldron")


if __name__ == "__main__":
    main()
