"""Issue 10, item 3: the loader's hooks do not shed the live gate, and every
exported glibc open is gated.

An LD_AUDIT library that refuses libpaldron_preload.so is dropped from every
environment the preload doctors, with the other loader and libc hooks
(docs/preload.md lists them); glibc's public __open is wrapped like open.
Real runs as the unprivileged test user."""

import os
import shutil
import subprocess

from harness import main, skip
from test_exec_result import ExecBase, example_policy

SECRET = "Jw5Tq8Zr2Mv6Xn4Pk9Bs3Ld"

# An audit library that refuses to load the preload (la_objsearch returns
# NULL for it): the loader then starts the program without the live gate.
AUDIT_C = r"""
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <string.h>
unsigned int la_version(unsigned int v) { (void)v; return LAV_CURRENT; }
char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
    (void)cookie; (void)flag;
    return strstr(name, "paldron") ? NULL : (char *)name;
}
"""

HOOKS = ["LD_AUDIT", "LD_DEBUG", "LD_DEBUG_OUTPUT", "LD_PROFILE", "LD_PROFILE_OUTPUT",
         "LD_ORIGIN_PATH", "GCONV_PATH", "LOCPATH", "NLSPATH", "HOSTALIASES",
         "RESOLV_HOST_CONF", "MALLOC_TRACE"]


class LoaderTest(ExecBase):
    def setUp(self):
        super().setUp()
        self.ws.write("src/.env", SECRET + "\n")

    def policy(self):
        # output_scan off: the live gate alone must keep the secret in
        return example_policy(binaries=["python3", "sh", "cat", "env"], output_scan=False)

    def build_audit(self):
        gcc = shutil.which("gcc")
        if not gcc:
            skip(self, "gcc is not installed")
        src = self.p("src/audit.c")
        with open(src, "w") as f:
            f.write(AUDIT_C)
        subprocess.run([gcc, "-shared", "-fPIC", "-o", self.p("src/audit.so"), src], check=True)
        self.ws._own()
        return self.p("src/audit.so")

    def test_ld_audit_refusing_the_preload_is_dropped(self):
        audit = self.build_audit()
        # A script, so that the argv gate sees only `sh src/run.sh`. The
        # inner shell writes a denied name in the writable src/: Landlock
        # allows it, only the live gate can refuse (a secret that exists
        # before the run may also be masked by the kernel floor, which would
        # hide whether the gate was there).
        self.ws.write("src/run.sh",
                      "LD_AUDIT=%s sh -c 'echo %s > src/key.key; cat src/.env'\n"
                      % (audit, SECRET))
        r = self.exec(["sh", "src/run.sh"], policy=self.policy())
        self.assertRun(r, 2, "sh create src/key.key (secret *.key) [live]",
                       absent=[SECRET])
        self.assertFalse(self.ws.exists("src/key.key"))

    def test_loader_hooks_are_dropped_from_a_child_environment(self):
        # harmless values: the point is whether they reach the child at all
        sets = " ".join("%s=%s" % (name, self.p("src/x")) for name in HOOKS if name != "LD_DEBUG")
        sets += " LD_DEBUG=unused"
        lib = "%s:/usr/lib/x86_64-linux-gnu:%s" % (self.p("src/lib"), "src/rel")
        self.ws.write("src/run.sh", "%s LD_LIBRARY_PATH=%s env\n" % (sets, lib))
        r = self.exec(["sh", "src/run.sh"], policy=self.policy())
        self.assertEqual(r.code, 0, repr(r))
        for name in HOOKS:
            self.assertNotIn(name + "=", r.out, repr(r))
        # entries in a writable root (or relative) go; the system's stay
        self.assertIn("LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu\n", r.out, repr(r))

    def test_dunder_open_is_gated(self):
        code = ("import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); "
                "fd = libc.__open(b'src/new.env', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644); "
                "print('fd', fd, 'errno', ctypes.get_errno())")
        self.ws.write("src/o.py", code.replace("; ", "\n") + "\n")
        r = self.exec(["python3", "src/o.py"],
                      policy=example_policy(binaries=["python3"]).replace(
                          '".env"', '".env", "*.env"'))
        self.assertRun(r, 2, "fd -1 errno 13", "python3 create src/new.env", "[live]")
        self.assertFalse(self.ws.exists("src/new.env"))


if __name__ == "__main__":
    main()
