"""Judge the logs of tests/valgrind/run.sh: one directory per test file,
holding its result line and one valgrind XML file per process.

An XML file is read as far as it goes. valgrind 3.19 writes a forked child
(the child before it becomes the native `paldron __sandbox`, the probe's
child, the keep_background keeper) into its parent's file, each process
with its own preamble (state RUNNING) and, if it exits rather than exec or
get killed, its leak check and state FINISHED; every error is written when
it happens, so a process that exec'd still has its errors counted. Fails (exit 1) when a
test file failed or any process had an error or a definite leak; prints
each error with its stack."""

import os
import re
import sys

ERROR = re.compile(r"<error>(.*?)</error>", re.S)
PREAMBLE = re.compile(r"<pid>\d+</pid>")
FINISHED = re.compile(r"<state>FINISHED</state>")


def tag(block, name):
    m = re.search(r"<%s>(.*?)</%s>" % (name, name), block, re.S)
    return m.group(1).strip() if m else ""


def describe(block):
    what = tag(block, "what") or tag(tag(block, "xwhat"), "text")
    lines = ["  %s: %s" % (tag(block, "kind"), what)]
    for frame in re.findall(r"<frame>(.*?)</frame>", block, re.S)[:12]:
        fn, fl, ln = tag(frame, "fn"), tag(frame, "file"), tag(frame, "line")
        where = "%s:%s" % (fl, ln) if fl else tag(frame, "obj")
        lines.append("    %s (%s)" % (fn or "???", where))
    return "\n".join(lines)


def command_of(xml):
    exe = tag(tag(xml, "argv"), "exe")
    args = re.findall(r"<arg>(.*?)</arg>", tag(xml, "argv"), re.S)
    return " ".join([exe] + args)[:200]


def main(logs):
    failed = False
    totals = dict(procs=0, finished=0, errors=0, leaks=0)
    rows = []
    for name in sorted(os.listdir(logs)):
        d = os.path.join(logs, name)
        if not os.path.isdir(d):
            continue
        try:
            with open(os.path.join(d, "result")) as f:
                _, rc, secs = f.read().split()
        except (OSError, ValueError):
            rc, secs = "?", "?"
        procs = finished = errors = leaks = 0
        reports = []
        for fn in sorted(os.listdir(d)):
            if not fn.endswith(".xml"):
                continue
            with open(os.path.join(d, fn), errors="replace") as f:
                xml = f.read()
            procs += len(PREAMBLE.findall(xml))
            finished += len(FINISHED.findall(xml))
            for block in ERROR.findall(xml):
                if tag(block, "kind").startswith("Leak_"):
                    leaks += 1
                else:
                    errors += 1
                reports.append("%s (%s)\n%s" % (fn, command_of(xml), describe(block)))
        rows.append((name, rc, secs, procs, finished, errors, leaks))
        for k, v in zip(("procs", "finished", "errors", "leaks"), (procs, finished, errors, leaks)):
            totals[k] += v
        if rc != "0" or errors or leaks:
            failed = True
        if rc != "0":
            print("FAIL %s: the tests failed (exit %s); see %s/test.out" % (name, rc, d))
        try:
            with open(os.path.join(d, "test.out"), errors="replace") as f:
                for line in f:
                    if line.startswith("EXCLUDED "):
                        print(line.rstrip())
        except OSError:
            pass
        for r in reports:
            print("VALGRIND %s: %s" % (name, r))
    if not rows:
        print("scan_logs.py: no test file's logs in %s" % logs)
        return 1
    print("%-36s %5s %8s %7s %8s %6s %6s" % ("test file", "exit", "seconds", "procs", "finished",
                                             "errors", "leaks"))
    for row in rows:
        print("%-36s %5s %8s %7d %8d %6d %6d" % row)
    print("total: %(procs)d processes under valgrind (%(finished)d ran to their exit and leak "
          "check; the others exec'd the native stage or were killed), %(errors)d errors, "
          "%(leaks)d definite leaks" % totals)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
