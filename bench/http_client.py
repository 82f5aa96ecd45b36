#!/usr/bin/env python3
"""bench/http_client.py - the client of bench/net_bench.sh: N small HTTP
requests (GET /small of bench/blob_server.py) one after the other, and the
time they took in ms (the program's start is not counted).

Usage: http_client.py MODE PORT [N]
  keep-direct      one connection to 127.0.0.1:PORT, N requests on it
  keep-connect     one CONNECT tunnel through $HTTPS_PROXY, N requests in it
  new-direct       a connection per request (Connection: close)
  new-absolute     a connection to $HTTPS_PROXY per request, absolute form
  new-connect      a CONNECT tunnel per request

Prints "MODE N requests MS ms"."""

import os
import socket
import sys
import time


def proxy():
    url = os.environ.get("HTTPS_PROXY", "")
    host, port = url.split("://", 1)[-1].rstrip("/").rsplit(":", 1)
    return host, int(port)


def dial(addr):
    s = socket.create_connection(addr)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def read_head(s, buf):
    while b"\r\n\r\n" not in buf:
        part = s.recv(65536)
        if not part:
            raise SystemExit("connection closed before a response head")
        buf += part
    head, rest = buf.split(b"\r\n\r\n", 1)
    return head, rest


def response(s, buf=b""):
    """One response with Content-Length: its body, and what came after it."""
    head, rest = read_head(s, buf)
    if b" 200 " not in head.split(b"\r\n", 1)[0]:
        raise SystemExit("not a 200: %r" % head[:200])
    n = 0
    for line in head.split(b"\r\n")[1:]:
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":", 1)[1])
    while len(rest) < n:
        part = s.recv(65536)
        if not part:
            raise SystemExit("short body")
        rest += part
    return rest[:n], rest[n:]


def tunnel(target):
    s = dial(proxy())
    s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target, target))
    head, rest = read_head(s, b"")
    if b" 200 " not in head.split(b"\r\n", 1)[0]:
        raise SystemExit("CONNECT refused: %r" % head[:200])
    return s, rest


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    target = b"127.0.0.1:%d" % port
    get = b"GET /small HTTP/1.1\r\nHost: %s\r\n\r\n" % target
    get_close = b"GET /small HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % target
    absolute = (b"GET http://%s/small HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
                % (target, target))
    t0 = time.perf_counter()
    if mode.startswith("keep-"):
        if mode == "keep-direct":
            s, rest = dial(("127.0.0.1", port)), b""
        else:
            s, rest = tunnel(target)
        for _ in range(n):
            s.sendall(get)
            _, rest = response(s, rest)
        s.close()
    else:
        for _ in range(n):
            if mode == "new-direct":
                s, rest = dial(("127.0.0.1", port)), b""
                s.sendall(get_close)
            elif mode == "new-absolute":
                s, rest = dial(proxy()), b""
                s.sendall(absolute)
            elif mode == "new-connect":
                s, rest = tunnel(target)
                s.sendall(get_close)
            else:
                raise SystemExit("unknown mode %s" % mode)
            response(s, rest)
            s.close()
    ms = (time.perf_counter() - t0) * 1000
    print("%s %d requests %.1f ms" % (mode, n, ms))


if __name__ == "__main__":
    main()
