"""go under allow_binaries, as the unprivileged test user with every layer on:
go test and go run build a binary in the go work directory ($GOTMPDIR, set by
the launcher to <temp home>/go-tmp) and start it, so that directory is the
go driver's helper tree (policy/gate_exec.h, rule g). go build, go vet, go test
and go run must pass with no deny; a program the run places in the work
directory and starts from anything but go (sh here) stays denied by the live
gate."""

import os
import shutil
import subprocess

from harness import main, skip
from test_exec_result import ExecBase, example_policy

GO_MOD = "module example.com/hello\n\ngo 1.19\n"
MAIN_GO = ('package main\n\nimport "fmt"\n\n'
           'func Greeting() string { return "hello, go" }\n\n'
           "func main() { fmt.Println(Greeting()) }\n")
TEST_GO = ('package main\n\nimport "testing"\n\n'
           "func TestGreeting(t *testing.T) {\n"
           '\tif Greeting() != "hello, go" {\n\t\tt.Fatal(Greeting())\n\t}\n}\n')


class GoExecTest(ExecBase):
    def setUp(self):
        go = shutil.which("go")
        if not go:
            skip(self, "go is not installed")
        super().setUp()
        tooldir = subprocess.run([go, "env", "GOTOOLDIR"], capture_output=True,
                                 text=True).stdout.strip()
        # what the go tool starts besides its work directory: its own tools
        # (compile, link, ... in GOTOOLDIR: not a helper tree, named here)
        # and gcc for cgo (the runtime's net and os/user use it)
        self.binaries = ["sh", "go", "gcc"] + [
            os.path.join(tooldir, t) for t in ("compile", "link", "asm", "vet", "buildid", "cgo")]
        for name, text in (("go.mod", GO_MOD), ("main.go", MAIN_GO), ("main_test.go", TEST_GO)):
            self.ws.write("src/hello/" + name, text)

    def go(self, script, binaries=None):
        return self.exec(["sh", "-c", "cd src/hello && " + script],
                         policy=example_policy(binaries=binaries or self.binaries), timeout=600)

    def test_build_vet_test_and_run(self):
        r = self.go("go build -o hello . && ./hello && go vet ./... && go test -count=1 ./... "
                    "&& go run .", self.binaries + [self.p("src/hello/hello")])
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)", "hello, go\n", "ok  \texample.com/hello",
                       absent=["paldron: deny"])
        self.assertEqual(r.out.count("hello, go\n"), 2, repr(r))

    def test_go_work_directory_is_gotmpdir(self):
        r = self.go('echo "$GOTMPDIR"; go env GOTMPDIR')
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)", "/go-tmp\n", absent=["paldron: deny"])

    def test_program_in_work_directory_started_by_sh_is_denied(self):
        # the run copies a program outside allow_binaries into the go work
        # directory and starts it from sh, not from go: the live gate refuses
        r = self.go('cp /usr/bin/id "$GOTMPDIR/id" && "$GOTMPDIR/id"', self.binaries + ["cp"])
        self.assertRun(r, 2, "paldron: deny: sh exec ", "/go-tmp/id (not in allow_binaries",
                       absent=["uid="])


class GoWorkDirectoryTest(ExecBase):
    """The go work directory is made only where go may start: a policy whose
    allow_binaries names no go gets neither $GOTMPDIR nor the folder (go is
    not needed on the machine for this)."""

    SCRIPT = 'echo "GOTMPDIR=[$GOTMPDIR]"; ls -a "$HOME"'

    def test_no_go_in_allow_binaries_no_work_directory(self):
        r = self.exec(["sh", "-c", self.SCRIPT], policy=example_policy(binaries=["sh", "ls"]))
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)", "GOTMPDIR=[]\n",
                       absent=["go-tmp", "paldron: deny"])

    def test_go_in_allow_binaries_gets_the_work_directory(self):
        for binaries in (["sh", "ls", "go"], ["sh", "ls", "/usr/local/go/bin/go"]):
            r = self.exec(["sh", "-c", self.SCRIPT], policy=example_policy(binaries=binaries))
            self.assertRun(r, 0, "[EXIT CODE] 0 (success)", "/go-tmp]\n", "go-tmp\n",
                           absent=["paldron: deny"])

    def test_a_link_to_go_under_another_name_gets_the_work_directory(self):
        # allow_binaries allows a file under any name: "mygo", a link to a
        # program named go, lets the run start go too
        bindir = os.path.join(self.ws.base, "bin")
        os.makedirs(os.path.join(bindir, "real"))
        shutil.copy("/usr/bin/true", os.path.join(bindir, "real", "go"))
        os.symlink(os.path.join(bindir, "real", "go"), os.path.join(bindir, "mygo"))
        env = {"PATH": bindir + ":/usr/bin:/bin"}
        r = self.exec(["sh", "-c", self.SCRIPT], policy=example_policy(binaries=["sh", "ls", "mygo"]),
                      env=env)
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)", "/go-tmp]\n", "go-tmp\n",
                       absent=["paldron: deny"])

    def test_open_allow_binaries_gets_the_work_directory(self):
        r = self.exec(["sh", "-c", self.SCRIPT], policy=example_policy(binaries=[]))
        self.assertRun(r, 0, "[EXIT CODE] 0 (success)", "/go-tmp]\n", "go-tmp\n",
                       absent=["paldron: deny"])


if __name__ == "__main__":
    main()
