#!/usr/bin/python3
"""tests/jev_stub.py - a loopback stand-in for the jev verdict endpoint.

Listens on 127.0.0.1 with a port chosen by the OS, prints that port on one
line of stdout, then answers every request until it is killed:

  --answer S,H    200 with {"answers":{"secret_exposure":{"noul":S},
                  "hostile_action":{"noul":H}}}; S and H are put into the JSON
                  as written, so "1.5", "-0.1" or "\"0.9\"" test bad values
                  (the default is --answer 0,0)
  --status N      answer with HTTP status N (body: the answer, or --body)
  --body TEXT     answer with this raw body instead of the answer object
  --pad N         add a field of N bytes to the answer object (size tests)
  --sleep SEC     wait SEC seconds (a float) before answering
  --log FILE      append one JSON line per request: method, path, headers
                  (names in lower case), raw (the body as text) and body
                  (the body parsed as JSON, or null)
  --tls CERT KEY  speak HTTPS with this certificate and key (PEM files)

The request is logged before the stub sleeps or answers, so a client that has
received an answer (or given up) can read its request from the log.

Used by tests/unit/test_jev.c; standard library only.
"""

import argparse
import http.server
import json
import sys
import time


def parse_args(argv):
    ap = argparse.ArgumentParser(description="jev verdict endpoint stub")
    ap.add_argument("--answer", default="0,0")
    ap.add_argument("--status", type=int, default=200)
    ap.add_argument("--body")
    ap.add_argument("--pad", type=int, default=0)
    ap.add_argument("--sleep", type=float, default=0.0)
    ap.add_argument("--log")
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    return ap.parse_args(argv)


def make_body(args):
    if args.body is not None:
        return args.body.encode("utf-8")
    secret, _, hostile = args.answer.partition(",")
    text = ('{"answers":{"secret_exposure":{"noul":%s},"hostile_action":{"noul":%s}}'
            % (secret, hostile))
    if args.pad > 0:
        text += ',"pad":"' + "x" * args.pad + '"'
    return (text + "}").encode("utf-8")


class Handler(http.server.BaseHTTPRequestHandler):
    args = None

    def log_message(self, format, *args):  # keep the test output quiet
        pass

    def record(self, raw):
        if self.args.log is None:
            return
        text = raw.decode("utf-8", errors="backslashreplace")
        try:
            body = json.loads(text)
        except ValueError:
            body = None
        entry = {
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "raw": text,
            "body": body,
        }
        with open(self.args.log, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")

    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        self.record(raw)
        if self.args.sleep > 0:
            time.sleep(self.args.sleep)
        body = make_body(self.args)
        try:
            self.send_response(self.args.status)
            if 300 <= self.args.status < 400:
                self.send_header("Location", "/redirected")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout tests)

    do_POST = answer
    do_GET = answer
    do_PUT = answer


class Server(http.server.HTTPServer):
    def handle_error(self, request, client_address):
        pass  # a client that hung up is not the stub's problem


def main(argv):
    args = parse_args(argv)
    Handler.args = args
    server = Server(("127.0.0.1", 0), Handler)
    if args.tls is not None:
        import ssl  # only here: the import costs a noticeable start-up time

        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls[0], args.tls[1])
        # a failed handshake surfaces as an OSError in accept(), which the
        # server ignores; the request is then never logged
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
