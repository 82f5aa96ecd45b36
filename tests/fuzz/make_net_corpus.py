#!/usr/bin/env python3
"""tests/fuzz/make_net_corpus.py - writes the seed corpora of the network
protocol fuzzers (tests/fuzz/fuzz_net_*.c): a few valid messages each, as
real clients send them (curl, glibc, dig). Run from anywhere; it rewrites
tests/fuzz/corpus/net_{http,socks,dns}/."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(sub, name, data):
    d = os.path.join(HERE, "corpus", sub)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---- HTTP proxy heads (curl 7.88 -x / -p) ----
write("net_http", "connect_curl",
      b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n"
      b"User-Agent: curl/7.88.1\r\nProxy-Connection: Keep-Alive\r\n\r\n")
write("net_http", "connect_ipv6_pipelined",
      b"CONNECT [2001:db8::1]:8443 HTTP/1.1\r\nHost: [2001:db8::1]:8443\r\n\r\n"
      b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
write("net_http", "get_absolute_curl",
      b"GET http://example.com/path?q=1 HTTP/1.1\r\nHost: example.com\r\n"
      b"Proxy-Authorization: Basic dTpzZWNyZXQ=\r\nUser-Agent: curl/7.88.1\r\n"
      b"Accept: */*\r\nProxy-Connection: Keep-Alive\r\n\r\n")
write("net_http", "post_hop_headers",
      b"POST http://api.example.com:8080/v1 HTTP/1.1\r\nConnection: keep-alive, X-Hop\r\n"
      b"X-Hop: 1\r\nKeep-Alive: timeout=5\r\nContent-Length: 2\r\n\r\n{}")
write("net_http", "get_lf_http10", b"GET http://[::1] HTTP/1.0\nAccept: */*\n\n")


# ---- SOCKS5: greeting, request, early tunnel data (curl --socks5[-hostname]) ----
def socks_req(atyp, addr, port):
    body = bytes([5, 1, 0, atyp])
    if atyp == 3:
        body += bytes([len(addr)])
    return body + addr + struct.pack(">H", port)


write("net_socks", "domain", b"\x05\x01\x00" + socks_req(3, b"example.com", 443) + b"\x16\x03\x01")
write("net_socks", "ipv4", b"\x05\x02\x00\x02" + socks_req(1, bytes([93, 184, 216, 34]), 80))
write("net_socks", "ipv6", b"\x05\x01\x00" + socks_req(4, bytes(15) + b"\x01", 8443))
write("net_socks", "bind_refused", b"\x05\x01\x00\x05\x02\x00\x01\x7f\x00\x00\x01\x00\x50")


# ---- DNS queries ----
def name(n):
    out = b""
    for label in n.split(".") if n else []:
        out += bytes([len(label)]) + label.encode()
    return out + b"\x00"


def query(qid, flags, qname, qtype, opt=b""):
    ar = 1 if opt else 0
    return struct.pack(">HHHHHH", qid, flags, 1, 0, 0, ar) + name(qname) + \
        struct.pack(">HH", qtype, 1) + opt


cookie = b"\x00" + struct.pack(">HHIH", 41, 1232, 0, 12) + struct.pack(">HH", 10, 8) + bytes(range(8))
write("net_dns", "glibc_a", query(0x3072, 0x0100, "Example.COM", 1))
write("net_dns", "dig_aaaa_edns_cookie", query(0xBEEF, 0x0120, "github.com", 28, cookie))
write("net_dns", "glibc_edns0_https", query(7, 0x0100, "pypi.org", 65,
                                            b"\x00" + struct.pack(">HHIH", 41, 1200, 0, 0)))
write("net_dns", "root_ns", query(9, 0x0100, "", 2))
write("net_dns", "tcp_two_queries",
      struct.pack(">H", len(query(1, 0x0100, "a.example", 1))) + query(1, 0x0100, "a.example", 1) +
      struct.pack(">H", len(query(2, 0x0100, "a.example", 28))) + query(2, 0x0100, "a.example", 28))
