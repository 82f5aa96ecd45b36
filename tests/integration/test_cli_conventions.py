"""The CLI conventions of issue 14 (item 7), run on the real binary: --version,
`help [CMD]`, "did you mean" for commands, options and policy keys,
`explain --json`, and the man page and completion scripts generated from the
same table as --help.

The lists of commands and options are read from the binary's own help (the
Commands section of `paldron help`, the Options section of `paldron SUB
--help`), never written down here, so that a new option is checked the day it
is added: the parser must take it, the man page must describe it and the
completion must offer it.
"""

import json
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time

import harness
from harness import PaldronTest, Workspace, main, skip

MAN_PAGE = os.path.join(harness.BINARY_DIR, "paldron.1")
BASH_COMPLETION = os.path.join(harness.BINARY_DIR, "paldron.bash")
ZSH_COMPLETION = os.path.join(harness.BINARY_DIR, "_paldron")

# A value each placeholder accepts, for "the parser takes every option".
PLACEHOLDER_VALUES = {"FILE": "/nonexistent/p.toml", "DIR": "/tmp", "SEC": "5",
                      "NAME": "python", "OP": "read"}


def commands(ws):
    """The command names of `paldron help` (its Commands section)."""
    r = ws.run(["help"])
    section = r.out.split("\nCommands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in section.splitlines() if line.strip()]


def help_options(text):
    """[(names, placeholder)] of the Options section of a --help text:
    names is ("--policy",) or ("-h", "--help")."""
    section = text.split("\nOptions:\n", 1)[1].split("\n\n", 1)[0]
    found = []
    for line in section.splitlines():
        m = re.match(r"^  (-\w, )?(--[a-z][a-z-]*)(?: ([A-Z]+))?(?:  |$)", line)
        if m:
            names = ((m.group(1)[:2],) if m.group(1) else ()) + (m.group(2),)
            found.append((names, m.group(3)))
    return found


class CliConventionsTest(PaldronTest):
    def setUp(self):
        self.ws = Workspace()
        self.addCleanup(self.ws.close)

    def run_ok(self, args):
        r = self.ws.run(args)
        self.assertEqual(r.code, 0, repr(r))
        return r

    # --- version and help -------------------------------------------------
    def test_version_forms_are_identical(self):
        outs = []
        for args in (["--version"], ["-V"], ["version"]):
            r = self.ws.run(args)
            self.assertRun(r, 0, "paldron ")
            self.assertRegex(r.out, r"^paldron \S+\n$")
            self.assertEqual(r.err, "")
            outs.append(r.out)
        self.assertEqual(outs[0], outs[1])
        self.assertEqual(outs[0], outs[2])

    def test_version_is_stamped_from_the_build(self):
        # issue 17: the project's version, then git describe of the checkout
        # the binary was built from (cmake/version.cmake)
        r = self.run_ok(["version"])
        self.assertRegex(r.out, r"^paldron \d+\.\d+\.\d+(\+\S+)?\n$")
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
        if not os.path.isdir(os.path.join(src, ".git")) or not shutil.which("git"):
            self.skipTest("SKIP: not a git checkout: the version is the project's alone")
        head = subprocess.run(["git", "-C", src, "rev-parse", "--short=7", "HEAD"],
                              stdout=subprocess.PIPE, text=True).stdout.strip()
        self.assertIn(head, r.out, "the binary was built from another commit, or not stamped")

    def test_help_is_dash_dash_help(self):
        a, b = self.run_ok(["help"]), self.run_ok(["--help"])
        self.assertEqual(a.out, b.out)
        self.assertIn("paldron \u2014 policy gate and sandboxed exec", a.out)
        self.assertEqual(self.run_ok(["-h"]).out, a.out)
        names = commands(self.ws)
        for sub in ("check", "exec", "explain", "schema", "env", "cache", "init", "doctor",
                    "completion", "help", "version"):
            self.assertIn(sub, names)

    def test_help_command_is_command_dash_dash_help(self):
        for sub in commands(self.ws):
            a = self.run_ok(["help", sub])
            b = self.run_ok([sub, "--help"])
            c = self.run_ok([sub, "-h"])
            self.assertEqual(a.out, b.out, sub)
            self.assertEqual(a.out, c.out, sub)
            self.assertTrue(a.out.startswith("usage: paldron %s" % sub), a.out)
            self.assertIn("\nOptions:\n", a.out)
            self.assertEqual(a.err, "")

    def test_help_after_the_operand(self):
        # init, doctor and cache read their options after their operand too
        for args, sub in ((["init", "codex", "--help"], "init"),
                          (["doctor", "codex", "--help"], "doctor"),
                          (["cache", "clean", "--help"], "cache"),
                          (["cache", "clean", "--all", "--help"], "cache")):
            self.assertEqual(self.run_ok(args).out, self.run_ok([sub, "--help"]).out)

    def test_help_unknown_command(self):
        r = self.ws.run(["help", "nosuch"])
        self.assertRun(r, 1)
        self.assertEqual(r.err, "paldron: unknown command 'nosuch' (see 'paldron help')\n")
        self.assertEqual(r.out, "")
        r = self.ws.run(["help", "chek"])
        self.assertRun(r, 1)
        self.assertEqual(r.err, "paldron: unknown command 'chek' (did you mean 'check'?)\n")

    def test_no_arguments_is_usage_on_stderr(self):
        r = self.ws.run([])
        self.assertRun(r, 1, "paldron \u2014 policy gate and sandboxed exec")
        self.assertEqual(r.out, "")
        self.assertIn("Commands:", r.err)

    # --- did you mean -----------------------------------------------------
    def test_unknown_command_suggestion(self):
        r = self.ws.run(["chek", "--policy", "p.toml"])
        self.assertRun(r, 1)
        self.assertEqual(r.err, "paldron: unknown command 'chek' (did you mean 'check'?)\n")
        self.assertEqual(r.out, "")
        for typo, want in (("exce", "exec"), ("expalin", "explain"), ("verison", "version")):
            r = self.ws.run([typo])
            self.assertRun(r, 1)
            self.assertEqual(r.err, "paldron: unknown command '%s' (did you mean '%s'?)\n"
                             % (typo, want))

    def test_unknown_command_without_suggestion(self):
        r = self.ws.run(["zzz"])
        self.assertRun(r, 1)
        self.assertEqual(r.err, "paldron: unknown command 'zzz' (see 'paldron help')\n")
        self.assertEqual(r.out, "")

    def test_unknown_option_suggestion(self):
        r = self.ws.run(["exec", "--polcy", "p.toml", "--", "true"])
        self.assertRun(r, 1)
        self.assertEqual(r.err,
                         "paldron: unknown option '--polcy' for exec (did you mean '--policy'?)\n")
        r = self.ws.run(["explain", "--jsn", "x"])
        self.assertRun(r, 1)
        self.assertEqual(r.err,
                         "paldron: unknown option '--jsn' for explain (did you mean '--json'?)\n")
        r = self.ws.run(["--verison"])
        self.assertRun(r, 1)
        self.assertEqual(r.err, "paldron: unknown option '--verison' (did you mean '--version'?)\n")

    def test_unknown_option_without_suggestion(self):
        r = self.ws.run(["exec", "--bogus", "--", "true"])
        self.assertRun(r, 1)
        self.assertEqual(r.err,
                         "paldron: unknown option '--bogus' for exec (see 'paldron exec --help')\n")
        # an option of another command is no option of this one
        r = self.ws.run(["schema", "--json"])
        self.assertRun(r, 1, "unknown option '--json' for schema")

    def test_policy_key_suggestion(self):
        pol = self.ws.policy('alow_paths = ["src/"]\n')
        r = self.ws.run(["explain", "--policy", pol, "src/a.txt"])
        self.assertRun(r, 1)
        self.assertEqual(r.err, "paldron: policy unknown key: alow_paths "
                         "(did you mean 'allow_paths'?) (%s:1)\n" % pol)
        pol = self.ws.policy('timeout_sec = 5\ndeny_glob = [".log"]\n')
        r = self.ws.run(["check", "--policy", pol, "--", "read_file", "{}"])
        self.assertRun(r, 1, "paldron: policy unknown key: deny_glob "
                       "(did you mean 'deny_globs'?) (%s:2)" % pol)

    def test_policy_key_without_suggestion(self):
        pol = self.ws.policy('timeout_sec = 5\n\nbogus = 1\n')
        r = self.ws.run(["explain", "--policy", pol, "src/a.txt"])
        self.assertRun(r, 1)
        self.assertEqual(r.err, "paldron: policy unknown key: bogus (%s:3)\n" % pol)

    # --- explain --json ---------------------------------------------------
    def text_decisions(self, out):
        """{op: allow|deny} from explain's text mode."""
        found = {}
        for line in out.splitlines():
            m = re.match(r"^(read|write|create|delete|exec|name|program|arg|shell)\s+"
                         r"(allow|deny)\b", line)
            if m:
                found.setdefault(m.group(1), []).append(m.group(2))
        return found

    def explain_both(self, args):
        text = self.ws.run(["explain"] + args)
        js = self.ws.run(["explain", "--json"] + args)
        self.assertEqual(js.code, text.code, "%r\n%r" % (text, js))
        self.assertEqual(js.err, "")
        doc = json.loads(js.out)
        self.assertEqual(js.out.count("\n"), 1, "one JSON object on one line: %r" % js.out)
        self.assertEqual(doc["exit"], js.code)
        want = self.text_decisions(text.out)
        got = {}
        for d in doc["decisions"]:
            if d["decision"] != "none":
                got.setdefault(d["op"], []).append(d["decision"])
        self.assertEqual(got, want, "%r\n%r" % (text, js))
        return text, doc

    def test_explain_json_secret_path(self):
        pol = self.ws.policy('deny_globs = ["*.log"]\n')
        text, doc = self.explain_both(["--policy", pol, ".env"])
        self.assertRun(text, 2, "deny", "reason: secret")
        self.assertEqual(doc["policy"], os.path.realpath(pol))
        self.assertEqual(doc["kind"], "path")
        self.assertEqual(doc["subject"], ".env")
        read = [d for d in doc["decisions"] if d["op"] == "read"][0]
        self.assertEqual(read["decision"], "deny")
        self.assertEqual(read["reason"], "secret")
        self.assertEqual(read["key"], "secrets")
        self.assertEqual(read["pattern"], ".env")
        self.assertEqual(read["rule"], "secrets .env")
        self.assertEqual(read["resolved_path"], os.path.join(os.path.realpath(self.ws.path), ".env"))
        self.assertIn(read["message"], text.out)
        # a deny_glob of the policy file
        text, doc = self.explain_both(["--policy", pol, "--op", "write", "build.log"])
        self.assertRun(text, 2, "rule: deny_globs *.log")
        self.assertEqual([(d["op"], d["decision"], d["key"], d["pattern"])
                          for d in doc["decisions"]],
                         [("write", "deny", "deny_globs", "*.log")])

    def test_explain_json_allowed_path(self):
        self.ws.write("src/a.txt", "hi")
        text, doc = self.explain_both(["--no-policy", "src/a.txt"])
        self.assertRun(text, 0, "policy  (built-in defaults)")
        self.assertIsNone(doc["policy"])
        self.assertEqual(doc["exit"], 0)
        self.assertEqual([d["op"] for d in doc["decisions"]], ["read", "write", "exec", "name"])
        for d in doc["decisions"]:
            self.assertEqual(d["decision"], "allow")
            self.assertNotIn("reason", d)

    def test_explain_json_command(self):
        text, doc = self.explain_both(["--", "cat", ".env", "notes", "-n"])
        self.assertRun(text, 2, "arg     deny", "arg     not a path: notes")
        self.assertEqual(doc["kind"], "command")
        self.assertEqual(doc["subject"], ["cat", ".env", "notes", "-n"])
        self.assertEqual([(d["op"], d["subject"], d["decision"]) for d in doc["decisions"]],
                         [("program", "cat", "allow"), ("arg", ".env", "deny"),
                          ("arg", "notes", "none")])
        text, doc = self.explain_both(["--", "cat .env | wc -l"])
        self.assertRun(text, 2, "shell   deny")
        self.assertEqual(doc["kind"], "shell")

    def test_explain_json_broken_prints_no_json(self):
        r = self.ws.run(["explain", "--json", "--op", "bogus", "x"])
        self.assertRun(r, 1, "paldron: unknown --op 'bogus'")
        self.assertEqual(r.out, "")

    # --- one table: parser, help, man page, completion ---------------------
    def test_every_help_option_is_taken_by_the_parser(self):
        for sub in commands(self.ws):
            expected = self.run_ok([sub, "--help"]).out
            opts = help_options(expected)
            self.assertIn((("-h", "--help"), None), opts, sub)
            for names, value in opts:
                for name in names:
                    args = [sub, name] + ([PLACEHOLDER_VALUES[value]] if value else []) + ["--help"]
                    r = self.ws.run(args)
                    self.assertEqual(r.code, 0, "%s: %r" % (args, r))
                    self.assertEqual(r.out, expected, args)
                if value:  # the --opt=value form too
                    args = [sub, "%s=%s" % (names[-1], PLACEHOLDER_VALUES[value]), "--help"]
                    self.assertEqual(self.ws.run(args).code, 0, args)

    def test_usage_lines_name_only_explained_options(self):
        for sub in commands(self.ws):
            text = self.run_ok([sub, "--help"]).out
            listed = {n for names, _ in help_options(text) for n in names}
            usage, body = text.split("\n\n", 1)
            for name in re.findall(r"(?<![\w-])--[a-z][a-z-]*", usage):
                if name == "--version":  # paldron --version, before any command
                    continue
                # listed under Options, or (read by the command after its
                # operand, like cache clean --all) explained in the text
                self.assertTrue(name in listed or re.search(r"(?<![\w-])%s(?![\w-])" % name, body),
                                "%s: usage names %s, the help does not explain it" % (sub, name))

    def read(self, path):
        if not os.path.exists(path):
            self.fail("%s was not generated by the build" % path)
        with open(path) as f:
            return f.read()

    def test_man_page(self):
        page = self.read(MAN_PAGE)
        self.assertEqual(self.run_ok(["help", "--man"]).out, page,
                         "the build's paldron.1 is not what this binary prints")
        self.assertTrue(page.startswith(".\\\""))
        self.assertIn('.TH PALDRON 1 ""', page)
        for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXIT STATUS", "FILES",
                        "ENVIRONMENT", "SEE ALSO"):
            self.assertIn("\n.SH %s\n" % section, page)
        for word in ("PALDRON_DEBUG", "PALDRON_PRELOAD_LIB", ".paldron.toml", "policy.md",
                     "\\-h, \\-\\-help"):
            self.assertIn(word, page)
        exit_status = page.split(".SH EXIT STATUS\n", 1)[1].split(".SH", 1)[0]
        self.assertEqual(re.findall(r"^\.B (\d)$", exit_status, re.M), ["0", "2", "1"])
        # every command, and in its section every option its --help lists
        sections = dict(re.findall(r"^\.SS (\S+)\n(.*?)(?=^\.S[SH] )", page, re.M | re.S))
        for sub in commands(self.ws):
            self.assertIn(sub, sections, "the man page has no section for %s" % sub)
            self.assertIn("\\fBpaldron %s" % sub.replace("-", "\\-"), sections[sub])
            for names, value in help_options(self.run_ok([sub, "--help"]).out):
                if names[-1] == "--help":
                    continue  # said once, in DESCRIPTION
                troff = "\\fB%s\\fR" % names[-1].replace("-", "\\-")
                if value:
                    troff += " \\fI%s\\fR" % value
                self.assertIn(troff, sections[sub], "%s %s" % (sub, names[-1]))

    def test_man_page_renders(self):
        page = self.read(MAN_PAGE)
        if not shutil.which("groff"):
            skip(self, "groff is not installed (apt-get install groff man-db)")
        p = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-rLL=100n", MAN_PAGE],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr.decode(), "", "groff warnings")
        text = re.sub(r".\x08", "", p.stdout.decode())
        for word in ("PALDRON(1)", "SYNOPSIS", "paldron check", "EXIT STATUS", "--no-policy",
                     "--preset NAME", "PALDRON_PRELOAD_LIB"):
            self.assertIn(word, text)
        self.assertIn("paldron", page)
        if shutil.which("man"):
            r = subprocess.run(["man", "-l", MAN_PAGE], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=dict(os.environ, MANPAGER="cat",
                                                                PAGER="cat", MANWIDTH="80"))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("paldron - policy gate", r.stdout.decode())

    # --- bash completion --------------------------------------------------
    def bash_complete(self, *words):
        """COMPREPLY of the generated script for the words (the last one is
        being completed)."""
        self.read(BASH_COMPLETION)
        script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); '
                  '_paldron; printf "%s\\n" "${COMPREPLY[@]}"')
        p = subprocess.run(["bash", "-c", script, "bash", BASH_COMPLETION, harness.PALDRON]
                           + list(words), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           cwd=self.ws.path)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr.decode(), "")
        return [w for w in p.stdout.decode().split("\n") if w]

    def test_bash_completion_script(self):
        script = self.read(BASH_COMPLETION)
        self.assertEqual(self.run_ok(["completion", "bash"]).out, script)
        p = subprocess.run(["bash", "-c", 'source "$1" && complete -p paldron', "bash",
                            BASH_COMPLETION], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.decode(), "complete -F _paldron paldron\n")
        r = self.ws.run(["completion", "fish"])
        self.assertRun(r, 1, "paldron: completion: unknown shell 'fish'")

    def test_bash_completes_commands_and_options(self):
        self.assertEqual(self.bash_complete("ch"), ["check"])
        self.assertEqual(sorted(self.bash_complete("ex")), ["exec", "explain"])
        self.assertEqual(self.bash_complete("exec", "--po"), ["--policy"])
        self.assertEqual(self.bash_complete("--vers"), ["--version"])
        self.assertEqual(sorted(self.bash_complete("init", "--preset", "")),
                         sorted(["python", "node", "go", "rust", "c"]))
        self.assertEqual(self.bash_complete("explain", "--op", "cr"), ["create"])
        self.assertEqual(sorted(self.bash_complete("help", "e")), ["env", "exec", "explain"])
        self.assertEqual(self.bash_complete("cache", "cl"), ["clean"])
        self.assertEqual(self.bash_complete("cache", "clean", "--"), ["--all"])
        self.assertEqual(sorted(self.bash_complete("doctor", "")), ["claude-code", "codex"])
        self.assertEqual(self.bash_complete("init", "codex", "--us"), ["--user"])
        tools = self.run_ok(["schema", "--list"]).out.split()
        self.assertEqual(sorted(self.bash_complete("schema", "--tool", "")), sorted(tools))

    def test_bash_completes_files_and_dirs(self):
        self.ws.write("pol.toml", "")
        self.ws.mkdir("sub dir")
        self.assertEqual(self.bash_complete("exec", "--policy", "po"), ["pol.toml"])
        self.assertEqual(sorted(self.bash_complete("explain", "")), ["pol.toml", "sub dir"])
        self.assertEqual(self.bash_complete("exec", "--workspace", ""), ["sub dir"])
        self.assertEqual(self.bash_complete("exec", "--timeout", ""), [])

    def test_bash_completes_nothing_after_dashdash(self):
        self.ws.write("pol.toml", "")
        self.assertEqual(self.bash_complete("exec", "--", "ls", "--po"), [])
        self.assertEqual(self.bash_complete("exec", "--", ""), [])
        self.assertEqual(self.bash_complete("check", "--policy", "x", "--", "read_file", ""), [])
        # nor after the command of exec without "--"
        self.assertEqual(self.bash_complete("exec", "ls", "--po"), [])

    def test_bash_offers_every_listed_option(self):
        for sub in commands(self.ws):
            listed = sorted(n for names, _ in help_options(self.run_ok([sub, "--help"]).out)
                            for n in names if n.startswith("--"))
            offered = sorted(w for w in self.bash_complete(sub, "--") if w != "--all")
            self.assertEqual(offered, listed, sub)

    # --- zsh completion ---------------------------------------------------
    def test_zsh_completion_script(self):
        script = self.read(ZSH_COMPLETION)
        self.assertEqual(self.run_ok(["completion", "zsh"]).out, script)
        self.assertTrue(script.startswith("#compdef paldron\n"))
        for sub in commands(self.ws):
            self.assertIn("\n            '%s:" % sub, script)  # the command with its description
        zsh = shutil.which("zsh")
        if not zsh:
            skip(self, "zsh is not installed: the generated _paldron was not parsed "
                 "(apt-get install zsh)")
        p = subprocess.run([zsh, "-n", ZSH_COMPLETION], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr.decode(), "")

    def zsh_listing(self, zsh, line, want, timeout=20):
        """Type line + TAB into an interactive zsh with _paldron on $fpath;
        return what the terminal showed once every word of want appeared
        after the typed line (or at the timeout)."""
        fdir = tempfile.mkdtemp(prefix="paldron-zsh-")
        self.addCleanup(shutil.rmtree, fdir, True)
        shutil.copy(ZSH_COMPLETION, os.path.join(fdir, "_paldron"))
        env = {"HOME": fdir, "TERM": "dumb", "LANG": "C.UTF-8",
               "PATH": os.path.dirname(harness.PALDRON) + ":" + harness.RUN_PATH}
        pid, fd = os.forkpty()
        if pid == 0:
            os.execve(zsh, [zsh, "-f", "-i"], env)
        self.addCleanup(lambda: (os.kill(pid, signal.SIGKILL), os.waitpid(pid, 0)))
        os.write(fd, ("PS1='%% '; fpath=(%s $fpath); autoload -Uz compinit; compinit -u -D\n"
                      % fdir).encode())
        os.write(fd, (line + "\t").encode())
        out, deadline = b"", time.time() + timeout
        while time.time() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    out += os.read(fd, 4096)
                except OSError:
                    break
            tail = out.decode("utf-8", "replace").split(line.split()[-1], 1)[-1]
            if all(re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(w), tail) for w in want):
                break
        return out.decode("utf-8", "replace").split(line.split()[-1], 1)[-1]

    def test_zsh_completes(self):
        self.read(ZSH_COMPLETION)
        zsh = shutil.which("zsh")
        if not zsh:
            skip(self, "zsh is not installed: zsh completion not exercised (apt-get install zsh)")
        presets = ["python", "node", "go", "rust", "c"]
        shown = self.zsh_listing(zsh, "paldron init --preset ", presets)
        for w in presets:
            self.assertRegex(shown, r"(?<![\w-])%s(?![\w-])" % w, shown)
        shown = self.zsh_listing(zsh, "paldron exec --po", ["--policy"])
        self.assertIn("--policy", shown)


if __name__ == "__main__":
    main()
