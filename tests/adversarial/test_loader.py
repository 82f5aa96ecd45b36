"""Adversarial: the dynamic loader's and libc's hooks. A planted library
(built with gcc) marks, with raw system calls from its constructor, that it
was loaded inside a run (src/LOADED): LD_PRELOAD of a planted .so (set inside
the run and in the agent's own environment), LD_AUDIT, LD_LIBRARY_PATH to a
writable root (a library looked up by name, and a replacement for a library
an allowed program needs), GCONV_PATH with a planted iconv module, and forged
PALDRON_* settings. The marker must not exist; a gated call still denies."""

import os
import re
import shutil
import subprocess

from adv_base import MARK_C, RUN_PATH, AdvCase, main, skip

LOADED = "src/LOADED"

AUDIT_C = MARK_C + r"""
#include <link.h>
#include <stdint.h>
#include <string.h>
unsigned int la_version(unsigned int v) { (void)v; mark(); return LAV_CURRENT; }
char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
    (void)cookie; (void)flag;
    return strstr(name, "paldron") ? NULL : (char *)name;
}
"""

GCONV_C = MARK_C + r"""
#include <gconv.h>
int gconv_init(struct __gconv_step *step) { (void)step; mark(); return __GCONV_NOCONV; }
int gconv(struct __gconv_step *a, struct __gconv_step_data *b, const unsigned char **c,
          const unsigned char *d, unsigned char **e, size_t *f, int g, int h)
{ (void)a; (void)b; (void)c; (void)d; (void)e; (void)f; (void)g; (void)h; return 0; }
void gconv_end(struct __gconv_step *step) { (void)step; }
"""


class LoaderTest(AdvCase):
    def assertNotLoaded(self, r, codes=(1, 2)):
        self.assertFalse(os.path.lexists(self.p(LOADED)),
                         "the planted library was loaded inside the run\n%r" % r)
        self.assertWorld(r, codes=codes)

    def test_ld_preload_of_a_planted_library(self):
        so = self.build_so("evil.so", MARK_C)
        self.own()
        # in the workspace, in the run's private /tmp, relative, and by name
        # from a planted directory
        r = self.sh("cp src/evil.so /tmp/evil.so; mkdir -p src/lib && cp src/evil.so src/lib/; "
                    "LD_PRELOAD=%s cat src/plain.txt; LD_PRELOAD=/tmp/evil.so cat src/plain.txt; "
                    "LD_PRELOAD=src/evil.so python3 -c 'print(1)'; "
                    "LD_PRELOAD=evil.so LD_LIBRARY_PATH=src/lib cat src/plain.txt; "
                    "test -e %s" % (so, LOADED), binaries=["cp", "mkdir", "test"])
        self.assertNotLoaded(r, codes=(1,))
        # and the live gate is still in the program that was started
        r = self.sh("LD_PRELOAD=%s cat .env" % so)
        self.assertNotLoaded(r, codes=(2,))

    def test_ld_preload_in_the_agents_environment(self):
        so = self.build_so("evil.so", MARK_C)
        self.own()
        r = self.exec(["sh", "-c", "env | grep ^LD_; cat src/plain.txt; test -e %s" % LOADED],
                      policy=self.policy(binaries=["env", "grep", "test"]),
                      env={"LD_PRELOAD": so, "ADV_MARK": self.p(LOADED)})
        self.assertNotLoaded(r, codes=(1,))
        self.assertNotIn(so, r.out)

    def test_ld_audit(self):
        so = self.build_so("audit.so", AUDIT_C)
        self.own()
        # the audit library refuses the preload: if it were kept, cat would
        # read .env ungated (the mask still holds it; the live gate says so)
        r = self.sh("LD_AUDIT=%s cat .env; LD_AUDIT=%s sh -c 'echo x > src/k.key'" % (so, so))
        self.assertNotLoaded(r, codes=(2,))
        self.assertIn("sh create src/k.key (secret *.key) [live]", r.err)
        self.assertAbsent(self.p("src/k.key"))
        r = self.exec(["cat", "src/plain.txt"], policy=self.policy(),
                      env={"LD_AUDIT": so, "ADV_MARK": self.p(LOADED)})
        self.assertNotLoaded(r, codes=(0,))

    def test_ld_library_path_to_a_writable_root(self):
        os.mkdir(self.p("src/lib"))
        self.build_so("lib/libadv.so", MARK_C)
        self.own()
        r = self.sh("LD_LIBRARY_PATH=src/lib python3 -c 'import ctypes; ctypes.CDLL(\"libadv.so\")';"
                    " LD_LIBRARY_PATH=$PWD/src/lib:/usr/lib python3 -c "
                    "'import ctypes; ctypes.CDLL(\"libadv.so\")'; test -e %s" % LOADED,
                    binaries=["test"])
        self.assertNotLoaded(r, codes=(1,))

    def test_ld_library_path_replaces_a_needed_library(self):
        # a libz.so.1 of our own, with the version nodes python3 asks for:
        # the loader would take it before the system's and run its constructor
        objdump = shutil.which("objdump", path=RUN_PATH)
        python = "/usr/bin/python3"
        if objdump is None:
            skip(self, "objdump is not installed")
        dyn = subprocess.run([objdump, "-p", python], capture_output=True, text=True).stdout
        if "libz.so.1" not in dyn:
            skip(self, "%s does not need libz.so.1" % python)
        m = re.search(r"required from libz\.so\.1:\n((?:\s+0x\S+ 0x\S+ \d+ \S+\n)+)", dyn)
        versions = re.findall(r"(ZLIB_\S+)", m.group(1)) if m else []
        os.mkdir(self.p("src/lib"))
        vs = os.path.join(self.outside, "libz.map")
        with open(vs, "w") as f:
            f.write("".join("%s { };\n" % v for v in versions) or "{ };\n")
        self.build_so("lib/libz.so.1", MARK_C, extra=["-Wl,--version-script=" + vs,
                                                       "-Wl,-soname,libz.so.1"])
        os.unlink(vs)
        self.own()
        r = self.sh("LD_LIBRARY_PATH=$PWD/src/lib python3 -c 'print(1)'; "
                    "LD_LIBRARY_PATH=src/lib python3 -c 'import zlib; print(zlib.crc32(b\"x\"))';"
                    " test -e %s" % LOADED, binaries=["test"])
        self.assertNotLoaded(r, codes=(1,))

    def test_gconv_path(self):
        iconv = shutil.which("iconv", path=RUN_PATH)
        if iconv is None:
            skip(self, "iconv is not installed")
        os.mkdir(self.p("src/gconv"))
        self.build_so("gconv/ADV.so", GCONV_C)
        with open(self.p("src/gconv/gconv-modules"), "w") as f:
            f.write("module  ADV//  INTERNAL  ADV  1\nmodule  INTERNAL  ADV//  ADV  1\n")
        self.own()
        r = self.sh("echo x | GCONV_PATH=$PWD/src/gconv iconv -f ADV -t UTF-8; "
                    "echo x | GCONV_PATH=src/gconv iconv -f UTF-8 -t ADV; test -e %s" % LOADED,
                    binaries=["iconv", "test"])
        self.assertNotLoaded(r, codes=(1,))
        r = self.exec(["sh", "-c", "echo x | iconv -f ADV -t UTF-8"],
                      policy=self.policy(binaries=["iconv"]),
                      env={"GCONV_PATH": self.p("src/gconv"), "ADV_MARK": self.p(LOADED)})
        self.assertNotLoaded(r, codes=(1,))

    def test_forged_paldron_settings(self):
        # a child told that the gate only logs, or to read a policy the run wrote
        os.mkdir(self.p("src/run"))
        with open(self.p("src/run/policy.compiled"), "wb") as f:
            f.write(b"\0" * 64)
        self.own()
        r = self.sh("PALDRON_AUDIT=1 python3 -c \"open('src/.env', 'w').write('x')\"; "
                    "PALDRON_RUN=$PWD/src/run python3 -c \"open('src/x.key', 'w').write('x')\"; "
                    "env -u LD_PRELOAD -u PALDRON_RUN PALDRON_PRELOAD=/nonexistent "
                    "python3 -c \"open('src/.env.x', 'w').write('x')\"", binaries=["env"])
        self.assertWorld(r, codes=(2,))
        for rel in ("src/.env", "src/x.key", "src/.env.x"):
            self.assertAbsent(self.p(rel))
        self.assertEqual(r.err.count("[live]"), 3, r.err)

    def test_run_directory_is_read_only(self):
        # the run directory holds the compiled policy the preload trusts and
        # the report socket: the command may use the socket, change nothing
        body = ("run = os.environ['PALDRON_RUN']\n"
                "pol = run + '/policy.compiled'\n"
                "attempt('rewrite policy', lambda: open(pol, 'r+b').write(b'\\0' * 16))\n"
                "attempt('raw truncate policy', raw_open, pol, os.O_WRONLY | os.O_TRUNC)\n"
                "attempt('replace policy', os.replace, 'src/main.py', pol)\n"
                "attempt('unlink policy', sc, 'unlinkat', AT_FDCWD, pol.encode(), 0)\n"
                "attempt('new file', raw_write, run + '/planted', b'x')\n"
                "attempt('move socket', os.rename, run + '/report.sock', run + '/old.sock')\n"
                "attempt('chmod run', os.chmod, run, 0o777)\n"
                "finish()\n")
        r = self.py(body)
        self.assertWorld(r, codes=(1, 2))
        self.assertAllRefused(r)


if __name__ == "__main__":
    main()
