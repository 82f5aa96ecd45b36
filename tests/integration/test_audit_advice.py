"""`paldron exec --audit` advises only narrow changes (issue 14, item 4): a
folder relative to the workspace (the top-level folder of a cache such as
.pytest_cache), never the whole workspace, "/" or the network; a denial by
the argv gate is audited too, and the command runs; repeats of one decision
end in "(repeated N times)" (item 7).

Run for real as the unprivileged test user."""

import os
import re

from harness import main
from test_exec_result import ExecBase, example_policy

ADVICE = re.compile(r"^paldron: audit:   smallest change: (.*)$", re.M)


class AdviceBase(ExecBase):
    def advice(self, r):
        found = ADVICE.findall(r.err)
        self.assertTrue(found, repr(r))
        for a in found:
            # never the whole workspace, "/", the network or "."
            self.assertNotIn('"/"', a, r)
            self.assertNotIn('"."', a, r)
            self.assertNotIn('"./"', a, r)
            self.assertNotIn('"%s"' % self.ws.path, a, r)
            self.assertNotIn('"%s/"' % self.ws.path, a, r)
            self.assertNotRegex(a, r"^set allow_network|^add .* allow_network", r)
        return found


class NarrowFolderTest(AdviceBase):
    def test_pytest_cache_gets_its_top_level_folder(self):
        self.ws.write("src/cache.py",
                      "import os\nos.makedirs('.pytest_cache/v/cache', exist_ok=True)\n"
                      "open('.pytest_cache/v/cache/nodeids', 'w').write('[]')\n")
        r = self.exec(["python3", "src/cache.py"], opts=["--audit"])
        self.assertRun(r, 1, "paldron: audit: would deny: python3 create .pytest_cache "
                       "(outside allow_paths) [live]",
                       absent=["paldron: deny"])
        found = self.advice(r)
        self.assertIn('add ".pytest_cache/" to allow_paths', found, r)
        # the kernel layers stay on: Landlock refused the folder, and says so
        self.assertIn("paldron: audit: blocked by the kernel: python3 create .pytest_cache "
                      "(landlock: outside the writable roots) [live]", r.err)
        self.assertFalse(self.ws.exists(".pytest_cache"))

    def test_top_level_file_has_no_narrow_folder(self):
        self.ws.write("src/top.py", "open('out.txt', 'w').write('x')\n")
        r = self.exec(["python3", "src/top.py"], opts=["--audit"])
        self.assertRun(r, 1, "paldron: audit: would deny: python3 create out.txt")
        found = self.advice(r)
        self.assertTrue(any(a.startswith("none narrow: out.txt lies at the top of the "
                                         "workspace") for a in found), r)


class NetworkTest(AdviceBase):
    def test_network_is_never_advised_on(self):
        # npm's update check: a lookup, then a connection
        self.ws.write("src/net.py",
                      "import socket\n"
                      "try:\n    socket.getaddrinfo('registry.npmjs.org', 443)\n"
                      "except OSError as e:\n    print('resolve', e)\n"
                      "s = socket.socket()\ns.settimeout(2)\n"
                      "try:\n    s.connect(('192.0.2.1', 443))\n"
                      "except OSError as e:\n    print('connect', e.errno)\n")
        r = self.exec(["python3", "src/net.py"], opts=["--audit"])
        self.assertRun(r, 0, "paldron: audit: would deny: python3 resolve registry.npmjs.org "
                       "(network disabled) [live]",
                       "paldron: audit: would deny: python3 connect 192.0.2.1:443 (network "
                       "disabled) [live]")
        for a in self.advice(r):
            self.assertTrue(a.startswith("none narrow: the network is off"), r)


class ArgvGateTest(AdviceBase):
    def test_program_outside_allow_binaries_is_audited_and_runs(self):
        r = self.exec(["id", "-u"])
        self.assertRun(r, 2, "paldron: deny: binary 'id' not in allow_binaries",
                       absent=["[STDOUT]"])
        r = self.exec(["id", "-u"], opts=["--audit"])
        self.assertRun(r, 0, "[STDOUT]\n%d\n" % self.uid,
                       "paldron: audit: would deny: binary 'id' not in allow_binaries "
                       "[allow_binaries: python3] [argv]; it runs: the command itself is on the "
                       "kernel's exec list", absent=["paldron: deny"])
        self.assertIn('add "id" to allow_binaries', self.advice(r))

    def test_path_argument_is_audited_and_the_kernel_still_refuses(self):
        outside = os.path.join(self.ws.outside, "data")
        os.mkdir(outside)
        path = os.path.join(outside, "in.txt")
        with open(path, "w") as f:
            f.write("data\n")
        code = "import sys\ntry:\n    open(sys.argv[1])\nexcept OSError as e:\n    print(e.errno)\n"
        self.ws.write("src/arg.py", code)
        r = self.exec(["python3", "src/arg.py", path])
        self.assertRun(r, 2, "paldron: deny: %s" % path, absent=["[STDOUT]"])
        r = self.exec(["python3", "src/arg.py", path], opts=["--audit"])
        self.assertRun(r, 0, "paldron: audit: would deny: %s" % path, "[argv]",
                       "[STDOUT]\n13\n",
                       "paldron: audit: blocked by the kernel: python3 read %s (landlock: "
                       "outside the readable roots) [live]" % path, absent=["paldron: deny"])
        self.assertIn('add "%s" to read_paths' % outside, self.advice(r))


class RepeatedTest(ExecBase):
    def test_repeats_are_counted(self):
        self.ws.write("src/rep.py", "for i in range(3):\n    try:\n"
                      "        open('src/.env', 'w')\n    except OSError:\n        pass\n")
        r = self.exec(["python3", "src/rep.py"])
        self.assertRun(r, 2, "paldron: deny: python3 create src/.env (policy deny_glob .env) "
                       "[live] (repeated 3 times)", absent=["(repeated)"])
        self.ws.write("src/once.py", "try:\n    open('src/.env', 'w')\nexcept OSError:\n"
                      "    pass\n")
        r = self.exec(["python3", "src/once.py"])
        self.assertRun(r, 2, "paldron: deny: python3 create src/.env (policy deny_glob .env) "
                       "[live]\n", absent=["repeated"])


if __name__ == "__main__":
    main()
