"""Workloads: editing, archiving and copying files, links, man, sqlite3, the
environment. Each job runs bare and under `paldron exec` (workload.py)."""

import os
import subprocess

from workload import WorkloadTest, main

TEXT = "alpha foo\nbeta foo bar\ngamma\n"


class FilesWorkload(WorkloadTest):
    def tree(self):
        """A tree holding the kinds of links a real project has: relative,
        absolute into the system (a venv's python), to a directory, dangling."""
        self.files({"tree/a.txt": TEXT, "tree/sub/b.txt": "bee\n",
                    "tree/run.sh": ("#!/bin/sh\necho run\n", 0o755)})
        t = self.p("tree")
        os.symlink("a.txt", os.path.join(t, "rel-link"))
        os.symlink("/usr/bin/python3", os.path.join(t, "python3"))
        os.symlink("sub", os.path.join(t, "dir-link"))
        os.symlink("missing-target", os.path.join(t, "dangling"))
        os.symlink("../a.txt", os.path.join(t, "sub", "up-link"))
        self.ws._own()

    def test_sed_in_place(self):
        self.files({"a.txt": TEXT, "b.txt": TEXT})
        self.job("sed -i 's/foo/bar/g' a.txt\n"
                 "sed -i.bak -e '1d' b.txt\n", ["sed"])

    def test_perl_in_place(self):
        self.need("perl")
        self.files({"a.txt": TEXT, "b.txt": TEXT})
        self.job("perl -pi -e 's/foo/baz/g' a.txt\n"
                 "perl -pi.orig -e 's/^beta/BETA/' b.txt\n", ["perl"])

    def test_ed(self):
        self.need("ed")
        self.files({"a.txt": TEXT})
        self.job("printf '2d\\n$a\\nadded by ed\\n.\\nw\\nq\\n' | ed -s a.txt\n"
                 "printf 'a\\nnew file\\n.\\nw new.txt\\nq\\n' | ed -s\n", ["ed"])

    def test_patch(self):
        self.need("patch")
        self.files({"src/a.txt": TEXT, "src/b.txt": "one\ntwo\n",
                    "fix.diff": "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,3 +1,3 @@\n"
                                " alpha foo\n-beta foo bar\n+beta patched\n gamma\n"
                                "--- a/src/b.txt\n+++ b/src/b.txt\n@@ -1,2 +1,3 @@\n"
                                " one\n two\n+three\n"
                                "--- /dev/null\n+++ b/src/c.txt\n@@ -0,0 +1 @@\n+created\n"})
        self.job("patch -p1 -b < fix.diff\n"
                 "patch -p1 -R --dry-run < fix.diff > dry.txt\n", ["patch"])

    def test_tar_with_links(self):
        self.tree()
        self.job("tar -cf t.tar tree\n"
                 "tar -czf t.tgz tree\n"
                 "mkdir x y\n"
                 "tar -xf t.tar -C x\n"
                 "tar -xzf t.tgz -C y\n"
                 "tar -tvf t.tar > list.txt\n"
                 "tar -xf t.tar -C x\n",          # again, over the existing links
                 ["tar", "mkdir", "gzip"])

    def test_zip_with_links(self):
        self.need("zip", "unzip")
        self.tree()
        self.job("zip -X -q -r -y z.zip tree\n"
                 "mkdir out\n"
                 "cd out\n"
                 "unzip -q ../z.zip\n"
                 "unzip -q -o ../z.zip\n"          # again, overwriting
                 "unzip -l ../z.zip | sed 's/  *[0-9-]* [0-9:]* / /' > ../list.txt\n",
                 ["zip", "unzip", "mkdir", "sed"])

    def test_cp_a(self):
        self.tree()
        self.job("cp -a tree copy\n"
                 "cp -a tree copy\n"            # into the existing copy: copy/tree
                 "cp -a tree/. copy\n",         # over existing links
                 ["cp"])

    def test_rsync_a(self):
        self.need("rsync")
        self.tree()
        self.job("rsync -a tree/ mirror/\n"
                 "echo changed > tree/a.txt\n"
                 "rsync -a --delete tree/ mirror/\n", ["rsync"])

    def test_ln_sf_and_mv_of_links(self):
        self.files({"bin/.keep": ""})
        os.symlink("/usr/bin/python3", self.p("bin/python"))
        self.ws._own()
        self.job("ln -sf /usr/bin/python3 bin/python\n"      # replaces an existing link
                 "ln -sf python bin/py\n"
                 "ln -sfn ../bin bin/self\n"
                 "ln -sfn ../bin bin/self\n"
                 "ln -s /nonexistent/target bin/dangling\n"
                 "mv bin/py bin/py2\n"                       # mv of a link
                 "mv bin/dangling bin/dangling2\n"
                 "ln bin/.keep bin/hard\n", ["ln", "mv"])

    def test_rm_rf_venv_and_link_loop(self):
        subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", self.p(".venv")],
                       check=True)
        os.symlink("loop-b", self.p("loop-a"))
        os.symlink("loop-a", self.p("loop-b"))
        os.symlink("/etc/passwd", self.p("abs-link"))
        self.ws._own()
        self.assertTrue(os.path.islink(self.p(".venv/bin/python3")))
        self.job("rm -rf .venv\n"
                 "rm -f loop-a\n"
                 "rm loop-b abs-link\n", ["rm"])

    def test_mkdir_existing(self):
        self.files({"build/.keep": ""})
        self.job('mkdir -p "$PWD/build/out" "$PWD"\n'
                 "mkdir -p /tmp /tmp/x\n"
                 "install -d build build/lib\n"
                 "mkdir build 2>err.txt || echo EEXIST >> err.txt\n",
                 ["mkdir", "install"])

    def test_man_with_pager_cat(self):
        self.need("man")
        self.files({"doc/tool.1": ".TH TOOL 1 2024-01-01 tool\n.SH NAME\ntool \\- does things\n"
                    ".SH SYNOPSIS\n.B tool\n[\\fIoptions\\fR]\n.SH DESCRIPTION\n"
                    "It does \\fBthings\\fR.\n.TP\n.B \\-v\nverbose\n"})
        has_ls_page = os.path.exists("/usr/share/man/man1/ls.1.gz")
        script = "man -l doc/tool.1 > tool.txt\n"
        if has_ls_page:
            script += "man ls > ls.txt\nman 1 true > true.txt\n"
        self.job(script, ["man", "preconv", "tbl", "nroff", "groff", "troff", "grotty", "cat",
                          "/usr/lib/man-db/manconv", "col", "locale", "zsoelim"],
                 env={"MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80"})

    def test_sqlite3(self):
        self.need("sqlite3")
        self.files({"schema.sql": "create table t(id integer primary key, name text);\n"
                    "insert into t(name) values ('a'), ('b'), ('c');\n"
                    "create index t_name on t(name);\n"})
        self.job("sqlite3 db.sqlite < schema.sql\n"
                 "sqlite3 db.sqlite \"update t set name = upper(name); vacuum;\"\n"
                 "sqlite3 -batch db.sqlite 'select id, name from t order by id' > rows.txt\n"
                 "sqlite3 wal.sqlite 'pragma journal_mode=wal; create table x(a); "
                 "insert into x values (1);' > wal.txt\n",
                 ["sqlite3"])

    def test_environment_passes(self):
        """Ordinary variables reach the command (issue 11, item 8)."""
        self.files({"lib/mymod.py": "VALUE = 'from PYTHONPATH'\n"})
        self.job("printf 'CI=%s\\nNODE_ENV=%s\\nPYTHONPATH=%s\\nMY_SETTING=%s\\nEDITOR=%s\\n' "
                 "\"$CI\" \"$NODE_ENV\" \"$PYTHONPATH\" \"$MY_SETTING\" \"$EDITOR\" > env.txt\n"
                 "python3 -c 'import mymod; print(mymod.VALUE)' > py.txt\n",
                 ["python3"],
                 env={"CI": "true", "NODE_ENV": "production", "PYTHONPATH": "lib",
                      "MY_SETTING": "42", "EDITOR": "true"})

    def test_python_flags_and_stdlib_caches(self):
        """-I and -O find the stdlib's caches unwritable (file permissions):
        as bare, nothing happens (issue 11, items 5 and 10)."""
        self.job("python3 -I -c 'import json, email.mime.text, xml.dom.minidom; print(1)' > i.txt\n"
                 "python3 -O -c 'import json, http.client, sqlite3; print(2)' > o.txt\n"
                 "python3 -c 'import compileall' > n.txt\n", ["python3"])

    def test_shell_command_starting_with_an_absolute_program(self):
        """`sh -c "/usr/bin/python3 ..."`: the command string names a program,
        it is not a path argument."""
        self.job("/usr/bin/python3 -c 'open(\"out.txt\", \"w\").write(\"ran\\n\")'\n",
                 ["python3"], prelude=False)

    def test_child_sees_only_its_own_fds(self):
        """A child started with close_fds sees fds 0-2 and what it was passed,
        nothing of the sandbox's."""
        self.files({"fds.py": "import os, subprocess, sys\n"
                    "r, w = os.pipe()\n"
                    "out = subprocess.run([sys.executable, '-c', 'import os; "
                    "print(sorted(int(f) for f in os.listdir(\"/proc/self/fd\")))'],\n"
                    "                     pass_fds=[w], capture_output=True, text=True).stdout\n"
                    "open('fds.txt', 'w').write(out.replace(str(w), 'W'))\n"})
        self.job("python3 fds.py\n", ["python3"])


if __name__ == "__main__":
    main()
