"""Every function this machine's C library exports that opens, creates,
renames, links, changes or starts something *by path* is wrapped by
libpaldron_preload.so (issue 10, item 3).

The names come from `nm -D --defined-only` of the libc the loader uses,
filtered by PATTERN; what matches but does not act on a path the caller names
is in NOT_BY_PATH, each entry with its reason. A new glibc that adds a path
function makes this test fail until the function is wrapped or listed here
with a reason (and docs/preload.md says which).
"""
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "preload"))
import preload_fixture as pf  # noqa: E402

# Words in the names of functions that act on a file system path (or start a
# program, or connect a socket to an address).
PATTERN = re.compile(r"open|creat|renam|link|mkdir|mknod|mkfifo|exec|spawn|truncate|temp|tmp|"
                     r"chmod|chown|utime|rmdir|remove|system|connect")

# (regex over the whole name, reason): matched by PATTERN, not a path call.
NOT_BY_PATH = [
    (r"f(chmod|truncate|truncate64|utimens|utimes|removexattr)|fdopen|_IO_fdopen|"
     r"fdopendir", "acts on a descriptor, judged when it was opened"),
    (r"posix_spawnattr_.*|posix_spawn_file_actions_(init|destroy|addclose|addclosefrom_np|"
     r"adddup2|addfchdir_np|addtcsetpgrp_np|addchdir_np)",
     "fills a spawn attribute or action without touching a file (the spawn itself and "
     "addopen are wrapped; addchdir_np only moves the child's working directory)"),
    (r"(__)?mktemp|tmpnam|tmpnam_r|tempnam", "makes up a name, creates nothing"),
    (r"tmpfile(64)?", "an unnamed file (O_TMPFILE) in /tmp: no name exists to judge"),
    (r"fmemopen|open_memstream|open_wmemstream|fopencookie",
     "a FILE over memory or callbacks, no file"),
    (r"opendir|fts(64)?_open", "lists a directory: metadata, not gated (docs/preload.md)"),
    (r"readlink(at)?|__readlink(at)?_chk", "reads a link's target: metadata, not gated"),
    (r"l?removexattr", "extended attributes are not gated (docs/preload.md, gaps)"),
    (r"dlopen|dlmopen", "maps a library (the loader's own opens); the loader's search "
     "variables are filtered instead (docs/preload.md)"),
    (r"iconv_open|__gconv_open|__gconv_create_spec",
     "loads gconv modules from the system (GCONV_PATH is dropped)"),
    (r"catopen|__open_catalog", "reads a message catalog (NLSPATH is dropped); the file is "
     "used only if it carries the catalog magic"),
    (r"__nss_files_data_open", "GLIBC_PRIVATE, takes NSS's private struct; opens only the "
     "NSS database files named in glibc"),
    (r"utmpx?name", "stores a name; getut*/pututline open it later inside libc (Landlock; "
     "listed as a gap in docs/preload.md)"),
    (r"getutmpx?|logwtmp", "converts utmp records / writes the fixed system wtmp "
     "(outside every writable root)"),
    (r"mq_open|__mq_open_2|mq_unlink", "POSIX message queues live in the mqueue file "
     "system, not in the tree"),
    (r"sem_open|sem_unlink|shm_open|shm_unlink", "a name in /dev/shm without '/' (it cannot "
     "leave /dev/shm, a writable root of every run)"),
    (r"open_by_handle_at", "descriptor + handle, needs CAP_DAC_READ_SEARCH"),
    (r"open_tree|fsopen", "the mount API, needs CAP_SYS_ADMIN"),
    (r"openpty|posix_openpt", "a new pseudo-terminal"),
    (r"openlog", "the syslog socket, fixed by glibc"),
    (r"pidfd_open|epoll_create1?|timerfd_create|timer_create|hcreate(_r)?|argz_create(_sep)?|"
     r"pthread_create|thrd_create|tss_create|pthread_key_create|__pthread_key_create|"
     r"__nptl_create_event|create_module|__libc_alloc_buffer_create_failure",
     "no file: processes, events, timers, tables, threads, kernel modules"),
    (r"_IO_link_in|_IO_un_link|_IO_remove_marker|__libc_unwind_link_get|"
     r"__netlink_assert_response|envz_remove|re_exec|regexec",
     "no file: libio's list of streams, unwinding, netlink, strings, regular expressions"),
    (r"rexec|rexec_af", "a remote shell over the network (its sockets meet seccomp and "
     "connect's gate)"),
    (r"authdes_create|authdes_pk_create|authnone_create|authunix_create|"
     r"authunix_create_default|clnt_create|clnt_pcreateerror|clnt_spcreateerror|"
     r"clntraw_create|clnttcp_create|clntudp_bufcreate|clntudp_create|clntunix_create|"
     r"__libc_clntudp_bufcreate|__rpc_thread_createerr|svcerr_systemerr|svcfd_create|"
     r"svcraw_create|svctcp_create|svcudp_bufcreate|svcudp_create|svcunix_create|"
     r"svcunixfd_create|xdrmem_create|xdrrec_create|xdrstdio_create",
     "Sun RPC compatibility symbols (no default version: nothing links against them "
     "since glibc 2.32, dlsym does not find them)"),
]


def libc_path():
    """The libc.so.6 the loader maps (ldd of python3), else the usual place."""
    out = subprocess.run(["ldd", sys.executable], capture_output=True, text=True).stdout
    m = re.search(r"libc\.so\.6 => (\S+)", out)
    return m.group(1) if m else "/lib/x86_64-linux-gnu/libc.so.6"


def defined(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in "TWi":  # functions only
            names.add(fields[2].split("@")[0])
    return names


def not_by_path(name):
    return any(re.fullmatch(rx, name) for rx, _ in NOT_BY_PATH)


class Symbols(pf.PreloadTest):
    def setUp(self):
        super().setUp()
        if not shutil.which("nm") or not shutil.which("ldd"):
            pf.skip(self, "binutils (nm) or ldd not installed")

    def test_every_path_function_of_libc_is_wrapped(self):
        libc = defined(libc_path())
        self.assertIn("open", libc)
        wrapped = defined(pf.PRELOAD)
        candidates = {n for n in libc if PATTERN.search(n)}
        missing = sorted(n for n in candidates if n not in wrapped and not not_by_path(n))
        self.assertEqual(missing, [], "path functions of %s not wrapped by %s and not in "
                         "NOT_BY_PATH" % (libc_path(), pf.PRELOAD))

    def test_the_allowlist_names_nothing_that_is_wrapped(self):
        # an entry that covers a wrapped function would hide its removal
        wrapped = defined(pf.PRELOAD)
        self.assertEqual(sorted(n for n in wrapped if not_by_path(n)), [])

    def test_dunder_open_is_among_them(self):
        wrapped = defined(pf.PRELOAD)
        for name in ("__open", "__open64", "__open_2", "__open64_2", "__openat_2",
                     "__openat64_2", "creat64", "openat64", "fopen64", "freopen64",
                     "renameat2", "linkat", "symlinkat", "mkdirat", "mknodat", "__xmknod",
                     "execveat", "fexecve", "posix_spawn", "posix_spawnp"):
            self.assertIn(name, wrapped)


if __name__ == "__main__":
    pf.main()
