"""What both model-API stubs share: a scripted HTTP server on 127.0.0.1.

A stub is started by a test as its own process:
    python3 anthropic_stub.py --script S.json --log requests.jsonl --port-file P
It binds a random free port on 127.0.0.1, writes the port to --port-file once
it listens (the test waits for that file), and appends one JSON line per
request it receives to --log: {"method", "path", "body"} (body parsed as
JSON when it is JSON, else the raw text). The test reads that log to see
exactly what the model was sent - in particular the tool result - and to
prove that a secret never reached it.

The script (--script) is a JSON object the protocol module interprets: the one
tool call to answer first, and the final text to answer once the tool result
comes back. Python 3 standard library only.
"""

import argparse
import fcntl
import json
import os
import socket
import struct
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class StubHandler(BaseHTTPRequestHandler):
    """Logs every request, then hands it to the protocol's route()."""

    protocol_version = "HTTP/1.1"
    # set by serve()
    script = {}
    log_path = None
    log_lock = threading.Lock()

    def log_message(self, fmt, *args):
        # The request log is the record; keep stderr for real trouble.
        pass

    def _read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        encoding = self.headers.get("Content-Encoding")
        if encoding and encoding != "identity":
            # Neither client compresses requests to a custom base URL today;
            # if one starts to, the log says so instead of failing obscurely.
            return {"_undecoded_content_encoding": encoding}
        text = raw.decode("utf-8", "replace")
        try:
            return json.loads(text) if text else None
        except ValueError:
            return text

    def _record(self, body, note=None):
        entry = {"method": self.command, "path": self.path, "body": body}
        if note:
            entry["note"] = note
        with self.log_lock, open(self.log_path, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def do_GET(self):
        self._handle(None)

    def do_POST(self):
        self._handle(self._read_body())

    def do_HEAD(self):
        self._record(None, note="head")
        self.send_json(200, {})

    def _handle(self, body):
        try:
            note = self.route(body)
        except Exception as e:  # a stub bug must show in the log, not hang the client
            note = "stub error: %r" % (e,)
            try:
                self.send_json(500, {"error": {"type": "stub_error", "message": str(e)}})
            except OSError:
                pass
        self._record(body, note)

    def route(self, body):
        """Answer the request; return a short note for the log (or None)."""
        raise NotImplementedError

    # --- answers ------------------------------------------------------------
    def send_json(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_sse(self, events):
        """events: list of (event name or None, JSON-able data)."""
        chunks = []
        for name, data in events:
            text = ""
            if name:
                text += "event: %s\n" % name
            text += "data: %s\n\n" % (data if isinstance(data, str) else json.dumps(data))
            chunks.append(text)
        payload = "".join(chunks).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def unknown(self, body):
        """An endpoint the stub does not model: 404 in the API's error shape."""
        self.send_json(404, {"type": "error", "error": {
            "type": "not_found_error", "message": "stub: no such endpoint %s" % self.path}})
        return "unknown endpoint"


def loopback_up():
    """Bring `lo` up: a fresh network namespace (unshare -n) starts with it
    down, and the stub must not depend on iproute2 being installed."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifr = fcntl.ioctl(s, siocgifflags, struct.pack("16sH14x", b"lo", 0))
        flags = struct.unpack("16sH14x", ifr)[1]
        fcntl.ioctl(s, siocsifflags, struct.pack("16sH14x", b"lo", flags | iff_up))


def serve(handler_class, argv=None):
    ap = argparse.ArgumentParser(description=handler_class.__doc__)
    ap.add_argument("--script", required=True, help="JSON file: the tool call and final text")
    ap.add_argument("--log", required=True, help="JSON-lines file of every request")
    ap.add_argument("--port-file", required=True, help="written with the port once listening")
    ap.add_argument("--lo-up", action="store_true",
                    help="bring the loopback interface up first (in a new network namespace)")
    args = ap.parse_args(argv)
    if args.lo_up:
        loopback_up()
    with open(args.script) as f:
        handler_class.script = json.load(f)
    handler_class.log_path = args.log
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
    server.daemon_threads = True
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(tmp, args.port_file)  # the test never sees a half-written port
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit("stub_server.py is a library: run anthropic_stub.py or openai_stub.py")
