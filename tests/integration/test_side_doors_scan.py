"""Issue 10, items 6 and 7: the post-run scan fails closed on directories it
cannot read, and secrets are judged by content, not only by name.

- A directory left unreadable by an earlier run (src/hide at mode 0100) is
  made readable for the scan (the user owns it) and restored afterwards, so a
  secret name written below it by a later run is found.
- A secret file holding a bare value (Docker/Kubernetes style, no KEY=) is a
  known value for the output scan: printing it is redacted and denied.
- Every file the run created or changed inside the writable roots is scanned
  for known secret values (raw, base64, hex): a copy of .env under an
  innocuous name denies the run and names both files.
- An ordinary run that writes files without secret content passes.

The writes go through the static probe (no live gate: only the kernel and the
post-run scan can stop it). Real runs as the unprivileged test user."""

import base64
import os
import stat

from harness import PALDRON, main
from test_exec_result import ExecBase, example_policy

SECRET = "sk-live-4f9Qz7XbP2mR8kL1vT6w"
BARE = "hunter2-very-long-value"


class ScanSideDoorTest(ExecBase):
    def setUp(self):
        super().setUp()
        self.probes = self.copy_probes()
        self.static = self.probes[1]
        self.ws.write(".env", "API_TOKEN=%s\nDEBUG=true\n" % SECRET)

    def policy(self, namespaces=True):
        # namespaces = false where the probe must read a secret: the
        # namespace floor masks secret files, so only without it (or on a
        # host that refuses namespaces) can a raw-syscall program read them
        return example_policy(binaries=["sh", "cat", "python3"] + self.probe_paths(),
                              namespaces=namespaces)

    def sh(self, script, namespaces=True):
        return self.exec(["sh", "-c", script], policy=self.policy(namespaces))

    # --- item 6: unreadable directories ------------------------------------
    def test_directory_left_unreadable_by_an_earlier_run(self):
        s = self.static
        r1 = self.sh("%s mkdir src/hide; %s mkdir src/hide/sub; %s chmod src/hide 0100"
                     % (s, s, s))
        self.assertEqual(stat.S_IMODE(os.lstat(self.p("src/hide")).st_mode), 0o100, repr(r1))
        self.assertNotIn("src/hide/sub", r1.both)
        r2 = self.sh("%s open-write src/hide/sub/.env" % s)
        self.assertIn("0 0", r2.out, repr(r2))
        self.assertRun(r2, 2, "paldron: deny: run produced src/hide/sub/.env (policy deny_glob)")
        # the scan gave the directory its mode back
        self.assertEqual(stat.S_IMODE(os.lstat(self.p("src/hide")).st_mode), 0o100)

    def test_directory_the_scan_cannot_open_denies(self):
        # readable but not searchable (0600): entries can be listed, not
        # opened; the scan makes it searchable for itself, then restores it
        s = self.static
        self.ws.mkdir("src/box/inner")
        os.chmod(self.p("src/box"), 0o600)
        r = self.sh("%s chmod src/box 0700; %s open-write src/box/inner/.env; "
                    "%s chmod src/box 0600" % (s, s, s))
        self.assertRun(r, 2, "paldron: deny: run produced src/box/inner/.env (policy deny_glob)")
        self.assertEqual(stat.S_IMODE(os.lstat(self.p("src/box")).st_mode), 0o600)

    # --- item 7a: bare values -----------------------------------------------
    def test_bare_value_secret_printed_is_redacted(self):
        self.ws.write("src/secrets/db_password", BARE + "\n")
        # read through the static probe: the live gate would refuse cat
        r = self.sh("%s read-file src/secrets/db_password" % self.static, namespaces=False)
        self.assertRun(r, 2, "[REDACTED:known-value]",
                       "paldron: deny: output exposes a secret value from file ",
                       absent=[BARE])

    # --- item 7b: copies by content -------------------------------------------
    def test_raw_copy_of_env_into_notes_denies(self):
        r = self.sh("%s copy .env src/notes.txt" % self.static, namespaces=False)
        self.assertIn("0 0", r.out, repr(r))
        self.assertTrue(self.ws.exists("src/notes.txt"))
        self.assertRun(r, 2, "paldron: deny: run copied the secret of .env into src/notes.txt "
                       "(known value)")

    def test_base64_of_the_secret_written_to_a_file_denies(self):
        b64 = base64.b64encode(SECRET.encode()).decode()
        r = self.sh("%s write-text src/blob.txt 'data: %s'" % (self.static, b64))
        self.assertIn("0 0", r.out, repr(r))
        self.assertRun(r, 2, "paldron: deny: run copied the secret of .env into src/blob.txt "
                       "(known value in base64)")

    def test_hex_of_a_bare_secret_written_to_a_file_denies(self):
        self.ws.write("src/secrets/db_password", BARE + "\n")
        r = self.sh("%s write-text src/dump.txt %s" % (self.static, BARE.encode().hex()))
        self.assertRun(r, 2, "paldron: deny: run copied the secret of src/secrets/db_password "
                       "into src/dump.txt (known value in hex)")

    def test_secret_appended_to_an_existing_file_denies(self):
        self.ws.write("src/app.log", "started\n")
        r = self.exec(["python3", "-c",
                       "open('src/app.log', 'a').write('token %s\\n')" % SECRET],
                      policy=self.policy())
        self.assertRun(r, 2, "paldron: deny: run copied the secret of .env into src/app.log "
                       "(known value)")

    def test_ordinary_writes_pass(self):
        self.ws.write("src/existing.py", "print('hello')\n")
        script = ("import os\n"
                  "os.makedirs('src/build/out', exist_ok=True)\n"
                  "for i in range(50):\n"
                  "    open('src/build/out/f%d.txt' % i, 'w').write('line %d DEBUG=true\\n' % i * 20)\n"
                  "open('src/existing.py', 'a').write('print(\"more\")\\n')\n"
                  "open('src/big.bin', 'wb').write(os.urandom(1 << 20))\n"
                  "print('done')\n")
        self.ws.write("src/w.py", script)
        r = self.exec(["python3", "src/w.py"], policy=self.policy())
        self.assertRun(r, 0, "done", absent=["paldron: deny", "warning: scan"])

    # --- a deep tree on a small stack ---------------------------------------------
    def test_a_deep_tree_on_a_small_stack(self):
        # The scans before and after the run walk the tree recursively, as
        # deep as a path can go (about 2,000 levels of a/). Each level's
        # frame held a PATH_MAX buffer: near 1,900 levels 8 MiB of stack ran
        # out and the launcher died of SIGSEGV, as it did with 600 levels on
        # 1 MiB. The frames are about 500 bytes now.
        deep = "src/" + "a/" * 600
        os.makedirs(self.p(deep))
        pol = self.ws.policy(self.policy())

        def run(script):
            return self.ws.run(["-c", 'ulimit -s 1024 && exec "$0" "$@"', PALDRON, "exec",
                                "--policy", pol, "--", "sh", "-c", script], prog="/bin/sh")

        self.assertRun(run("true"), 0, absent=["paldron: deny", "Segmentation"])
        r = run("%s open-write %s.env" % (self.static, deep))
        self.assertIn("0 0", r.out, repr(r))
        self.assertRun(r, 2, "paldron: deny: run produced src/a/a/a/a/")

if __name__ == "__main__":
    main()
