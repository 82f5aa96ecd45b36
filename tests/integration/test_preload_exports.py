"""libpaldron_preload.so exports exactly the functions of preload/symbols.def
(and preload/exports.map agrees), depends on nothing but the C library (no inih,
no cJSON, no sanitizer runtime) and keeps its own code out of programs' reach.
"""
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "preload"))
import preload_fixture as pf  # noqa: E402

SYMBOLS = os.path.join(pf.SOURCE_DIR, "preload", "symbols.def")
EXPORTS = os.path.join(pf.SOURCE_DIR, "preload", "exports.map")


def listed():
    with open(SYMBOLS) as f:
        return set(re.findall(r"^PD_SYM(?:_VA)?\([^,]+,\s*([A-Za-z0-9_]+)", f.read(), re.M))


class Exports(pf.PreloadTest):
    def setUp(self):
        super().setUp()
        if not shutil.which("nm") or not shutil.which("readelf"):
            pf.skip(self, "binutils (nm, readelf) not installed")

    def test_exports_are_the_symbol_list(self):
        out = subprocess.run(["nm", "-D", "--defined-only", pf.PRELOAD], capture_output=True,
                             text=True, check=True).stdout
        exported = {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}
        self.assertEqual(exported, listed())
        self.assertGreaterEqual(len(exported), 70)

    def test_version_script_names_the_symbol_list(self):
        with open(EXPORTS) as f:
            names = set(re.findall(r"^\s+([A-Za-z0-9_]+);$", f.read(), re.M))
        self.assertEqual(names, listed())

    def test_depends_on_the_c_library_only(self):
        out = subprocess.run(["readelf", "-d", pf.PRELOAD], capture_output=True, text=True,
                             check=True).stdout
        needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out))
        allowed = {"libc.so.6", "libdl.so.2", "ld-linux-x86-64.so.2"}
        self.assertTrue(needed <= allowed, needed)
        self.assertIn("libc.so.6", needed)
        syms = subprocess.run(["nm", "-D", pf.PRELOAD], capture_output=True, text=True).stdout
        for bad in ("ini_parse", "cJSON", "__asan", "__ubsan"):
            self.assertNotIn(bad, syms)

    def test_binds_its_own_calls_itself(self):
        out = subprocess.run(["readelf", "-d", pf.PRELOAD], capture_output=True, text=True,
                             check=True).stdout
        self.assertRegex(out, r"SYMBOLIC|FLAGS.*SYMBOLIC")
        self.assertIn("BIND_NOW", out)


if __name__ == "__main__":
    pf.main()
