"""Run one file of tests/integration as its own `python3 test_x.py` would
(tests/valgrind/run.sh calls it in that folder), minus the tests that
tests/valgrind/exclusions lists for it; each of those is printed with its
reason, so that nothing is left out without saying so.

usage: run_file.py TEST_NAME"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def exclusions(name):
    """{Class.method: reason} for test file name."""
    out = {}
    with open(os.path.join(HERE, "exclusions")) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            test, _, reason = line.partition(" ")
            file, _, method = test.partition(".")
            if file == name:
                out[method] = reason.strip()
    return out


def flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from flatten(t)
        else:
            yield t


def main(name):
    sys.path.insert(0, os.getcwd())
    import harness
    if not os.path.exists(harness.PALDRON):
        print("paldron binary not found at %s" % harness.PALDRON, file=sys.stderr)
        return 1
    skip = exclusions(name)
    module = __import__(name)
    tests = list(flatten(unittest.defaultTestLoader.loadTestsFromModule(module)))
    kept = []
    for t in tests:
        short = t.id().split(".", 1)[1]
        if short in skip:
            print("EXCLUDED %s.%s: %s" % (name, short, skip.pop(short)), file=sys.stderr)
        else:
            kept.append(t)
    for short in skip:  # a stale entry would hide nothing and say so forever
        print("run_file.py: %s.%s is in tests/valgrind/exclusions but not a test" % (name, short),
              file=sys.stderr)
        return 1
    result = unittest.TextTestRunner(verbosity=2).run(unittest.TestSuite(kept))
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
