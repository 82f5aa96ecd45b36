"""Workloads: everyday git, with the repository at the workspace root. Each
job runs bare and under `paldron exec` (workload.py); commit dates are fixed
by the job, so both runs make the same objects."""

from workload import PRELUDE, WorkloadTest, main

# git's index holds stat data (times, inodes): its content differs run to run
GIT_VOLATILE = ("*.git/index", "*.git/worktrees/*/index")
GIT = ["git", "mkdir", "cat"]


class GitWorkload(WorkloadTest):
    def upstream(self):
        """An existing repository in the workspace (its config and hooks are
        protected during the run) to clone from."""
        self.ws.mkdir("vendor/upstream")
        self.as_user(["sh", "-c", PRELUDE + "git init -q -b main\n"
                      "echo 'upstream' > README\ngit add README\n"
                      "git commit -q -m 'upstream: first'\n"],
                     cwd=self.p("vendor/upstream"))

    def test_init_commit_branch_rebase(self):
        self.files({"a.txt": "one\n", "src/main.c": "int main(void) { return 0; }\n",
                    ".gitignore": "build/\n"})
        self.job("git init -q -b main\n"
                 "git add -A\n"
                 "git commit -q -m first\n"
                 "git checkout -q -b topic\n"
                 "echo two >> a.txt\n"
                 "git commit -q -am 'topic: two'\n"
                 "git checkout -q main\n"
                 "echo other > b.txt\n"
                 "git add b.txt\n"
                 "git commit -q -m 'main: b'\n"
                 "git checkout -q topic\n"
                 "git rebase -q main\n"
                 "git checkout -q main\n"
                 "git merge -q --ff-only topic\n"
                 "git mv b.txt c.txt\n"
                 "git rm -q --cached src/main.c\n"
                 "git commit -q -m 'rename and untrack'\n"
                 "git tag v1\n"
                 "git branch -D topic > /dev/null\n"
                 "git log --format='%H %s' > log.txt\n"
                 "git status --porcelain > status.txt\n"
                 "git fsck --no-progress 2> fsck.txt\n",
                 GIT, volatile=GIT_VOLATILE)

    def test_stash(self):
        self.files({"a.txt": "one\n"})
        self.job("git init -q -b main\n"
                 "git add a.txt\n"
                 "git commit -q -m first\n"
                 "echo wip >> a.txt\n"
                 "echo new > untracked.txt\n"
                 "git stash push -q -u -m 'work in progress'\n"
                 "git stash list > stash-list.txt\n"
                 "cat a.txt > after-stash.txt\n"
                 "git stash pop -q\n"
                 "git diff > pop.diff\n",
                 GIT, volatile=GIT_VOLATILE)

    def test_worktree(self):
        self.files({"a.txt": "one\n"})
        self.job("git init -q -b main\n"
                 "git add a.txt\n"
                 "git commit -q -m first\n"
                 "git worktree add -q -b feature wt/feature\n"
                 "echo feature > wt/feature/f.txt\n"
                 "git -C wt/feature add f.txt\n"
                 "git -C wt/feature commit -q -m feature\n"
                 "git worktree list --porcelain > worktrees.txt\n"
                 "git worktree add -q --detach wt/tmp main\n"
                 "git worktree remove wt/tmp\n"
                 "git log --all --format='%H %s' > log.txt\n",
                 GIT, volatile=GIT_VOLATILE)

    def test_clone_local(self):
        self.upstream()
        self.job("git clone -q vendor/upstream clone\n"
                 "git clone -q --no-local vendor/upstream clone2\n"
                 "git clone -q --bare vendor/upstream bare.git\n"
                 "cd clone\n"
                 "echo mine > mine.txt\n"
                 "git add mine.txt\n"
                 "git commit -q -m mine\n"
                 "git push -q origin HEAD:refs/heads/from-clone 2> ../push.txt\n"
                 "git fetch -q origin\n"
                 "git log --all --format='%H %s' > ../log.txt\n",
                 # a local clone and push start git's helpers from git's exec path
                 # (a copy of git here, not the file PATH finds)
                 GIT + ["/usr/lib/git-core/git-upload-pack", "/usr/lib/git-core/git-receive-pack"],
                 volatile=GIT_VOLATILE + ("clone2/.git/objects/pack/*",))


if __name__ == "__main__":
    main()
