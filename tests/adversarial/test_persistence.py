"""Adversarial: persistence, something planted for later, outside the run:
git (.git/config core.hooksPath / core.fsmonitor, .git/hooks, .gitmodules,
.git/commondir, the .git folder itself), the real home's ~/.bashrc,
~/.profile, ~/.config/autostart, systemd user units and authorized_keys,
crontab, the agents' and editors' configuration, the policy file in use.
Besides the snapshot, every git case then runs the user's own `git status`
and `git commit` bare: nothing planted may run (no PWNED marker)."""

import os
import shutil
import subprocess

from adv_base import RUN_PATH, AdvCase, main, skip


class PersistenceTest(AdvCase):
    def setUp(self):
        super().setUp()
        self.pwned = os.path.join(self.outside, "PWNED")
        self.evil = "touch %s; false" % self.pwned

    def git_bin(self):
        git = shutil.which("git", path=RUN_PATH)
        if git is None:
            skip(self, "git is not installed")
        return git

    def assertGitRunsNothing(self):
        """The user's next git commands, bare, run nothing the run planted."""
        git = self.git_bin()
        env = {"PATH": RUN_PATH, "HOME": self.home, "GIT_CONFIG_NOSYSTEM": "1"}
        for args in (["status"], ["diff", "HEAD"], ["log", "-1"],
                     ["commit", "-q", "--allow-empty", "-m", "after the run"]):
            subprocess.run(self.as_user([git] + args), cwd=self.wsp, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        self.assertFalse(os.path.exists(self.pwned),
                         "the user's own git ran what the run planted")

    # --- git ---------------------------------------------------------------------
    def test_git_config_hookspath_and_fsmonitor(self):
        self.git_bin()
        r = self.sh("git config core.hooksPath src/hooks; git config core.fsmonitor %r; "
                    "git config --local alias.st '!%s'; git config --worktree core.pager %r; "
                    "git -c core.fsmonitor=%r status >/dev/null; exit 1"
                    % (self.evil, self.evil, self.evil, self.evil), binaries=["git"])
        self.assertWorld(r, codes=(2,))
        self.assertGitRunsNothing()

    def test_git_config_written_directly(self):
        ps = self.probes["probe_static"]
        line = "[core]\\n\\tfsmonitor = %s\\n" % self.evil
        r = self.py("attempt('append', lambda: open('.git/config', 'a').write(%r))\n"
                    "attempt('raw append', raw_write, '.git/config', %r.encode(), os.O_WRONLY | os.O_APPEND)\n"
                    "attempt('replace', lambda: os.replace('src/main.py', '.git/config'))\n"
                    "attempt('raw unlink', sc, 'unlinkat', AT_FDCWD, b'.git/config', 0)\n"
                    "finish()\n" % (line, line), binaries=["git"])
        self.assertWorld(r, codes=(1, 2))
        self.assertAllRefused(r)
        r = self.sh("chk %s open-append .git/config || chk %s write-text .git/config x || "
                    "chk %s rename .git/config src/c" % (ps, ps, ps), binaries=["git"])
        self.assertWorld(r, codes=(1,))
        self.assertGitRunsNothing()

    def test_git_hooks(self):
        ps = self.probes["probe_static"]
        hook = "#!/bin/sh\\n%s\\n" % self.evil
        r = self.sh("printf '%s' > .git/hooks/pre-commit; printf '%s' > .git/hooks/post-checkout; "
                    "chmod +x .git/hooks/post-checkout; cp src/main.py .git/hooks/commit-msg; "
                    "mkdir .git/hooks/x; ln -s /usr/bin/true .git/hooks/pre-push; "
                    "chk %s write-text .git/hooks/prepare-commit-msg x || "
                    "chk %s open-append .git/hooks/pre-commit || chk %s rename .git/hooks src/h || "
                    "chk %s chmod .git/hooks/pre-commit 777"
                    % (hook, hook, ps, ps, ps, ps), binaries=["git", "chmod", "cp", "mkdir", "ln"])
        self.assertWorld(r, codes=(2,))
        self.assertGitRunsNothing()

    def test_gitmodules(self):
        r = self.sh("printf '[submodule \"x\"]\\n\\tpath = x\\n\\turl = ext::sh -c %s\\n"
                    "\\tupdate = !%s\\n' >> .gitmodules; "
                    "git config -f .gitmodules submodule.lib.update '!%s'"
                    % ("touch% " + self.pwned, self.evil, self.evil), binaries=["git"],
                    allow_paths=[])
        self.assertWorld(r, codes=(2,))
        self.assertGitRunsNothing()

    def commondir_attack(self, policy, root):
        """Point git's common directory (its config) at a copy the run makes."""
        return self.sh(
            "mkdir -p {r}/cd && cp -r .git/objects .git/refs {r}/cd/ && "
            "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = \"{e}\"\\n' "
            "> {r}/cd/config && echo ../{r}/cd > .git/commondir; "
            "test -e .git/commondir || chk {ps} write-text .git/commondir ../{r}/cd"
            .format(r=root, e=self.evil, ps=self.probes["probe_static"]), policy=policy)

    def test_git_commondir_with_git_allowed(self):
        # git allowed: its repository is a writable root (docs/policy.md)
        self.git_bin()
        r = self.commondir_attack(self.policy(binaries=["git", "cp", "mkdir", "printf", "test"]),
                                  "src")
        self.assertWorld(r, codes=(2,))
        self.assertGitRunsNothing()

    def test_git_commondir_in_a_writable_workspace(self):
        self.git_bin()
        r = self.commondir_attack(self.policy(binaries=["cp", "mkdir", "printf", "test"],
                                              allow_paths=[]), "tmp")
        self.assertWorld(r, codes=(2,), changed_ok=["ws/tmp", "changed ws (nlink, mtime, ctime)"])
        self.assertGitRunsNothing()

    def test_git_folder_replaced(self):
        # the whole workspace writable: move the repository away and put a
        # gitdir file in its place, naming a repository the run made
        self.git_bin()
        r = self.sh("git init -q --bare evil && git -C evil config core.bare false && "
                    "git -C evil config core.fsmonitor %r && cp -r .git/objects .git/refs evil/; "
                    "mv .git old.git && printf 'gitdir: evil\\n' > .git"
                    % self.evil, binaries=["git", "mv", "printf", "cp"], allow_paths=[])
        self.assertWorld(r, codes=(2,), changed_ok=["ws/evil"])
        self.assertGitRunsNothing()

    def test_git_files_that_do_not_exist_yet(self):
        # protected names that do not exist when the run starts, written by
        # programs the live gate cannot see (git allowed: .git is writable)
        ps = self.probes["probe_static"]
        r = self.sh("chk %s write-text .git/config.worktree '[core]' || "
                    "chk %s write-text .git/hooks/post-merge x || "
                    "chk %s mkdir .git/hooks2" % (ps, ps, ps), binaries=["git"])
        self.assertWorld(r, codes=(1, 2), changed_ok=["ws/.git/hooks2"])
        self.assertGitRunsNothing()

    def test_nested_repository_created_in_the_run(self):
        # allowed to exist (git init works), but its hooks and program-running
        # config deny the run; the workspace's own repository is untouched
        r = self.sh("git init -q src/r && cd src/r && git config core.fsmonitor %r && "
                    "printf '#!/bin/sh\\n%s\\n' > .git/hooks/pre-commit && "
                    "chmod +x .git/hooks/pre-commit" % (self.evil, self.evil),
                    binaries=["git", "printf", "chmod"])
        self.assertWorld(r, codes=(2,))
        self.assertIn("paldron: deny: run set core.fsmonitor in src/r/.git/config", r.err)
        self.assertIn("paldron: deny: run added hook src/r/.git/hooks/pre-commit", r.err)
        self.assertGitRunsNothing()

    # --- the real home --------------------------------------------------------------
    def test_shell_startup_files_of_the_real_home(self):
        ps = self.probes["probe_static"]
        rc, prof = os.path.join(self.home, ".bashrc"), os.path.join(self.home, ".profile")
        r = self.sh("echo %r >> %s; echo %r >> %s; echo %r >> ~/.bashrc; "
                    "chk %s open-append %s || chk %s write-text %s x || "
                    "chk %s write-text %s/.bash_profile x || chk %s write-text %s/.zshenv x || "
                    "grep -q PWNED %s"
                    % (self.evil, rc, self.evil, prof, self.evil, ps, rc, ps, prof, ps, self.home,
                       ps, self.home, rc), binaries=["grep"])
        self.assertWorld(r, codes=(1,))
        r = self.py("for f in (%r, %r, %r):\n"
                    "    attempt(f, lambda: open(f, 'a').write('PWNED'))\n"
                    "    attempt('raw ' + f, raw_write, f, b'PWNED', os.O_WRONLY | os.O_APPEND)\n"
                    "finish()\n" % (rc, prof, os.path.join(self.home, ".bash_login")))
        self.assertWorld(r, codes=(1,))
        self.assertAllRefused(r)

    def test_autostart_systemd_and_authorized_keys(self):
        h = self.home
        targets = [h + "/.config/autostart/evil.desktop", h + "/.config/systemd/user/evil.service",
                   h + "/.ssh/authorized_keys", h + "/.local/bin/git", h + "/.config/git/config",
                   h + "/.gitconfig"]
        body = "".join("attempt(%r, lambda: (os.makedirs(os.path.dirname(%r), exist_ok=True),"
                       " open(%r, 'w').write('PWNED')))\n"
                       "attempt('raw %s', raw_write, %r, b'PWNED')\n" % (t, t, t, t, t)
                       for t in targets)
        r = self.py(body + "finish()\n")
        # ~/.ssh/authorized_keys is also a secret name: that one denies
        self.assertWorld(r, codes=(2,))
        self.assertAllRefused(r)
        # git config --global writes the run's temp home, not the real one
        r = self.sh("git config --global core.fsmonitor %r; git config --global --list" % self.evil,
                    binaries=["git"])
        self.assertWorld(r, codes=(0, 1, 2))
        self.assertGitRunsNothing()

    def test_crontab_command(self):
        crontab = shutil.which("crontab", path=RUN_PATH)
        if crontab is None:
            skip(self, "crontab is not installed")
        r = self.sh("echo '* * * * * %s' | crontab -; crontab -l" % self.evil,
                    binaries=["crontab"])
        self.assertWorld(r, codes=(1, 2))
        listed = subprocess.run([crontab, "-l", "-u", self.user.pw_name], capture_output=True,
                                text=True)
        self.assertNotIn(self.pwned, listed.stdout, "the crontab entry persisted")

    def test_cron_spool_and_system_folders(self):
        ps = self.probes["probe_static"]
        user = self.user.pw_name
        targets = ["/var/spool/cron/crontabs/" + user, "/var/spool/cron/" + user,
                   "/etc/cron.d/pd-adv", "/etc/profile.d/pd-adv.sh", "/var/tmp/pd-adv-%s" % user]
        r = self.sh(" || ".join("chk %s write-text %s x" % (ps, t) for t in targets))
        self.assertWorld(r, codes=(1,))
        for t in targets:
            self.assertAbsent(t)

    def test_other_workspaces_cache_folders(self):
        # the run may write its own cache folder, never another workspace's
        # (a later run there would use what it plants) nor the folder above
        other = os.path.join(self.cache, "paldron", "other-0123456789abcdef")
        os.makedirs(os.path.join(other, "go-build"))
        with open(os.path.join(other, "go-build", "entry"), "w") as f:
            f.write("clean\n")
        self.own()
        top = os.path.join(self.cache, "paldron")
        body = ("for t in (%r, %r, %r):\n"
                "    attempt(t, lambda: open(t, 'w').write('PWNED'))\n"
                "    attempt('raw ' + t, raw_write, t, b'PWNED')\n"
                "attempt('mkdir', os.mkdir, %r)\n"
                "attempt('rename', os.rename, %r, %r)\n"
                "finish()\n" % (os.path.join(other, "go-build", "entry"),
                                 os.path.join(other, "planted"), os.path.join(top, "planted"),
                                 os.path.join(top, "new-ws"), other, other + "-x"))
        r = self.py(body)
        self.assertWorld(r, codes=(1, 2))
        self.assertAllRefused(r)
        with open(os.path.join(other, "go-build", "entry")) as f:
            self.assertEqual(f.read(), "clean\n")
        self.assertEqual(sorted(os.listdir(other)), ["go-build"])

    # --- configuration the agents and editors run ---------------------------------------
    def test_agent_and_editor_configuration(self):
        files = [".claude/settings.json", ".vscode/tasks.json", ".mcp.json", ".codex/config.toml",
                 ".idea/workspace.xml"]
        body = "".join("attempt(%r, lambda: (os.makedirs(os.path.dirname(%r) or '.', exist_ok=True),"
                       " open(%r, 'w').write('{}')))\n" % (f, f, f) for f in files)
        r = self.py(body + "finish()\n", allow_paths=[])
        self.assertWorld(r, codes=(2,), changed_ok=["changed ws (", "ws/.claude",
                                                    "ws/.vscode", "ws/.codex", "ws/.idea"])
        for f in files:
            self.assertFalse(os.path.isfile(self.p(f)), "%s was written" % f)

    def test_policy_file_in_use(self):
        # the policy lives in the workspace, which is writable: it stays as it is
        pol = self.p(".paldron.toml")
        text = self.policy(allow_paths=[])
        with open(pol, "w") as f:
            f.write(text)
        self.own()
        ps = self.probes["probe_static"]
        r = self.paldron(["exec", "--policy", pol, "--", "sh", "-c",
                          "echo 'allow_binaries = []' >> .paldron.toml; "
                          "chk() { o=$(\"$@\"); echo \"$o\"; case \"$o\" in \"-1 \"*) return 1;; esac; }; "
                          "chk %s open-append .paldron.toml || chk %s rename .paldron.toml x.toml"
                          % (ps, ps)])
        self.assertWorld(r, codes=(2,))
        with open(pol) as f:
            self.assertEqual(f.read(), text)


if __name__ == "__main__":
    main()
