#!/usr/bin/env python3
"""bench/blob_server.py - the upstream of bench/net_bench.sh: an HTTP/1.1
server on 127.0.0.1 (a free port, printed on the first line of stdout) with
two paths:

  /blob   SIZE bytes of zeros, sent from one 4 MiB buffer in memory (the
          server costs next to nothing: no file, no copy in Python; here
          that is about twice the rate of os.sendfile from a sparse file),
          so that the rate measured is the client's and the relay's;
  /small  a 100-byte body, keep-alive (Connection: close when the client
          asks for it), for request-rate runs.

Usage: blob_server.py [SIZE]      (bytes, default 1 GiB; runs until killed)"""

import socket
import sys
import threading

SMALL = b"x" * 99 + b"\n"
CHUNK = memoryview(bytes(4 << 20))


def serve(conn, size):
    buf = b""
    with conn:
        while True:
            while b"\r\n\r\n" not in buf:
                part = conn.recv(65536)
                if not part:
                    return
                buf += part
            head, buf = buf.split(b"\r\n\r\n", 1)
            lines = head.split(b"\r\n")
            target = lines[0].split(b" ")[1] if len(lines[0].split(b" ")) > 1 else b"/"
            close = any(l.lower().startswith(b"connection:") and b"close" in l.lower()
                        for l in lines[1:]) or lines[0].endswith(b"HTTP/1.0")
            if target.endswith(b"/blob"):
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                             b"Content-Length: %d\r\n%s\r\n"
                             % (size, b"Connection: close\r\n" if close else b""))
                left = size
                while left > 0:
                    n = min(left, len(CHUNK))
                    conn.sendall(CHUNK[:n])
                    left -= n
            else:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                             b"Content-Length: %d\r\n%s\r\n%s"
                             % (len(SMALL), b"Connection: close\r\n" if close else b"", SMALL))
            if close:
                return


def main():
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 30
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(1024)
    print(s.getsockname()[1], flush=True)
    while True:
        conn, _ = s.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(conn, size), daemon=True).start()


if __name__ == "__main__":
    main()
