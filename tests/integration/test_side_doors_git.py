"""Issue 10, item 8: git's own programs.

`git init` and `git clone` work anywhere in the workspace (its root too); a
repository that exists when the run starts keeps its config and hooks
unwritable live (nested repositories and submodules included); and after
every run, every repository in the writable roots is checked: a config
entry that makes git run a program, or an executable hook that is not a
*.sample, that the run added or changed denies the run and names the file
and the key. Real git, real runs as the unprivileged test user."""

import os
import shutil
import subprocess

from harness import main, skip
from test_exec_result import ExecBase, example_policy

GIT = shutil.which("git")
ID = ["-c", "user.name=t", "-c", "user.email=t@example.com"]


def policy(paths=(".",)):
    # allow_binaries empty (any program): git's helpers are not this test's
    # subject; the paths are
    return example_policy(binaries=(), allow_paths=list(paths))


class GitBase(ExecBase):
    def setUp(self):
        super().setUp()
        if not GIT:
            skip(self, "git is not installed")

    def git(self, *args, cwd=None):
        """Run git as root to lay out a repository before a run."""
        # root, in a tree the test user owns: git's ownership check would refuse
        subprocess.run([GIT, "-c", "safe.directory=*"] + list(args), cwd=cwd or self.ws.path,
                       check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.ws._own()

    def sh(self, script, paths=(".",)):
        return self.exec(["sh", "-c", script], policy=policy(paths))

    def python(self, code, paths=(".",)):
        return self.exec(["python3", "-c", code], policy=policy(paths))


class InitCloneTest(GitBase):
    def test_init_at_the_root_then_commit(self):
        r = self.exec(["git", "init", "-q"], policy=policy())
        self.assertRun(r, 0, absent=("deny",))
        self.assertTrue(self.ws.exists(".git/config"))
        self.assertTrue(self.ws.exists(".git/hooks/pre-commit.sample"))
        r = self.sh("echo hi > a.txt && git add a.txt && git %s commit -q -m one && git log "
                    "--oneline" % " ".join(ID))
        self.assertRun(r, 0, "one", absent=("deny",))

    def test_init_without_allow_paths(self):
        r = self.exec(["git", "init", "-q"], policy=example_policy(binaries=()).replace(
            'allow_paths = ["src/"]', "allow_paths = []"))
        self.assertRun(r, 0, absent=("deny",))

    def test_init_and_commit_in_src(self):
        r = self.sh("git init -q src/r && cd src/r && echo hi > a.txt && git add a.txt && "
                    "git %s commit -q -m one" % " ".join(ID), paths=["src/"])
        self.assertRun(r, 0, absent=("deny",))
        self.assertTrue(self.ws.exists("src/r/.git/config"))

    def test_clone_of_a_local_repository(self):
        self.git("init", "-q", "src/origin")
        self.ws.write("src/origin/a.txt", "hi\n")
        self.git("add", "a.txt", cwd=self.p("src/origin"))
        self.git(*ID, "commit", "-q", "-m", "one", cwd=self.p("src/origin"))
        # an identity: without one git looks the host name up for the
        # reflog, and the network is off
        # (in sh -c: the argv gate takes user.name=t for a path)
        r = self.sh("git %s clone -q src/origin copy" % " ".join(ID))
        self.assertRun(r, 0, absent=("deny",))
        self.assertEqual(self.ws.read("copy/a.txt"), "hi\n")
        r = self.sh("git %s clone -q src/origin src/copy" % " ".join(ID), paths=["src/"])
        self.assertRun(r, 0, absent=("deny",))
        self.assertEqual(self.ws.read("src/copy/a.txt"), "hi\n")


class PostRunCheckTest(GitBase):
    def test_fsmonitor_in_a_new_submodule_gitdir(self):
        self.git("init", "-q")
        r = self.sh("git init -q --bare .git/modules/sub && "
                    "git config -f .git/modules/sub/config core.fsmonitor 'touch /tmp/x'")
        self.assertRun(r, 2, "paldron: deny: run set core.fsmonitor in .git/modules/sub/config "
                       "(git runs it as a program)")

    def test_fsmonitor_in_a_new_nested_repository(self):
        # python writes the file: no git, no gated path the live gate refuses
        r = self.python("import subprocess\n"
                        "subprocess.run(['git', 'init', '-q', 'src/n'], check=True)\n"
                        "open('src/n/.git/config', 'a').write('[core]\\n\\tfsmonitor = "
                        "\"touch pwned\"\\n')\n")
        self.assertRun(r, 2, "paldron: deny: run set core.fsmonitor in src/n/.git/config "
                       "(git runs it as a program)")

    def test_executable_hook_in_a_new_nested_repository(self):
        r = self.sh("git init -q src/h && printf '#!/bin/sh\\ntouch pwned\\n' > "
                    "src/h/.git/hooks/pre-commit && chmod +x src/h/.git/hooks/pre-commit")
        self.assertRun(r, 2, "paldron: deny: run added hook src/h/.git/hooks/pre-commit "
                       "(git runs it as a program)")

    def test_include_path(self):
        r = self.sh("git init -q src/i && git -C src/i config include.path ../../extra.cfg")
        self.assertRun(r, 2, "paldron: deny: run set include.path in src/i/.git/config")

    def test_bang_alias(self):
        r = self.python("import subprocess\n"
                        "subprocess.run(['git', 'init', '-q', 'src/a'], check=True)\n"
                        "open('src/a/.git/config', 'a').write('[alias]\\n\\tst = !touch pwned\\n')\n")
        self.assertRun(r, 2, "paldron: deny: run set alias.st in src/a/.git/config "
                       "(git runs it as a program)")

    def test_hook_in_an_existing_hooks_path(self):
        # husky's layout: the repository's config names .husky; the live gate
        # protects the config, the hooks live in the working tree
        self.git("init", "-q", "src/k")
        self.git("config", "core.hooksPath", ".husky", cwd=self.p("src/k"))
        self.ws.mkdir("src/k/.husky")
        r = self.sh("printf '#!/bin/sh\\ntouch pwned\\n' > src/k/.husky/pre-commit && "
                    "chmod +x src/k/.husky/pre-commit")
        self.assertRun(r, 2, "paldron: deny: run added hook src/k/.husky/pre-commit "
                       "(git runs it as a program)")

    def test_a_fifo_config_neither_stalls_nor_passes(self):
        r = self.sh("git init -q src/f && rm src/f/.git/config && mkfifo src/f/.git/config")
        self.assertRun(r, 2, "paldron: deny: run left src/f/.git/config unreadable to the git "
                       "check (not a regular file)")

    def test_two_keys_two_findings(self):
        r = self.sh("git init -q src/t && git -C src/t config core.pager 'sh -c x' && "
                    "git -C src/t config credential.helper '!x'")
        self.assertRun(r, 2, "run set core.pager in src/t/.git/config",
                       "run set credential.helper in src/t/.git/config")

    def test_plain_keys_and_sample_hooks_pass(self):
        r = self.sh("git init -q src/p && git -C src/p config alias.st status && "
                    "git -C src/p config filter.x.required true")
        self.assertRun(r, 0, absent=("deny",))

    def test_existing_entries_are_not_reported(self):
        self.git("init", "-q", "src/e")
        self.git("config", "core.editor", "vi", cwd=self.p("src/e"))
        r = self.sh("git -C src/e status --short")
        self.assertRun(r, 0, absent=("deny",))


class ExistingRepositoryTest(GitBase):
    def assertUnwritable(self, rel):
        before = self.ws.read(rel)
        r = self.python("open(%r, 'a').write('[core]\\n\\tfsmonitor = touch pwned\\n')" % rel)
        self.assertRun(r, 2, "paldron: deny:", rel, "(protected")
        self.assertEqual(self.ws.read(rel), before)

    def test_root_config_stays_unwritable(self):
        self.git("init", "-q")
        self.assertUnwritable(".git/config")

    def test_nested_config_stays_unwritable(self):
        self.git("init", "-q", "src/e")
        self.assertUnwritable("src/e/.git/config")

    def test_submodule_config_stays_unwritable(self):
        self.git("init", "-q")
        self.git("init", "-q", "--bare", ".git/modules/sub")
        self.assertUnwritable(".git/modules/sub/config")

    def test_nested_hook_stays_unwritable(self):
        self.git("init", "-q", "src/e")
        r = self.sh("printf '#!/bin/sh\\n' > src/e/.git/hooks/post-checkout")
        self.assertRun(r, 2, "src/e/.git/hooks/post-checkout", "(protected")
        self.assertFalse(self.ws.exists("src/e/.git/hooks/post-checkout"))


if __name__ == "__main__":
    main()
