"""A call to give a file or the process another owner fails as it does bare.

The run's user namespace maps only the user's own uid and gid, so the kernel
refuses any other id with EINVAL ("not a valid id here") where bare, without
the privilege, it says EPERM. Programs test for EPERM (CPython's test_os and
test_subprocess, `install -o`, package managers probing whether they may
chown): the preload turns that EINVAL back into EPERM for the chown family
(chown, lchown, fchown, fchownat) and the set*id/setgroups family, and only
then: -1 where it means "unchanged" is left alone, and ids the kernel would
refuse bare too (-1 where it is not a sentinel, a bad flag) keep EINVAL.
Real runs as the unprivileged test user, compared with the same script run
bare."""

import json

from harness import main
from test_exec_result import ExecBase, example_policy

# Prints {call: "ok" | errno name}; every call is one an unprivileged user
# cannot make bare. fchownat with a bad flag and setuid(-1) are refused
# with EINVAL bare too and must stay so.
PROBE = r"""
import errno, json, os, subprocess, sys

def outcome(f):
    try:
        f()
        return 'ok'
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))

f = 'src/owned'
open(f, 'w').close()
fd = os.open(f, os.O_RDONLY)
me, mygid = os.getuid(), os.getgid()
res = {
    'chown': outcome(lambda: os.chown(f, 65534, -1)),
    'chown_gid': outcome(lambda: os.chown(f, -1, 65534)),
    'lchown': outcome(lambda: os.lchown(f, 65534, 65534)),
    'fchown': outcome(lambda: os.fchown(fd, 65534, -1)),
    'chown_self': outcome(lambda: os.chown(f, me, mygid)),
    'chown_unchanged': outcome(lambda: os.chown(f, -1, -1)),
    'setuid': outcome(lambda: os.setuid(65534)),
    'setgid': outcome(lambda: os.setgid(65534)),
    'setreuid': outcome(lambda: os.setreuid(65534, -1)),
    'setregid': outcome(lambda: os.setregid(-1, 65534)),
    'setresuid': outcome(lambda: os.setresuid(-1, 65534, -1)),
    'setresgid': outcome(lambda: os.setresgid(65534, -1, -1)),
    'setgroups': outcome(lambda: os.setgroups([65534])),
    'initgroups': outcome(lambda: os.initgroups('nobody', 65534)),
    'run_user': outcome(lambda: subprocess.run(['true'], user=65534)),
    'run_group': outcome(lambda: subprocess.run(['true'], group=65534)),
    'run_extra_groups': outcome(lambda: subprocess.run(['true'], extra_groups=[65534])),
}
# ctypes for what os.* cannot ask: -1 where it is not a sentinel, a bad flag
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def c_outcome(rc):
    return 'ok' if rc == 0 else errno.errorcode.get(ctypes.get_errno(), '?')
res['c_setuid_minus1'] = c_outcome(libc.setuid(ctypes.c_uint(0xffffffff)))
res['c_fchownat_bad_flag'] = c_outcome(libc.fchownat(-100, f.encode(), 65534,
                                                     ctypes.c_uint(0xffffffff), 0x8000000))
print(json.dumps(res, sort_keys=True))
"""


class TransparentIdsTest(ExecBase):
    def policy(self):
        return example_policy(binaries=["python3", "true"])

    def probe(self, under_exec):
        self.ws.write("src/probe.py", PROBE)
        if under_exec:
            r = self.exec(["python3", "src/probe.py"], policy=self.policy())
        else:
            r = self.ws.run(["src/probe.py"], prog="python3")
        self.assertEqual(r.code, 0, repr(r))
        lines = [ln for ln in r.out.splitlines() if ln.startswith("{")]
        self.assertEqual(len(lines), 1, repr(r))
        return json.loads(lines[0])

    def test_refusals_read_as_bare(self):
        self.maxDiff = None
        bare = self.probe(False)
        # what an unprivileged user meets bare (the test is meaningless if not)
        self.assertEqual(bare["chown"], "EPERM", bare)
        self.assertEqual(bare["run_user"], "EPERM", bare)
        self.assertEqual(bare["chown_self"], "ok", bare)
        self.assertEqual(bare["c_setuid_minus1"], "EINVAL", bare)
        self.assertEqual(bare["c_fchownat_bad_flag"], "EINVAL", bare)
        under = self.probe(True)
        self.assertEqual(under, bare, "under exec (left) vs bare (right)")

    def test_python_sees_permission_error(self):
        code = ("import os, subprocess\nopen('src/f', 'w').close()\n"
                "for what, f in (('chown', lambda: os.chown('src/f', 65534, -1)),\n"
                "                ('user', lambda: subprocess.run(['true'], user=65534))):\n"
                "    try:\n        f()\n        print(what, 'OK')\n"
                "    except PermissionError:\n        print(what, 'PermissionError')\n"
                "    except OSError as e:\n        print(what, type(e).__name__, e.errno)\n")
        self.ws.write("src/pe.py", code)
        r = self.exec(["python3", "src/pe.py"], policy=self.policy())
        self.assertRun(r, 0, "chown PermissionError", "user PermissionError",
                       absent=["Errno 22", " 22\n"])


if __name__ == "__main__":
    main()
