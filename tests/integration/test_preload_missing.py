"""A paldron that cannot find its live gate says where it looked, and runs
nothing: a bare copy of the binary (no libpaldron_preload.so next to it or
in <prefix>/lib/paldron), and a PALDRON_PRELOAD_LIB that is relative or
unreadable. With the library named or next to the copy, the same copy runs."""

import os
import re
import shutil

from harness import BINARY_DIR, PALDRON, PaldronTest, Workspace, main

LIB = os.path.abspath(os.path.join(BINARY_DIR, "launcher", "libpaldron_preload.so"))
if not os.path.exists(LIB):
    LIB = os.path.abspath(os.path.join(BINARY_DIR, "preload", "libpaldron_preload.so"))


class PreloadMissingTest(PaldronTest):
    def setUp(self):
        self.ws = Workspace(as_user=True)
        self.bindir = os.path.join(self.ws.base, "bare", "bin")
        os.makedirs(self.bindir)
        self.copy = os.path.join(self.bindir, "paldron")
        shutil.copy2(PALDRON, self.copy)
        self.ws.write("src/a.txt", "a\n")

    def tearDown(self):
        self.ws.close()

    def looked_in(self, r):
        m = re.search(r"cannot find libpaldron_preload\.so \(looked in (.*); "
                      r"set PALDRON_PRELOAD_LIB=/abs/path\)", r.err)
        self.assertTrue(m, repr(r))
        return m.group(1).split(", ")

    def check_folders(self, folders):
        # the binary's own folder first, then the install tree's library
        # folder, written without ".." (it is <prefix>/lib.../paldron)
        self.assertEqual(folders[0], self.bindir)
        self.assertEqual(len(folders), 2, folders)
        prefix = os.path.dirname(self.bindir)
        self.assertTrue(folders[1].startswith(prefix + "/lib"), folders)
        self.assertTrue(folders[1].endswith("/paldron"), folders)
        self.assertNotIn("/..", folders[1])
        self.assertNotIn("/./", folders[1])

    def test_bare_copy_exec(self):
        r = self.ws.run(["exec", "--", "touch", "src/ran"], prog=self.copy)
        self.assertRun(r, 1, "paldron: live gate: cannot find libpaldron_preload.so (looked in ",
                       "; refusing to run without it", absent=["[EXIT CODE]"])
        self.check_folders(self.looked_in(r))
        self.assertFalse(self.ws.exists("src/ran"))  # nothing ran

    def test_bare_copy_env(self):
        r = self.ws.run(["env"], prog=self.copy)
        self.assertRun(r, 1, "paldron: env: cannot find libpaldron_preload.so (looked in ",
                       absent=["LD_PRELOAD"])
        self.check_folders(self.looked_in(r))
        self.assertEqual(r.out, "")

    def test_override_relative_or_unreadable(self):
        r = self.ws.run(["exec", "--", "true"], prog=self.copy,
                        env={"PALDRON_PRELOAD_LIB": "lib/libpaldron_preload.so"})
        self.assertRun(r, 1, "paldron: live gate: PALDRON_PRELOAD_LIB=lib/libpaldron_preload.so "
                       "is not an absolute path; refusing to run without it")
        missing = os.path.join(self.ws.base, "nope", "libpaldron_preload.so")
        r = self.ws.run(["env"], prog=self.copy, env={"PALDRON_PRELOAD_LIB": missing})
        self.assertRun(r, 1, "paldron: env: cannot read PALDRON_PRELOAD_LIB=%s: No such file or "
                       "directory" % missing)
        # set but wrong: no fallback to the folders, even where the library is
        r = self.ws.run(["exec", "--", "true"], env={"PALDRON_PRELOAD_LIB": missing})
        self.assertRun(r, 1, "cannot read PALDRON_PRELOAD_LIB=%s" % missing)

    def test_path_ld_preload_cannot_name(self):
        # the loader splits LD_PRELOAD at spaces and colons: a library there
        # would not be loaded and the run would lose its live gate unsaid
        spaced = os.path.join(self.ws.base, "my tools", "bin")
        os.makedirs(spaced)
        shutil.copy2(PALDRON, spaced)
        shutil.copy2(LIB, spaced)
        self.ws._own()
        real = os.path.join(spaced, "libpaldron_preload.so")
        r = self.ws.run(["exec", "--", "touch", "src/ran"], prog=os.path.join(spaced, "paldron"))
        self.assertRun(r, 1, "paldron: live gate: libpaldron_preload.so is at %s, but LD_PRELOAD "
                       "cannot name a path with a space or a colon; move it, or set "
                       "PALDRON_PRELOAD_LIB=/abs/path without them; refusing to run without it"
                       % real, absent=["[EXIT CODE]"])
        self.assertFalse(self.ws.exists("src/ran"))
        r = self.ws.run(["env"], prog=self.copy, env={"PALDRON_PRELOAD_LIB": real})
        self.assertRun(r, 1, "paldron: env: PALDRON_PRELOAD_LIB=%s: LD_PRELOAD cannot name"
                       % real)
        self.assertEqual(r.out, "")

    def test_found_once_named_or_next_to_it(self):
        self.assertTrue(os.path.exists(LIB), LIB)
        r = self.ws.run(["exec", "--", "true"], prog=self.copy, env={"PALDRON_PRELOAD_LIB": LIB})
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)", absent=["cannot find"])
        shutil.copy2(LIB, self.bindir)
        r = self.ws.run(["exec", "--", "true"], prog=self.copy)
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)", absent=["cannot find"])


if __name__ == "__main__":
    main()
