"""CPython's own OS test modules (Debian's libpython3.11-testsuite), run bare
and under `paldron exec` as the unprivileged test user, one module at a time
(`python3 -m test -v MODULE`, sequential). A module passes when its result
under exec equals its bare result: the same unittest counts (run, failures,
errors, skipped) and the same outcome for every test case.

Slow (minutes): labelled `slow` in CTest; WORKLOAD_CPYTHON_MODULES=test_os,test_glob
runs a subset."""

import os
import re
import sys

from workload import WorkloadTest, main, skip, tail

MODULES = ["test_os", "test_shutil", "test_tempfile", "test_subprocess", "test_pathlib",
           "test_glob", "test_fileio", "test_posix", "test_multiprocessing_forkserver",
           "test_signal", "test_fcntl"]
if os.environ.get("WORKLOAD_CPYTHON_MODULES"):
    MODULES = os.environ["WORKLOAD_CPYTHON_MODULES"].split(",")

# What these modules start besides python3 itself (their subprocess tests run
# the shell and a few coreutils).
BINARIES = ["python3", "sh", "bash", "echo", "cat", "ls", "true", "false", "env", "sleep",
            "pwd", "id", "uname", "kill", "ps", "printf", "test", "ldconfig", "locale", "stty",
            "tar", "zip", "unzip", "gzip", "bzip2", "xz"]
TIMEOUT = 1500

CASE_RE = re.compile(r"^(test\w*) \(([\w.]+)\)\n?(?:[^\n]*?)? \.\.\. "
                     r"(ok|FAIL|ERROR|skipped|expected failure|unexpected success)", re.M)
FAILED_RE = re.compile(r"^(FAIL|ERROR): (test\w*) \(([\w.]+)\)", re.M)
RAN_RE = re.compile(r"^Ran (\d+) tests? in", re.M)
STATUS_RE = re.compile(r"^(OK|FAILED)(?: \((.*)\))?$", re.M)
RESULT_RE = re.compile(r"^== Tests result: (\w+)", re.M)


def summary(text):
    """{'run': N, 'failures': F, 'errors': E, 'skipped': S, 'result': R} from
    regrtest -v output (the last unittest summary counts)."""
    s = {"run": None, "failures": 0, "errors": 0, "skipped": 0, "result": None}
    ran = RAN_RE.findall(text)
    if ran:
        s["run"] = int(ran[-1])
    status = STATUS_RE.findall(text)
    if status:
        for part in (status[-1][1] or "").split(","):
            if "=" in part:
                k, v = part.strip().split("=", 1)
                if k in s:
                    s[k] = int(v)
    res = RESULT_RE.findall(text)
    if res:
        s["result"] = res[-1]
    return s


def cases(text):
    """{test id: outcome} for every test case line of unittest -v."""
    found = {"%s.%s" % (cls, name) if not cls.endswith(name) else cls: outcome
             for name, cls, outcome in CASE_RE.findall(text)}
    # a case whose subtests failed has no outcome on its line; its report does
    for outcome, name, cls in FAILED_RE.findall(text):
        key = cls if cls.endswith(name) else "%s.%s" % (cls, name)
        if found.get(key) in (None, "ok"):
            found[key] = outcome + " (subtest)" if found.get(key) is None else outcome
    return found


class CPythonOSTest(WorkloadTest):
    def setUp(self):
        super().setUp()
        if not os.path.exists("/usr/lib/python3.11/test/test_os.py"):
            skip(self, "libpython3.11-testsuite is not installed (tests/setup.sh installs it)")

    def run_module(self, module):
        # "python3", not /usr/bin/python3: the argv gate reads `sh -c "/usr/bin/..."`
        # as a path outside the workspace (reported)
        script = "python3 -m test -v --timeout 900 %s\n" % module
        bare = self.run_bare(script, None, TIMEOUT)
        sand = self.run_exec(script, BINARIES, None, TIMEOUT, {"max_open_files": 4096})
        logdir = os.environ.get("WORKLOAD_LOG_DIR")
        if logdir:
            os.makedirs(logdir, exist_ok=True)
            for kind, r in (("bare", bare), ("exec", sand)):
                with open(os.path.join(logdir, "%s.%s.log" % (module, kind)), "w") as f:
                    f.write(r.both)
        print("WORKLOAD %s: bare %.1fs, exec %.1fs" % (module, bare.seconds, sand.seconds),
              file=sys.stderr)
        sb, se = summary(bare.both), summary(sand.both)
        problems = []
        if sb["result"] is None:
            self.fail("%s: no regrtest result in the bare run (exit %d):\n%s"
                      % (module, bare.code, tail(bare.both)))
        if sb != se:
            problems.append("summary bare %s, exec %s" % (sb, se))
        if se["result"] is not None and bare.code != sand.inner_code():
            problems.append("exit status bare %d, exec %s" % (bare.code, sand.inner_code()))
        cb, ce = cases(bare.both), cases(sand.both)
        changed = ["%s: bare %s, exec %s" % (k, cb.get(k), ce.get(k))
                   for k in sorted(set(cb) | set(ce)) if cb.get(k) != ce.get(k)]
        if changed:
            problems.append("%d test case(s) differ:\n%s" % (len(changed),
                            "\n".join("    " + c for c in changed[:40])))
        denies = sorted(set(l for l in sand.paldron_lines() if l.startswith("paldron: deny")))
        if problems:
            msg = "%s under paldron exec differs from bare:\n- %s" % (module, "\n- ".join(problems))
            if denies:
                msg += "\ndeny lines (%d):\n" % len(denies) + "\n".join("    " + l for l in denies[:30])
            fails = sorted(set(re.findall(r"^(?:FAIL|ERROR): .*$", sand.out, re.M)))
            if fails:
                msg += "\nexec failures:\n" + "\n".join("    " + l for l in fails[:30])
            msg += "\nexec stderr (tail):\n" + tail(sand.err, 10)
            self.fail(msg)
        # Same results; a run whose tests all passed as bare must also be allowed.
        if sb["result"] == "SUCCESS":
            self.assertEqual(sand.code, 0, "%s: same results but paldron exited %d; deny lines (%d):\n%s"
                             % (module, sand.code, len(denies), "\n".join(denies[:30])))


def _make(module):
    def test(self):
        self.run_module(module)
    test.__doc__ = "python3 -m test %s: the same results bare and under exec" % module
    return test


for _m in MODULES:
    setattr(CPythonOSTest, "test_" + _m[len("test_"):], _make(_m))


if __name__ == "__main__":
    main()
