"""`paldron check`, `schema`, `version` and the CLI surface, run for real."""

import json
import os

from harness import PaldronTest, Workspace, README_POLICY, main


def call(tool, args):
    return ["--", tool, json.dumps(args)]


class CheckTest(PaldronTest):
    def setUp(self):
        self.ws = Workspace()
        self.addCleanup(self.ws.close)
        self.ws.write("src/a.txt", "hi")
        self.pol = self.ws.policy(README_POLICY)

    def check(self, tool, args, policy=True):
        pre = ["check"] + (["--policy", self.pol] if policy else [])
        return self.ws.run(pre + call(tool, args))

    def p(self, rel):
        return os.path.join(self.ws.path, rel)

    # --- allow -------------------------------------------------------------
    def test_allow_read_in_allow_paths(self):
        r = self.check("read_file", {"path": self.p("src/a.txt")})
        self.assertRun(r, 0, "paldron: allow read_file")
        self.assertEqual(r.err, "")

    def test_write_with_prose_content_is_allowed(self):
        # the original took "hello world" for a path and denied it
        r = self.check("write_file", {"path": self.p("src/b.txt"), "content": "hello world. v1.2 a.b"})
        self.assertRun(r, 0, "paldron: allow write_file")

    # --- secrets and deny globs ------------------------------------------
    def test_builtin_secret_without_policy(self):
        r = self.check("read_file", {"path": self.p(".env")}, policy=False)
        self.assertRun(r, 2, "paldron: deny: ", ".env (secret)", "built-in secret: .env")

    def test_deny_glob_reason_and_rule(self):
        r = self.check("read_file", {"path": self.p("src/k.pem")})
        self.assertRun(r, 2, "k.pem (policy deny_glob)", "deny_globs: *.pem")

    def test_secret_is_case_insensitive(self):
        r = self.check("read_file", {"path": self.p("src/.ENV")})
        self.assertRun(r, 2, ".ENV (policy deny_glob)")

    def test_new_builtin_secrets(self):
        for name in ["src/server.key", "src/id_rsa", "src/.npmrc", "src/cert.p12", "src/.git-credentials"]:
            r = self.check("read_file", {"path": self.p(name)})
            self.assertRun(r, 2, "(secret)")

    def test_home_secret_via_tilde(self):
        r = self.ws.run(["check", "--", "list_dir", json.dumps({"path": "~/.aws/credentials"})])
        self.assertRun(r, 2, "~/.aws/credentials (secret)", "~/.aws/**")

    def test_symlink_to_secret_is_judged_as_target(self):
        os.symlink("../.env", self.p("src/link"))
        r = self.check("read_file", {"path": self.p("src/link")})
        self.assertRun(r, 2, "(policy deny_glob)", "resolved .env")

    # --- scope -------------------------------------------------------------
    def test_outside_allow_paths(self):
        r = self.check("write_file", {"path": self.p("notes.txt"), "content": "x"})
        self.assertRun(r, 2, "notes.txt (outside allow_paths)", "allow_paths: src/, docs/")

    def test_outside_workspace_absolute(self):
        # issue 14: named paths are reads; /usr is a system folder, readable
        r = self.check("read_file", {"path": "/usr/share/doc"})
        self.assertRun(r, 0, "paldron: allow read_file")
        # a folder outside the workspace and the system folders is not
        out = os.path.join(self.ws.outside, "x.txt")
        r = self.check("read_file", {"path": out})
        self.assertRun(r, 2, "%s (outside workspace)" % out,
                       "[readable: the workspace %s, the system folders]" % self.ws.path,
                       '(add "%s" to read_paths)' % self.ws.outside)

    def test_symlink_escape_is_outside_workspace(self):
        os.symlink(self.ws.outside, self.p("src/out"))
        r = self.check("edit_file", {"path": self.p("src/out/x"), "old_text": "a", "new_text": "b"})
        self.assertRun(r, 2, "src/out/x (outside workspace)", "resolved %s/x" % self.ws.outside)

    def test_protected_git_hook_write(self):
        pol = self.ws.policy('deny_globs = [".env"]\n')
        r = self.ws.run(["check", "--policy", pol] + call(
            "write_file", {"path": self.p(".git/hooks/pre-commit"), "content": "x"}))
        self.assertRun(r, 2, "(protected)", "protected_paths: .git/hooks/**")

    def test_protected_paths_key_extends_list(self):
        # issue 14: protected_paths extends the built-in list (it replaced it)
        pol = self.ws.policy('protected_paths = ["Makefile"]\n')
        r = self.ws.run(["check", "--policy", pol] + call(
            "write_file", {"path": self.p(".git/hooks/pre-commit"), "content": "x"}))
        self.assertRun(r, 2, "(protected)", "protected_paths: .git/hooks/**")
        r = self.ws.run(["check", "--policy", pol] + call(
            "write_file", {"path": self.p("sub/Makefile"), "content": "x"}))
        self.assertRun(r, 2, "(protected)", "protected_paths: Makefile")
        # unprotect_paths removes a built-in entry, with a warning
        pol = self.ws.policy('protected_paths = ["Makefile"]\nunprotect_paths = [".git/hooks/**"]\n')
        r = self.ws.run(["check", "--policy", pol] + call(
            "write_file", {"path": self.p(".git/hooks/pre-commit"), "content": "x"}))
        self.assertRun(r, 0, "paldron: allow write_file",
                       "paldron: warning: unprotect_paths removes the built-in protection of "
                       ".git/hooks/** (%s)" % pol)
        r = self.ws.run(["check", "--policy", pol] + call(
            "write_file", {"path": self.p("sub/Makefile"), "content": "x"}))
        self.assertRun(r, 2, "(protected)", "protected_paths: Makefile")

    def test_policy_file_itself_is_protected(self):
        pol = self.ws.write("policy.toml", "allow_network = false\n")
        r = self.ws.run(["check", "--policy", pol] + call(
            "write_file", {"path": pol, "content": "allow_network = true"}))
        self.assertRun(r, 2, "(protected)", "the policy file in use")

    def test_nested_values_are_inspected(self):
        r = self.ws.run(["check", "--", "mcp__fs__copy",
                         json.dumps({"opts": {"files": ["src/ok.txt", ".env"]}})])
        self.assertRun(r, 2, ".env (secret)")

    # --- tool rules ----------------------------------------------------------
    def test_execute_code_quotes_respected(self):
        r = self.ws.run(["check", "--", "execute_code",
                         json.dumps({"command": "echo 'a; b' \"x|y\"", "dir": self.ws.path})])
        self.assertRun(r, 0, "paldron: allow execute_code")

    def test_execute_code_redirect_refused(self):
        r = self.ws.run(["check", "--", "execute_code",
                         json.dumps({"command": "echo hi > out.txt", "dir": self.ws.path})])
        self.assertRun(r, 2, "execute_code command contains unsafe shell operator '>'")

    def test_execute_code_binary_gate(self):
        r = self.check("execute_code", {"command": "node x.js", "dir": self.ws.path})
        self.assertRun(r, 2, "binary 'node' not in allow_binaries")

    def test_network_tool_denied(self):
        r = self.check("web_search", {"query": "x"})
        self.assertRun(r, 2, "tool 'web_search' needs network access (disabled in config)")

    def test_schema_errors(self):
        r = self.check("read_file", {})
        self.assertRun(r, 2, "missing required argument 'path' for tool 'read_file'")
        r = self.check("read_file", {"path": self.p("src/a.txt"), "extra": 1})
        self.assertRun(r, 2, "unknown argument 'extra' for tool 'read_file'")

    def test_relative_path_rule(self):
        r = self.check("write_file", {"path": "src/a.txt", "content": "x"})
        self.assertRun(r, 2, "tool 'write_file' requires an absolute path")

    def test_json_output(self):
        r = self.ws.run(["check", "--policy", self.pol, "--json", "--", "read_file",
                         json.dumps({"path": self.p("src/x.pem")})])
        self.assertEqual(r.code, 2, repr(r))
        doc = json.loads(r.out)
        self.assertEqual(doc["decision"], "deny")
        self.assertEqual(doc["reason"], "policy deny_glob")
        self.assertEqual(doc["rule"], "deny_globs")
        self.assertEqual(doc["pattern"], "*.pem")
        self.assertTrue(doc["resolved_path"].endswith("/src/x.pem"))
        r = self.ws.run(["check", "--json", "--", "read_file", json.dumps({"path": self.p("a")})])
        self.assertRun(r, 0)
        self.assertEqual(json.loads(r.out)["decision"], "allow")

    # --- broken input ------------------------------------------------------
    def test_bad_json(self):
        r = self.ws.run(["check", "--", "read_file", "{not json"])
        self.assertRun(r, 1, "paldron: bad JSON args:")
        r = self.ws.run(["check", "--", "read_file", "[1,2]"])
        self.assertRun(r, 1, "paldron: bad JSON args: expected a JSON object")

    def test_policy_errors_name_file_and_line(self):
        pol = self.ws.policy('allow_paths = ["src/"]\n\nbogus = 1\n')
        r = self.ws.run(["check", "--policy", pol, "--", "read_file", "{}"])
        self.assertRun(r, 1, "paldron: policy unknown key: bogus (%s:3)" % pol)
        pol = self.ws.policy('deny_globs = [\n  ".env",\n  "*.pem"\n')
        r = self.ws.run(["check", "--policy", pol, "--", "read_file", "{}"])
        self.assertRun(r, 1, "paldron: policy malformed:", "(%s:1)" % pol)
        pol = self.ws.policy('timeout_sec = -5\n')
        r = self.ws.run(["check", "--policy", pol, "--", "read_file", "{}"])
        self.assertRun(r, 1, "policy timeout_sec must be between 1 and 604800", ":1)")
        pol = self.ws.policy('max_memory_mb = 99999999999999\n')
        r = self.ws.run(["check", "--policy", pol, "--", "read_file", "{}"])
        self.assertRun(r, 1, "policy max_memory_mb must be between")
        pol = self.ws.policy('jev_threshold = 0\n')
        r = self.ws.run(["check", "--policy", pol, "--", "read_file", "{}"])
        self.assertRun(r, 1, "policy jev_threshold must be between 0 and 1")

    def test_policy_not_found_and_unreadable(self):
        r = self.ws.run(["check", "--policy", self.p("missing.toml"), "--", "read_file", "{}"])
        self.assertRun(r, 1, "paldron: policy file not found: ")
        r = self.ws.run(["check", "--policy", self.ws.path, "--", "read_file", "{}"])
        self.assertRun(r, 1, "paldron: policy unreadable: ", "Is a directory")

    def test_long_lines_are_not_cut(self):
        globs = ", ".join('"dir%03d/**"' % i for i in range(60)) + ', ".very-long-secret-name"'
        pol = self.ws.policy("deny_globs = [%s]\n" % globs)
        self.assertGreater(len(globs), 600)
        r = self.ws.run(["check", "--policy", pol] + call("read_file", {"path": self.p(".very-long-secret-name")}))
        self.assertRun(r, 2, "(policy deny_glob)", "deny_globs: .very-long-secret-name")

    def test_empty_policy_flag_is_an_error(self):
        r = self.ws.run(["check", "--policy=", "--", "read_file", "{}"])
        self.assertRun(r, 1, "paldron: --policy needs a file")

    def test_usage(self):
        r = self.ws.run(["check"])
        self.assertRun(r, 1, "paldron: usage: paldron check")
        r = self.ws.run(["check", "--bogus", "--", "read_file", "{}"])
        self.assertRun(r, 1, "unknown option '--bogus' for check")


class CliTest(PaldronTest):
    def setUp(self):
        self.ws = Workspace()
        self.addCleanup(self.ws.close)

    def test_schema_exact_bytes(self):
        r = self.ws.run(["schema", "--tool", "read_file"])
        expected = ('{\n  "name": "read_file",\n  "description": "Read file contents from an allowed '
                    'directory",\n  "parameters": {\n    "type": "object",\n    "properties": {\n'
                    '      "path": {\n        "type": "string",\n        "description": "Absolute '
                    'path to the file"\n      }\n    },\n    "required": [\n      "path"\n    ],\n'
                    '    "additionalProperties": false\n  },\n  "args_schema": ""\n}\n')
        self.assertEqual(r.code, 0, repr(r))
        self.assertEqual(r.out, expected)

    def test_schema_list_and_unknown(self):
        r = self.ws.run(["schema", "--list"])
        self.assertRun(r, 0)
        self.assertEqual(r.out.split(), ["read_file", "write_file", "edit_file", "list_dir", "execute_code"])
        r = self.ws.run(["schema", "--tool", "nope"])
        self.assertRun(r, 1, "paldron: unknown tool 'nope'")

    def test_version_does_not_load_policy(self):
        r = self.ws.run(["version", "--policy", "/nonexistent.toml"])
        self.assertRun(r, 0, "paldron ")

    def test_help(self):
        r = self.ws.run(["--help"])
        self.assertRun(r, 0, "policy gate and sandboxed exec")
        for sub in ["check", "exec", "schema", "version"]:
            r = self.ws.run([sub, "--help"])
            self.assertRun(r, 0, "usage: paldron %s" % sub)
        r = self.ws.run([])
        self.assertRun(r, 1, "paldron — policy gate and sandboxed exec")


if __name__ == "__main__":
    main()
