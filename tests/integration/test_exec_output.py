"""The output verdict of `paldron exec`: secrets in the captured output are
redacted before a byte is released and the run is denied; the remote jev
verdict is asked only about redacted text. Real runs as the unprivileged user,
a real HTTP stub on 127.0.0.1 for jev."""

import base64
import json
import os
import subprocess
import sys
import tempfile

from harness import SOURCE_DIR, main
from test_exec_result import ExecBase, example_policy

SECRET = "zq8Kp2mXv7Lr4Tn9Wc3Yb6Hd"
PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----\n"
       "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
       "QyNTUxOQAAACDk4N8fVxuq1ZPyDnrh7Km6EnUXqcS9yNqDQp7S1g5h5wAAAJg3Q8mSN0PJ\n"
       "-----END OPENSSH PRIVATE KEY-----\n")


class OutputTest(ExecBase):
    def setUp(self):
        super().setUp()
        self.ws.write(".env", "API_TOKEN=%s\n" % SECRET)

    def policy(self, extra=(), **keys):
        return example_policy(binaries=["sh", "python3", "cat", "env", "base64"] + list(extra),
                              **keys)

    def test_static_probe_reading_a_hard_link_to_the_secret(self):
        # a hard link under an innocent name: the argv gate and the live gate see
        # src/data.txt; only the output scan sees the value go by
        os.link(self.p(".env"), self.p("src/data.txt"))
        self.copy_probes()
        # the probes live in src/: allowed by absolute path
        pol = self.policy(self.probe_paths())
        for probe in ("src/probe", "src/probe_static"):
            r = self.exec(["sh", "-c", probe + " read-file src/data.txt"], policy=pol)
            self.assertRun(r, 2, "paldron: deny: output exposes a secret value from file",
                           "(known-value)", "[REDACTED:known-value]", absent=[SECRET])

    def test_credential_format_in_a_plain_file(self):
        self.ws.write("src/leak.txt", "token is %s\n" % ("sk-ant-api03-" + "Ab1" * 12))
        r = self.exec(["cat", "src/leak.txt"], policy=self.policy())
        self.assertRun(r, 2, "output exposes a credential (anthropic-key) [stdout]",
                       "[REDACTED:anthropic-key]", absent=["Ab1Ab1Ab1"])

    def test_inherited_variable_value(self):
        value = "Qm9sdC1zZWNyZXQtdmFsdWUtOTg3"
        self.ws.write("src/v.txt", value + "\n")
        r = self.exec(["cat", "src/v.txt"], policy=self.policy(), env={"DEPLOY_TOKEN": value})
        self.assertRun(r, 2, "output exposes a secret value from env DEPLOY_TOKEN (known-value)",
                       absent=[value])

    def test_secret_printed_base64_and_hex(self):
        os.link(self.p(".env"), self.p("src/data.txt"))
        r = self.exec(["sh", "-c", "base64 src/data.txt; python3 -c \"print(open('src/data.txt')"
                       ".read().encode().hex())\""], policy=self.policy())
        self.assertRun(r, 2, "(known-value-base64)", "(known-value-hex)",
                       absent=[base64.b64encode(SECRET.encode()).decode()[:16],
                               SECRET.encode().hex()[:16]])

    def test_private_key_printed(self):
        self.ws.write("src/k.txt", PEM)
        r = self.exec(["cat", "src/k.txt"], policy=self.policy())
        self.assertRun(r, 2, "output exposes a private key (private-key) [stdout]",
                       "[REDACTED:private-key]", absent=["b3BlbnNzaC1rZXkt"])

    def test_no_secret_output_unchanged(self):
        text = "plain output: 1.2.3 build ok\nsecond line\n"
        self.ws.write("src/ok.txt", text)
        r = self.exec(["cat", "src/ok.txt"], policy=self.policy())
        self.assertRun(r, 0, "[STDOUT]\n" + text, "[EXIT CODE] 0 (success)", absent=["REDACTED"])

    def test_scan_off_releases_output(self):
        self.ws.write("src/k.txt", PEM)
        r = self.exec(["cat", "src/k.txt"], policy=self.policy(output_scan=False))
        self.assertRun(r, 0, "BEGIN OPENSSH PRIVATE KEY")

    def test_extra_pattern_and_ignored_rule(self):
        self.ws.write("src/o.txt", "order ACME_ab12CD34ef56 and eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx"
                      "In0.sig_abc123\n")
        pol = self.policy() + ('output_patterns = ["acme: prefix=ACME_ class=[A-Za-z0-9] min=8"]\n'
                               'output_scan_ignore = ["jwt"]\n')
        r = self.exec(["cat", "src/o.txt"], policy=pol)
        self.assertRun(r, 2, "[REDACTED:acme]", "output_patterns 'acme'", "eyJhbGciOiJIUzI1NiJ9",
                       absent=["ab12CD34ef56"])

    def test_bad_extra_pattern_is_an_error_before_the_run(self):
        pol = self.policy() + 'output_patterns = ["acme: ab"]\n'
        r = self.exec(["sh", "-c", "touch src/ran"], policy=pol)
        self.assertRun(r, 1, "policy output_patterns entry 'acme: ab'")
        self.assertFalse(self.ws.exists("src/ran"))


class JevTest(ExecBase):
    """The remote verdict against a real HTTP stub on 127.0.0.1."""

    def stub(self, *args):
        log = tempfile.NamedTemporaryFile(delete=False, suffix=".jsonl").name
        p = subprocess.Popen([sys.executable, os.path.join(SOURCE_DIR, "tests", "jev_stub.py"),
                              "--log", log] + list(args), stdout=subprocess.PIPE)
        port = int(p.stdout.readline().decode().strip())
        self.addCleanup(p.kill)
        self.addCleanup(os.unlink, log)
        return "http://127.0.0.1:%d/" % port, log

    def test_sends_only_redacted_output_and_denies_over_threshold(self):
        url, log = self.stub("--answer", "0.1,0.95")
        self.ws.write("src/k.txt", "key " + "ghp_" + "a1B2" * 9 + "\n")
        pol = example_policy(binaries=["cat"], jev_verdict=True, output_scan=False)
        r = self.exec(["cat", "src/k.txt"], policy=pol,
                      env={"JEV_API_KEY": "test-key", "JEV_API_URL": url})
        self.assertRun(r, 2, "paldron: deny: jev verdict: output shows hostile action (p=0.95)")
        with open(log) as f:
            body = json.loads(f.readline())["body"]
        self.assertIn("[REDACTED:github-token]", body["state"]["stdout"])
        self.assertNotIn("a1B2a1B2", json.dumps(body))

    def test_unavailable_fails_closed(self):
        pol = example_policy(binaries=["cat"], jev_verdict=True)
        self.ws.write("src/a.txt", "x\n")
        r = self.exec(["cat", "src/a.txt"], policy=pol,
                      env={"JEV_API_KEY": "k", "JEV_API_URL": "http://127.0.0.1:1/"})
        self.assertRun(r, 2, "paldron: deny: jev verdict unavailable: jev: request failed")


if __name__ == "__main__":
    main()
