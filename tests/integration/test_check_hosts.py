"""`paldron check` with allow_hosts (network by name), run for real: the hosts a
command or a tool call names are judged by host and port (exit 0 / 2), and a
policy with a bad entry is an error naming the file and the line (exit 1)."""

import json

from harness import PaldronTest, Workspace, main

POLICY = """allow_network = false
allow_hosts = [
  "pypi.org",
  "files.pythonhosted.org",
  "github.com",
  "*.githubusercontent.com",
  "127.0.0.1:8080",
]
deny_hosts = ["evil.githubusercontent.com"]
"""


def bash(cmd):
    return ["--", "Bash", json.dumps({"command": cmd})]


class CheckHostsTest(PaldronTest):
    def setUp(self):
        self.ws = Workspace()
        self.addCleanup(self.ws.close)
        self.ws.write("src/a.txt", "hi")
        self.pol = self.ws.policy(POLICY)

    def check(self, args, policy=None):
        return self.ws.run(["check", "--policy", policy or self.pol] + args)

    # --- allowed hosts ----------------------------------------------------
    def test_allowed_hosts_are_allowed(self):
        for cmd in ("curl https://pypi.org/simple/",
                    "curl -fsSL https://raw.githubusercontent.com/a/b/main/README.md",
                    "curl http://127.0.0.1:8080/health",
                    "wget -qO- https://files.pythonhosted.org/packages/x.whl",
                    "git clone https://github.com/a/b src/b",
                    "pip install requests",
                    "npm install"):
            with self.subTest(cmd=cmd):
                r = self.check(bash(cmd))
                self.assertRun(r, 0, "paldron: allow Bash")
                self.assertEqual(r.err, "")

    # --- denied hosts -----------------------------------------------------
    def test_host_not_in_allow_hosts(self):
        r = self.check(bash("curl https://evil.test/x"))
        self.assertRun(r, 2, "paldron: deny: curl: https://evil.test/x: evil.test:443 "
                             "(not in allow_hosts) (add \"evil.test:443\" to allow_hosts)",
                       absent=("allow_network = true would",))
        self.assertEqual(r.out, "")

    def test_ports_are_part_of_the_entry(self):
        r = self.check(bash("curl http://pypi.org:8080/"))
        self.assertRun(r, 2, "curl: http://pypi.org:8080/: pypi.org:8080 (not in allow_hosts)",
                       "(add \"pypi.org:8080\" to allow_hosts)")
        r = self.check(bash("curl https://127.0.0.1/"))
        self.assertRun(r, 2, "127.0.0.1:443 (not in allow_hosts)")

    def test_wildcard_never_matches_the_apex(self):
        r = self.check(bash("curl https://githubusercontent.com/"))
        self.assertRun(r, 2, "githubusercontent.com:443 (not in allow_hosts)")

    def test_deny_hosts_wins(self):
        r = self.check(bash("curl https://evil.githubusercontent.com/x"))
        self.assertRun(r, 2, "evil.githubusercontent.com:443 (in deny_hosts)",
                       "(remove \"evil.githubusercontent.com\" from deny_hosts)")

    def test_git_remote_hosts(self):
        r = self.check(bash("git clone https://evil.test/a/b"))
        self.assertRun(r, 2, "paldron: deny: git clone: https://evil.test/a/b: evil.test:443 "
                             "(not in allow_hosts)")
        # git over ssh is port 22: "github.com" alone admits 80 and 443
        r = self.check(bash("git clone git@github.com:a/b.git"))
        self.assertRun(r, 2, "git clone: git@github.com:a/b.git: github.com:22 "
                             "(not in allow_hosts)", "(add \"github.com:22\" to allow_hosts)")
        other = self.ws.policy('allow_hosts = ["pypi.org"]\n')
        r = self.check(bash("git clone https://github.com/a/b"), policy=other)
        self.assertRun(r, 2, "git clone: https://github.com/a/b: github.com:443 "
                             "(not in allow_hosts)")

    def test_malformed_host_in_a_url(self):
        r = self.check(bash("curl https://2130706433/"))
        self.assertRun(r, 2, "curl: https://2130706433/: 2130706433:443 (malformed host)")

    def test_direct_sockets_stay_denied(self):
        r = self.check(bash("cat < /dev/tcp/pypi.org/443"))
        self.assertRun(r, 2, "paldron: deny: a redirection to /dev/tcp/pypi.org/443 opens a direct "
                             "network socket, which never reaches the run's proxy",
                       absent=("add \"",))

    def test_web_fetch_url_is_judged(self):
        r = self.check(["--", "WebFetch", json.dumps({"url": "https://pypi.org/project/x/",
                                                      "prompt": "x"})])
        self.assertRun(r, 0, "paldron: allow WebFetch")
        r = self.check(["--", "WebFetch", json.dumps({"url": "https://evil.test/?q=1",
                                                      "prompt": "x"})])
        self.assertRun(r, 2, "paldron: deny: WebFetch: https://evil.test/?q=1: evil.test:443 "
                             "(not in allow_hosts) (add \"evil.test:443\" to allow_hosts)")

    def test_json_output_names_the_rule(self):
        r = self.ws.run(["check", "--json", "--policy", self.pol] + bash("curl https://evil.test/"))
        self.assertEqual(r.code, 2, repr(r))
        o = json.loads(r.out)
        self.assertEqual(o["decision"], "deny")
        self.assertEqual(o["rule"], "allow_hosts")
        self.assertEqual(o["reason"], "not in allow_hosts")
        self.assertEqual(o["message"], "curl: https://evil.test/: evil.test:443 (not in allow_hosts)")
        self.assertEqual(o["advice"], "add \"evil.test:443\" to allow_hosts")

    def test_without_allow_hosts_the_network_is_off(self):
        off = self.ws.policy("allow_network = false\n")
        r = self.check(bash("curl https://pypi.org/simple/"), policy=off)
        self.assertRun(r, 2, "paldron: deny: curl needs the network (allow_network = false)")

    # --- bad policies: exit 1, file and line -------------------------------
    def test_bad_entries_name_file_and_line(self):
        cases = [
            ('allow_network = false\nallow_hosts = [\n  "pypi.org",\n  "*.com",\n]\n',
             "policy malformed: allow_hosts entry '*.com': a wildcard on a top-level domain "
             "matches every name under it", 2),
            ('# hosts\n\ndeny_hosts = ["*"]\n',
             "policy malformed: deny_hosts entry '*': '*' alone would allow every host", 3),
            ('allow_hosts = ["pypi.org:08"]\n',
             "policy malformed: allow_hosts entry 'pypi.org:08': port '08' has a leading zero", 1),
            ('allow_hosts = ["::1"]\n',
             "policy malformed: allow_hosts entry '::1': an IPv6 address must be bracketed", 1),
            ('allow_hosts = ["127.1"]\n',
             "policy malformed: allow_hosts entry '127.1': '127.1' is not an IPv4 address in "
             "dotted-quad form", 1),
            ('allow_hosts = ["b\\u00fccher.de"]\n',
             "policy malformed: allow_hosts entry 'b\u00fccher.de': non-ASCII name: write its "
             "punycode form xn--...", 1),
            ('allow_hosts = ["pypi.org"]\ntimeout_sec = 5\nallow_network = true\n',
             "policy malformed: allow_hosts needs allow_network = false (allow_network = true is "
             "direct, unfiltered access)", 3),
            ('timeout_sec = 5\nallow_hosts_without_namespace = true\n',
             "policy malformed: allow_hosts_without_namespace = true needs a non-empty allow_hosts",
             2),
        ]
        for text, msg, line in cases:
            with self.subTest(policy=text):
                pol = self.ws.policy(text)
                r = self.check(bash("ls"), policy=pol)
                self.assertRun(r, 1, "paldron: " + msg, "(%s:%d)" % (pol, line),
                               absent=("paldron: allow",))
                self.assertEqual(r.out, "")


if __name__ == "__main__":
    main()
