"""tests/preload/cprobe.py - make one libc call by name through ctypes, the way
a C program would, and print "ok" or "fail <errno>" (getaddrinfo: "ok" or
"fail gai <code>"; posix_spawn*: the child's output, then "ok" / "fail <err>").
Run under the preload it proves, call by call, what the wrappers do.

usage: cprobe.py FUNC ARG...
  paths are taken as given; DIR arguments: "." is AT_FDCWD, anything else a
  directory opened with O_RDONLY|O_DIRECTORY; FLAGS: "O_WRONLY|O_CREAT" or a
  number; MODE: octal.
"""
import ctypes
import ctypes.util
import os
import socket
import struct
import sys

libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100


def flags(s):
    v = 0
    for part in s.split("|"):
        part = part.strip()
        if not part:
            continue
        if part.isdigit():
            v |= int(part)
        elif part == "AT_EMPTY_PATH":
            v |= 0x1000
        elif part == "AT_REMOVEDIR":
            v |= 0x200
        elif part == "AT_SYMLINK_NOFOLLOW":
            v |= 0x100
        else:
            v |= getattr(os, part)
    return v


def dirfd(s):
    if s == ".":
        return AT_FDCWD
    return os.open(s, os.O_RDONLY | os.O_DIRECTORY)


def b(s):
    return s.encode() if s is not None else None


def done(ok):
    if ok:
        print("ok")
    else:
        print("fail %d" % ctypes.get_errno())
    sys.stdout.flush()


def int_call(name, *args):
    f = getattr(libc, name)
    f.restype = ctypes.c_int
    ctypes.set_errno(0)
    return f(*args)


def ptr_call(name, *args):
    f = getattr(libc, name)
    f.restype = ctypes.c_void_p
    ctypes.set_errno(0)
    return f(*args)


def argv_array(items):
    arr = (ctypes.c_char_p * (len(items) + 1))()
    for i, it in enumerate(items):
        arr[i] = b(it)
    arr[len(items)] = None
    return arr


def sockaddr_in(host, port):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    if fam == socket.AF_INET:
        raw = struct.pack("=H", fam) + struct.pack("!H", int(port)) + socket.inet_pton(fam, host) + b"\0" * 8
    else:
        raw = struct.pack("=H", fam) + struct.pack("!H", int(port)) + b"\0" * 4 + socket.inet_pton(fam, host) + b"\0" * 4
    return fam, ctypes.create_string_buffer(raw, len(raw)), len(raw)


def main(argv):
    fn, a = argv[1], argv[2:]
    c_int, c_uint = ctypes.c_int, ctypes.c_uint
    if fn in ("open", "open64"):
        rc = int_call(fn, b(a[0]), c_int(flags(a[1])), c_uint(int(a[2], 8) if len(a) > 2 else 0o644))
        if rc >= 0 and len(a) > 3 and a[3] == "read":
            print(os.read(rc, 100).decode(errors="replace").strip())
        return done(rc >= 0)
    if fn in ("__open_2", "__open64_2"):
        return done(int_call(fn, b(a[0]), c_int(flags(a[1]))) >= 0)
    if fn in ("openat", "openat64"):
        return done(int_call(fn, c_int(dirfd(a[0])), b(a[1]), c_int(flags(a[2])),
                             c_uint(int(a[3], 8) if len(a) > 3 else 0o644)) >= 0)
    if fn in ("__openat_2", "__openat64_2"):
        return done(int_call(fn, c_int(dirfd(a[0])), b(a[1]), c_int(flags(a[2]))) >= 0)
    if fn in ("creat", "creat64"):
        return done(int_call(fn, b(a[0]), c_uint(int(a[1], 8))) >= 0)
    if fn in ("fopen", "fopen64"):
        return done(ptr_call(fn, b(a[0]), b(a[1])) is not None)
    if fn in ("freopen", "freopen64"):
        stream = ptr_call("fopen", b"/dev/null", b"r")
        return done(ptr_call(fn, b(a[0]), b(a[1]), ctypes.c_void_p(stream)) is not None)
    if fn in ("rename", "link", "symlink"):
        return done(int_call(fn, b(a[0]), b(a[1])) == 0)
    if fn == "renameat":
        return done(int_call(fn, dirfd(a[0]), b(a[1]), dirfd(a[2]), b(a[3])) == 0)
    if fn == "renameat2":
        return done(int_call(fn, dirfd(a[0]), b(a[1]), dirfd(a[2]), b(a[3]), c_uint(int(a[4]))) == 0)
    if fn == "linkat":
        return done(int_call(fn, dirfd(a[0]), b(a[1]), dirfd(a[2]), b(a[3]), c_int(flags(a[4]))) == 0)
    if fn == "symlinkat":
        return done(int_call(fn, b(a[0]), dirfd(a[1]), b(a[2])) == 0)
    if fn in ("unlink", "rmdir", "remove"):
        return done(int_call(fn, b(a[0])) == 0)
    if fn == "unlinkat":
        return done(int_call(fn, dirfd(a[0]), b(a[1]), c_int(flags(a[2]))) == 0)
    if fn in ("mkdir", "mkfifo", "chmod", "lchmod"):
        return done(int_call(fn, b(a[0]), c_uint(int(a[1], 8))) == 0)
    if fn in ("mkdirat", "mkfifoat"):
        return done(int_call(fn, dirfd(a[0]), b(a[1]), c_uint(int(a[2], 8))) == 0)
    if fn == "mknod":
        return done(int_call(fn, b(a[0]), c_uint(int(a[1], 8)), ctypes.c_ulong(0)) == 0)
    if fn == "mknodat":
        return done(int_call(fn, dirfd(a[0]), b(a[1]), c_uint(int(a[2], 8)), ctypes.c_ulong(0)) == 0)
    if fn in ("truncate", "truncate64"):
        return done(int_call(fn, b(a[0]), ctypes.c_long(int(a[1]))) == 0)
    if fn == "fchmodat":
        return done(int_call(fn, dirfd(a[0]), b(a[1]), c_uint(int(a[2], 8)), c_int(flags(a[3]))) == 0)
    if fn in ("chown", "lchown"):
        return done(int_call(fn, b(a[0]), c_uint(int(a[1])), c_uint(int(a[2]))) == 0)
    if fn == "fchownat":
        return done(int_call(fn, dirfd(a[0]), b(a[1]), c_uint(int(a[2])), c_uint(int(a[3])),
                             c_int(flags(a[4]))) == 0)
    if fn in ("utime", "utimes", "lutimes"):
        return done(int_call(fn, b(a[0]), None) == 0)
    if fn == "futimesat":
        return done(int_call(fn, dirfd(a[0]), b(a[1]), None) == 0)
    if fn == "utimensat":
        return done(int_call(fn, dirfd(a[0]), b(a[1]), None, c_int(flags(a[2]))) == 0)
    if fn in ("mkstemp", "mkstemp64"):
        return done(int_call(fn, ctypes.create_string_buffer(b(a[0]))) >= 0)
    if fn in ("mkostemp", "mkostemp64"):
        return done(int_call(fn, ctypes.create_string_buffer(b(a[0])), c_int(0)) >= 0)
    if fn in ("mkstemps", "mkstemps64"):
        return done(int_call(fn, ctypes.create_string_buffer(b(a[0])), c_int(int(a[1]))) >= 0)
    if fn in ("mkostemps", "mkostemps64"):
        return done(int_call(fn, ctypes.create_string_buffer(b(a[0])), c_int(int(a[1])), c_int(0)) >= 0)
    if fn == "mkdtemp":
        return done(ptr_call(fn, ctypes.create_string_buffer(b(a[0]))) is not None)
    if fn == "posix_spawn_file_actions_addopen":
        fa = ctypes.create_string_buffer(256)
        int_call("posix_spawn_file_actions_init", fa)
        rc = int_call(fn, fa, c_int(3), b(a[0]), c_int(flags(a[1])), c_uint(0o644))
        ctypes.set_errno(rc)
        return done(rc == 0)
    # ---- exec: on success the process is replaced ----
    if fn in ("execve", "execvpe"):
        env = argv_array(["PROBE=1"])
        int_call(fn, b(a[0]), argv_array(a[1:]), env)
        return done(False)
    if fn in ("execv", "execvp"):
        int_call(fn, b(a[0]), argv_array(a[1:]))
        return done(False)
    if fn in ("execl", "execlp"):
        args = [b(x) for x in a[1:]] + [None]
        int_call(fn, b(a[0]), *args)
        return done(False)
    if fn == "execle":
        args = [b(x) for x in a[1:]] + [None, argv_array(["PROBE=1"])]
        int_call(fn, b(a[0]), *args)
        return done(False)
    if fn == "execveat":
        int_call(fn, dirfd(a[0]), b(a[1]), argv_array(a[2:]), argv_array([]), c_int(0))
        return done(False)
    if fn == "fexecve":
        fd = os.open(a[0], os.O_RDONLY)
        int_call(fn, c_int(fd), argv_array(a[1:]), argv_array([]))
        return done(False)
    if fn in ("posix_spawn", "posix_spawnp"):
        pid = ctypes.c_int(0)
        rc = int_call(fn, ctypes.byref(pid), b(a[0]), None, None, argv_array(a[1:]), argv_array([]))
        if rc == 0:
            os.waitpid(pid.value, 0)
        ctypes.set_errno(rc)
        return done(rc == 0)
    if fn == "system":
        rc = int_call(fn, b(a[0]))
        return done(rc == 0)
    if fn == "popen":
        f = ptr_call(fn, b(a[0]), b"r")
        if f:
            int_call("pclose", ctypes.c_void_p(f))
        return done(f is not None)
    if fn == "vfork":
        pid = int_call("vfork")
        if pid == 0:
            os._exit(7)
        _, st = os.waitpid(pid, 0)
        return done(os.WEXITSTATUS(st) == 7)
    # ---- network ----
    if fn in ("connect", "bind", "sendto", "sendmsg"):
        fam, addr, alen = sockaddr_in(a[0], a[1])
        s = socket.socket(fam, socket.SOCK_DGRAM if fn in ("sendto", "sendmsg") or len(a) > 2 else socket.SOCK_STREAM)
        if fn in ("connect", "bind"):
            return done(int_call(fn, c_int(s.fileno()), addr, c_uint(alen)) == 0)
        if fn == "sendto":
            f = libc.sendto
            f.restype = ctypes.c_ssize_t
            ctypes.set_errno(0)
            return done(f(c_int(s.fileno()), b"x", ctypes.c_size_t(1), c_int(0), addr, c_uint(alen)) == 1)

        class iovec(ctypes.Structure):
            _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]

        class msghdr(ctypes.Structure):
            _fields_ = [("name", ctypes.c_void_p), ("namelen", c_uint), ("iov", ctypes.POINTER(iovec)),
                        ("iovlen", ctypes.c_size_t), ("control", ctypes.c_void_p),
                        ("controllen", ctypes.c_size_t), ("flags", c_int)]
        data = ctypes.create_string_buffer(b"x", 1)
        iov = iovec(ctypes.cast(data, ctypes.c_void_p), 1)
        msg = msghdr(ctypes.cast(addr, ctypes.c_void_p), alen, ctypes.pointer(iov), 1, None, 0, 0)
        f = libc.sendmsg
        f.restype = ctypes.c_ssize_t
        ctypes.set_errno(0)
        return done(f(c_int(s.fileno()), ctypes.byref(msg), c_int(0)) == 1)
    if fn == "bind_unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        path = b(a[0])
        raw = struct.pack("=H", socket.AF_UNIX) + path + b"\0"
        buf = ctypes.create_string_buffer(raw, len(raw))
        return done(int_call("bind", c_int(s.fileno()), buf, c_uint(len(raw))) == 0)
    if fn == "getaddrinfo":
        res = ctypes.c_void_p()
        rc = int_call(fn, b(a[0]), None, None, ctypes.byref(res))
        if rc == 0:
            libc.freeaddrinfo(res)
            print("ok")
        else:
            print("fail gai %d" % rc)
        return None
    print("cprobe: unknown function " + fn, file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
