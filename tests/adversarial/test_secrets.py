"""Adversarial: reading and writing the planted secrets (.env, src/.env.local,
src/deploy.pem, src/keys/id_rsa, src/secrets/token, ~/.ssh/id_rsa of the
fake home, a secret variable of paldron's environment) through python, sh,
coreutils (cat, cp, dd, tee), the static probe and raw system calls."""

from adv_base import AdvCase, main


class SecretsTest(AdvCase):
    # --- reads ---------------------------------------------------------------
    def test_python_reads_env(self):
        r = self.py("print(open('.env').read())\n")
        self.assertWorld(r, codes=(2,))
        self.assertIn("paldron: deny: python3 read .env", r.err)

    def test_sh_builtin_reads_env(self):
        # no program but the shell: a redirection and the read builtin
        r = self.sh('read line < .env && echo "$line"; '
                    'while read l; do echo "$l"; done < src/.env.local; exit 1')
        self.assertWorld(r, codes=(2,))

    def test_cat_reads_every_secret(self):
        r = self.sh("cat .env src/.env.local src/deploy.pem src/keys/id_rsa src/secrets/token "
                    + self.ssh_key)
        self.assertWorld(r, codes=(2,))

    def test_cp_copies_env_into_a_writable_root(self):
        r = self.sh("cp .env src/notes.txt && cp src/deploy.pem src/cert.txt && "
                    "cat src/notes.txt src/cert.txt", binaries=["cp"])
        self.assertWorld(r, codes=(2,))
        self.assertAbsent(self.p("src/notes.txt"), self.p("src/cert.txt"))

    def test_dd_copies_secrets(self):
        r = self.sh("dd if=.env of=src/dd.out status=none; dd if=src/.env.local status=none; "
                    "dd if=src/keys/id_rsa of=src/dd2.out status=none", binaries=["dd"])
        self.assertWorld(r, codes=(2,))

    def test_tee_writes_secrets_out(self):
        r = self.sh("tee src/stolen.txt < .env; echo FAKE=1 | tee src/.env.prod; "
                    "tee -a src/plain.txt < src/secrets/token", binaries=["tee"])
        self.assertWorld(r, codes=(2,))
        self.assertAbsent(self.p("src/.env.prod"))

    def test_static_probe_reads_and_copies(self):
        ps = self.probes["probe_static"]
        r = self.sh("chk %s read-file .env || chk %s read-file src/.env.local || "
                    "chk %s copy src/deploy.pem src/pem.txt || chk %s read-file src/keys/id_rsa || "
                    "chk %s read-file src/secrets/token || chk %s copy %s src/key.txt"
                    % (ps, ps, ps, ps, ps, ps, self.ssh_key))
        # no live gate in a static binary: the kernel refuses, the command fails
        self.assertWorld(r, codes=(1,))

    def test_raw_syscalls_read_secrets(self):
        body = "".join("attempt(%r, raw_read, %r)\n" % (rel, rel) for rel in
                       (".env", "src/.env.local", "src/deploy.pem", "src/keys/id_rsa",
                        "src/secrets/token", self.ssh_key, "src/keys/../../.env",
                        "./src/../.ENV"))
        r = self.py(body + "finish()\n")
        self.assertWorld(r, codes=(1,))
        self.assertAllRefused(r)

    def test_python_reads_pem_in_a_writable_root(self):
        r = self.py("import glob\nfor f in glob.glob('src/*.pem') + glob.glob('src/keys/*'):\n"
                    "    print(open(f).read())\n")
        self.assertWorld(r, codes=(2,))

    def test_ssh_key_of_the_home(self):
        # the real home is not readable at all: Landlock, with the secret rule first
        r = self.py("import os\nprint(open(%r).read())\n" % self.ssh_key)
        self.assertWorld(r, codes=(2,))

    def test_ssh_key_with_the_home_readable(self):
        # read_paths grants the home: only the masks keep ~/.ssh out
        ps = self.probes["probe_static"]
        pol = self.policy(read_paths=[self.home])
        r = self.sh("chk %s read-file %s || chk %s copy %s src/k" % (ps, self.ssh_key, ps,
                                                                   self.ssh_key), policy=pol)
        self.assertWorld(r, codes=(1,))
        r = self.py("attempt('raw', raw_read, %r)\nfinish()\n" % self.ssh_key, policy=pol)
        self.assertWorld(r, codes=(1,))
        self.assertAllRefused(r)
        r = self.py("print(open(%r).read())\n" % self.ssh_key, policy=pol)
        self.assertWorld(r, codes=(2,))

    def test_unmount_the_mask_then_read(self):
        body = ("for p in ('.env', 'src/.env.local', 'src/secrets', %r):\n"
                "    attempt('umount ' + p, sc, 'umount2', p.encode(), 2)\n"
                "attempt('read', raw_read, '.env')\n"
                "attempt('read dir', raw_read, 'src/secrets/token')\n"
                "finish()\n" % self.ssh_key)
        r = self.py(body)
        self.assertWorld(r, codes=(1,))
        self.assertAllRefused(r)

    def test_new_namespaces_to_lift_the_masks(self):
        # a user namespace of its own would give the capabilities to unmount
        # the masks; io_uring would open files past every syscall filter
        body = ("CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x20000\n"
                "attempt('unshare user+mount', lambda: cchk(libc_fn('unshare')(CLONE_NEWUSER | CLONE_NEWNS)))\n"
                "attempt('raw umount', sc, 'umount2', b'.env', 2)\n"
                "attempt('setns', lambda: cchk(libc_fn('setns')(os.open('/proc/1/ns/mnt', os.O_RDONLY), 0)))\n"
                "attempt('io_uring_setup', lambda: sc_nr(425, 8, ctypes.create_string_buffer(120)))\n"
                "attempt('read', raw_read, '.env')\n"
                "finish()\n")
        body = ("def sc_nr(nr, *args):\n"
                "    ctypes.set_errno(0)\n"
                "    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])\n"
                "    return r, (ctypes.get_errno() if r < 0 else 0)\n") + body
        r = self.py(body)
        self.assertWorld(r, codes=(1,))
        self.assertAllRefused(r)

    # --- writes ----------------------------------------------------------------
    def test_overwrite_secrets_from_sh_and_python(self):
        r = self.sh("echo pwned > .env; echo pwned >> src/.env.local; : > src/deploy.pem; "
                    "echo x > src/secrets/token; echo x > src/keys/id_rsa; exit 1")
        self.assertWorld(r, codes=(2,))
        r = self.py("for f in ('.env', 'src/.env.local', 'src/deploy.pem'):\n"
                    "    try:\n        open(f, 'a').write('pwned')\n"
                    "    except OSError as e:\n        print(f, e.errno)\n")
        self.assertWorld(r, codes=(2,))

    def test_static_probe_overwrites_secrets(self):
        ps = self.probes["probe_static"]
        steps = []
        for rel in self.secret_files:
            steps += ["chk %s open-append %s" % (ps, rel), "chk %s truncate %s 0" % (ps, rel),
                      "chk %s write-text %s pwned" % (ps, rel), "chk %s unlink %s" % (ps, rel)]
        r = self.sh(" || ".join(steps))
        self.assertWorld(r, codes=(1,))

    def test_raw_syscalls_overwrite_secrets(self):
        body = ""
        for rel in list(self.secret_files) + [self.ssh_key]:
            body += ("attempt('append %s', raw_write, %r, b'pwned', os.O_WRONLY | os.O_APPEND)\n"
                     "attempt('trunc %s', raw_open, %r, os.O_WRONLY | os.O_TRUNC)\n"
                     "attempt('unlink %s', sc, 'unlinkat', AT_FDCWD, %r.encode(), 0)\n"
                     % (rel, rel, rel, rel, rel, rel))
        r = self.py(body + "finish()\n")
        self.assertWorld(r, codes=(1,))
        self.assertAllRefused(r)

    def test_static_probe_writes_a_new_private_key(self):
        # a new secret-named file the live gate never sees: the post-run scan
        ps = self.probes["probe_static"]
        r = self.sh("chk %s write-text src/new.pem '-----BEGIN PRIVATE KEY-----' && "
                    "chk %s write-text src/.env.stolen X=1" % (ps, ps))
        self.assertWorld(r, codes=(2,))
        self.assertIn("paldron: deny: run produced src/new.pem", r.err)

    # --- the environment -------------------------------------------------------------
    def test_secret_variable_of_the_agent(self):
        # OPENAI_API_KEY is in paldron's environment: not in the command's
        r = self.sh('env; cat /proc/self/environ; printf "%s" "$OPENAI_API_KEY" | grep -q .',
                    binaries=["env", "grep"])
        self.assertWorld(r, codes=(1,))

    def test_launcher_environment_through_proc(self):
        # walk up from the command to the launcher and read every ancestor's
        # environment, command line and memory maps
        body = ("pid = os.getppid()\n"
                "while pid > 1:\n"
                "    for what in ('environ', 'mem', 'maps', 'auxv'):\n"
                "        attempt('%d %s' % (pid, what), lambda p: open(p, 'rb').read(65536),\n"
                "                '/proc/%d/%s' % (pid, what))\n"
                "    attempt('%d raw environ' % pid, raw_read, '/proc/%d/environ' % pid)\n"
                "    pid = int(open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()[1])\n"
                "finish()\n")
        r = self.py(body)
        self.assertWorld(r)


if __name__ == "__main__":
    main()
