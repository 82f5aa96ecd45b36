#!/usr/bin/env python3
"""tests/fuzz/make_corpus.py - writes the seed corpora and dictionaries of every
fuzz target in tests/fuzz (the network ones through make_net_corpus.py, run
first). Seeds are real inputs: the policies of examples/ and of
tests/data/hook_payloads.json, the hook payloads of that table as the
integration tests send them, the commands of tests/data/shell_commands.tsv,
the cases of tests/data/glob_cases.tsv, records made by the real
pd_report_encode (policy/report.c, compiled here with cc), secrets and tokens
as the output-scan unit tests use them. A handful per target (under 50 files,
200 KB): the fuzzer finds the rest.

Run from anywhere: python3 tests/fuzz/make_corpus.py. It rewrites
tests/fuzz/corpus/<name>/ for policy path glob report shell tool hook outscan
(keeping the regression inputs listed in KEEP) and tests/fuzz/<name>.dict."""
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, "corpus")

# Inputs that once crashed a target (see each target's regression unit test):
# kept when the corpus is rewritten.
KEEP = {
    "outscan": ["unterminated-quote", "slack-prefix-cut"],
    "hook": ["mcp-long-name"],
}


def reset(sub):
    d = os.path.join(CORPUS, sub)
    keep = {}
    for name in KEEP.get(sub, []):
        p = os.path.join(d, name)
        if os.path.exists(p):
            with open(p, "rb") as f:
                keep[name] = f.read()
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for name, data in keep.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


def write(sub, name, data):
    if isinstance(data, str):
        data = data.encode()
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:60]
    with open(os.path.join(CORPUS, sub, name), "wb") as f:
        f.write(data)


def write_dict(name, entries):
    """A libFuzzer dictionary: one quoted entry a line, escaped as it asks."""
    seen = []
    for e in entries:
        if isinstance(e, str):
            e = e.encode()
        if e and e not in seen:
            seen.append(e)
    with open(os.path.join(HERE, name + ".dict"), "w") as f:
        f.write("# libFuzzer dictionary for tests/fuzz/fuzz_%s.c, written by make_corpus.py\n" % name)
        for e in seen:
            out = ""
            for b in e:
                c = chr(b)
                out += "\\" + c if c in '"\\' else c if 0x20 <= b < 0x7f else "\\x%02x" % b
            f.write('"%s"\n' % out)


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def spread(items, n):
    """n items taken evenly through the list, in order."""
    if len(items) <= n:
        return list(items)
    return [items[i * len(items) // n] for i in range(n)]


def c_array(src, name):
    """The string literals of `static const char *const name[] = {...};` in C source."""
    m = re.search(r"\b%s\[\]\s*=\s*\{(.*?)\};" % re.escape(name), src, re.S)
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    return [json.loads('"%s"' % s) for s in re.findall(r'"((?:[^"\\]|\\.)*)"', body)]


HOOKS = json.loads(read("tests/data/hook_payloads.json"))
WS = "/home/dev/project"
SUBS = {"@P@": WS, "@OUT@": "/home/dev/outside", "@HOME@": "/home/dev", "@PORT@": "8080",
        "@CWD@": WS}


def substitute(x):
    if isinstance(x, str):
        for k, v in SUBS.items():
            x = x.replace(k, v)
        return x
    if isinstance(x, list):
        return [substitute(v) for v in x]
    if isinstance(x, dict):
        return {k: substitute(v) for k, v in x.items()}
    return x


def payload(row):
    """The stdin of `paldron check --hook` for a row (tests/integration/test_hook_table.py)."""
    if "raw" in row:
        return substitute(row["raw"])
    cwd = WS + ("/" + row["cwd"].rstrip("/") if row.get("cwd") else "")
    d = {"session_id": "8f1c2a7e-1d3b-4c55-9a0e-3b6f0d1e2a44"}
    if row["client"] == "codex":
        d.update(session_id="019a7c3e-codex-session", turn_id="turn-3", transcript_path=None,
                 cwd=cwd, hook_event_name="PreToolUse", model="gpt-5-codex",
                 permission_mode="bypassPermissions", tool_name=row["tool_name"],
                 tool_input=substitute(row.get("tool_input")), tool_use_id="call_7Qx2")
    else:
        d.update(transcript_path="/home/dev/.claude/projects/p/8f1c2a7e.jsonl", cwd=cwd,
                 permission_mode="bypassPermissions", hook_event_name="PreToolUse",
                 tool_name=row["tool_name"], tool_input=substitute(row.get("tool_input")),
                 tool_use_id="toolu_01ABCDEF")
    return json.dumps(d)


def pick_rows(n_shell, n_other):
    """Every non-shell tool of the table once or more, and shell rows of every class."""
    rows = HOOKS["rows"]
    other = [r for r in rows if r.get("tool_name") not in ("Bash",) and "raw" not in r]
    shell = [r for r in rows if r.get("tool_name") == "Bash"]
    by_class = {}
    for r in shell:
        by_class.setdefault(r.get("class"), []).append(r)
    picked = []
    while len(picked) < n_shell and any(by_class.values()):
        for c in sorted(by_class, key=str):
            if by_class[c] and len(picked) < n_shell:
                picked.append(by_class[c].pop(0))
    return spread(other, n_other) + picked


# ---- policy --------------------------------------------------------------------------------
def policies():
    reset("policy")
    for rel in ["examples/paldron.toml", "examples/wrap-claude-code.toml",
                "examples/wrap-codex.toml", "examples/paldron-exec/policy.toml",
                "examples/paldron-exec/policy.mac.toml"]:
        if os.path.exists(os.path.join(ROOT, rel)):
            write("policy", rel.replace("/", "_"), read(rel))
    for name, lines in HOOKS["policies"].items():
        write("policy", "hook_" + name, "\n".join(lines) + "\n")
    # every key once, with the forms the loader reads (docs/policy.md)
    write("policy", "every_key", """# every key
allow_paths = ["src/", "tests/", "~/cache/", "/tmp/build"]
read_paths = ["~/datasets/", "../shared/"]
deny_globs = [".env", ".env.*", "*.pem", "**/secrets/**", "/etc/shadow", "~/.aws/"]
allow_network = false
allow_hosts = ["pypi.org", "*.pythonhosted.org", "github.com:443", "[::1]:8080", "127.0.0.1"]
deny_hosts = ["evil.example.com"]
allow_hosts_without_namespace = true
allow_binaries = ["@python", "@coreutils", "git", "./bin/app", "~/bin/tool", "/usr/bin/make"]
require_os_isolation = true
namespaces = true
require_namespaces = false
allow_unix_sockets = ["/run/user/1000/bus"]
timeout_sec = 120
max_processes = 512
max_memory_mb = "unlimited"
max_open_files = 2048
cpu_time_sec = 300
max_file_size_mb = 100
jev_verdict = false
jev_threshold = 0.85
jev_on_error = "allow"
protected_paths = ["Makefile", "ci/**"]
unprotect_paths = [".vscode/"]
allow_secrets = [".env.example"]
output_scan = true
output_patterns = ["acme: prefix=ACME_ class=[A-Za-z0-9] min=20 max=40", "order: ORD-####-*"]
output_scan_ignore = ["jwt"]
keep_background = false
strict = true
env_pass = ["GITHUB_TOKEN", "CI_*"]
hook_route = true
env_drop = ["AWS_*"]
""")
    write("policy", "toml_forms", """# comments, literal strings, escapes, multi-line arrays
allow_paths = [
  'src/',   # literal
  "docs/\\u00e9t\\u00e9/",
  "build\\\\out/",
]
deny_globs = ["a[bc]d", "x?y", "\\\\*.key",]
timeout_sec = 1_000
jev_threshold = 1
max_memory_mb = -1
""")
    write("policy", "errors", 'bogus = 1\ntimeout_sec = "ten"\ndeny_globs = ["../x", "[a"]\n')
    keys = re.findall(r"^PD_KEY_[A-Z]+\((\w+)", read("policy/policy_keys.def"), re.M)
    write_dict("policy", keys + [" = ", "[", "]", "\"", "'", "\"\"\"", "'''", "#", ",", "\n",
                                 "true", "false", "\"unlimited\"", "\\u", "\\U", "\\\\", "[\"",
                                 "\"]", "@python", "@coreutils", "~/", "**/", "*.pem", "0x",
                                 "1e3", "inf", "nan", "-1", "\"deny\"", "\"allow\"", "[section]"])


# ---- path ----------------------------------------------------------------------------------
def paths():
    reset("path")
    # first byte: % 5 the base (ws, ws/a/b/c, a missing folder, /, the tree root),
    # >> 3 % 24 the size of the short buffer of the clean call
    cases = [
        (0, "src/main.c"), (0, "src/envlink"), (0, "./src/../.env"), (0, "a/up/a/self/b/file"),
        (1, "../../up/up/x"), (0, "a/abs/c/../file"), (0, "a/root/etc/passwd"),
        (0, "a/dangling"), (0, "a/loop1/x"), (0, "a/chain"), (0, "a/filedir/more/.."),
        (0, "a/dots/../c"), (2, "x/./y//z/"), (2, "deeper/more/../x"), (3, "~/ws/.env"),
        (3, "~"), (4, "ws/out/notes.txt"), (1, "../../../../../../.."), (0, "///a//b///"),
        (0, "~user/x"), (0, ""), (0, "..."), (8 * 5, "a/b/c/d/e/f/g"),
        (8 * 17 + 1, "/very/long/" + "component/" * 30),
    ]
    for k, (sel, p) in enumerate(cases):
        write("path", "p%02d_%s" % (k, p or "empty"), bytes([sel]) + p.encode())
    write_dict("path", ["/", "..", ".", "~", "~/", "//", "/./", "/../", "a/", "up/", "self/",
                        "abs/", "root/", "dangling", "loop1", "chain", "filedir", "dots", "b/file",
                        "ws/", "src/", "envlink", "out/", "missing/"])


# ---- glob ----------------------------------------------------------------------------------
def globs():
    reset("glob")
    rows = []
    for line in read("tests/data/glob_cases.tsv").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        f = line.split("\t")
        if len(f) >= 5:
            rows.append(f)
    for k, f in enumerate(spread(rows, 40)):
        pattern, rel, ab, fold = f[0], f[1], f[2], f[3]
        path = ab if rel == "-" else "" if rel == '""' else rel
        home_none = len(f) > 5 and f[5] == "-"
        flags = (1 if fold == "1" else 0) | (2 if home_none else 0)
        write("glob", "g%02d_%s" % (k, pattern),
              pattern.encode() + b"\0" + path.encode() + b"\0" + bytes([flags]))
    write_dict("glob", ["*", "**", "**/", "/**", "?", "[", "]", "[!", "[^", "-", "\\", "/", "~/",
                        "./", ".", "..", "\x00", "a-z", "[a-z]", ".env", "*.pem"])


# ---- report --------------------------------------------------------------------------------
REPORT_C = r"""
#include <stdio.h>
#include <string.h>
#include "policy/report.h"

static void out(const char *dir, const char *name, const struct pd_report *r)
{
    char buf[PD_REPORT_MAX], path[4096];
    size_t n = pd_report_encode(r, buf, sizeof buf);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, n, f) != n || fclose(f))
        perror(path);
}

int main(int argc, char **argv)
{
    (void)argc;
    const char *d = argv[1];
    const char *py[] = {"python3", "-c", "open('.env').read()"};
    struct pd_report r = {PD_REPORT_DENY, "read", ".env", "/home/dev/project/.env", "secrets",
                          ".env", "secret", 4242, "python3", 3, py};
    out(d, "deny_read_secret", &r);
    const char *sh[] = {"sh", "-c", "printf 'a\tb\\n' > out/\n.env"};
    struct pd_report w = {PD_REPORT_DENY, "write", "dir\twith\ttabs/new\nline\\.env",
                          "/home/dev/project/dir\twith\ttabs/new\nline\\.env", "deny_globs",
                          "*\\[x]", "policy deny_glob", 77, "sh", 3, sh};
    out(d, "deny_write_escapes", &w);
    struct pd_report a = {PD_REPORT_AUDIT, "exec", "/usr/bin/curl", "/usr/bin/curl",
                          "allow_binaries", "", "not in allow_binaries", 1, "bash", 0, NULL};
    out(d, "audit_exec", &a);
    const char *st[] = {"./static-tool", "--flag"};
    struct pd_report c = {PD_REPORT_COVERAGE, "exec", "./static-tool",
                          "/home/dev/project/static-tool", "", "", "static binary", 31337,
                          "make", 2, st};
    out(d, "coverage_static", &c);
    struct pd_report e = {PD_REPORT_ERROR, "init", "", "", "", "", "cannot map the policy image",
                          -1, "node", 0, NULL};
    out(d, "error_init", &e);
    const char *nc[] = {"nc", "10.0.0.1", "80"};
    struct pd_report b = {PD_REPORT_BLOCKED, "connect", "10.0.0.1:80", "", "seccomp", "",
                          "seccomp: network off", 999999, "nc", 3, nc};
    out(d, "blocked_connect", &b);
    struct pd_report l = {PD_REPORT_BLOCKED, "write", "/usr/lib/x", "/usr/lib/x", "landlock", "",
                          "landlock: outside the writable roots", 12, "cp", 0, NULL};
    out(d, "blocked_landlock", &l);
    static char longpath[6000];
    memset(longpath, 'p', sizeof longpath - 1);
    static const char *many[1100];
    for (size_t k = 0; k < 1100; k++)
        many[k] = k % 2 ? "arg" : "x\ty";
    struct pd_report big = {PD_REPORT_DENY, "create", longpath, longpath, "allow_paths", "",
                            "outside allow_paths", 5, "touch", 1100, many};
    out(d, "cut_fields_and_argv", &big);
    return 0;
}
"""


def reports():
    reset("report")
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "records.c")
        exe = os.path.join(tmp, "records")
        with open(src, "w") as f:
            f.write(REPORT_C)
        subprocess.run([cc, "-std=c17", "-D_GNU_SOURCE", "-I" + ROOT, src,
                        os.path.join(ROOT, "policy", "report.c"), "-o", exe], check=True)
        subprocess.run([exe, os.path.join(CORPUS, "report")], check=True)
    # malformed on purpose: a bad escape, a pid that is no number, too few fields
    write("report", "bad_escape", "PDR1\tdeny\tread\ta\\qb\t\t\t\t\t1\tp")
    write("report", "bad_pid", "PDR1\tdeny\tread\ta\t\t\t\t\t12x\tp")
    write("report", "few_fields", "PDR1\tdeny\tread")
    write_dict("report", ["PDR1", "\t", "\\t", "\\n", "\\\\", "\\", "deny", "audit", "coverage",
                          "error", "blocked", "...", "-", "9223372036854775807"])


# ---- shell ---------------------------------------------------------------------------------
def shell_commands():
    cmds = []
    for line in read("tests/data/shell_commands.tsv").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cmds.append(line.split("\t")[0].replace("\u2424", "\n").replace("\u2409", "\t"))
    return cmds


def shells():
    reset("shell")
    cmds = shell_commands()
    # the rows that must fail to parse, and the rest spread through the file
    for k, c in enumerate(spread(cmds, 40)):
        write("shell", "s%02d_%s" % (k, c[:40]), bytes([k % 6]) + c.encode())
    for k, r in enumerate(pick_rows(6, 0)):
        cmd = (r.get("tool_input") or {}).get("command")
        if isinstance(cmd, str):
            write("shell", "hook_%s" % r["id"], bytes([k % 6]) + substitute(cmd).encode())
    write_dict("shell", ["|", "||", "&&", ";", "&", "|&", ">", ">>", "<", "<<", "<<-", "<<<",
                         "&>", "&>>", ">&", "2>&1", "<(", ">(", "$(", "`", "${", "}", "$((", "))",
                         "[[", "]]", "((", "'", "\"", "$'", "$\"", "\\", "\n", "#", "{", "}",
                         "(", ")", "if ", "then ", "else ", "elif ", "fi", "for ", "in ", "do ",
                         "done", "while ", "until ", "case ", "esac", ";;", "function ",
                         "select ", "time ", "!", "coproc ", "EOF", "sh -c ", "bash -c ",
                         "eval ", "trap ", "env ", "sudo ", "xargs ", "exec ", "command ",
                         "timeout 5 ", "nice -n 5 ", "cat ", ".env", "~/.ssh/id_rsa", "curl ",
                         "python3 -c ", "git ", "cd ", "=", "+=", "[0]=", "=(", "*", "?",
                         "{a,b}", "{1..3}", "~"])


# ---- tool ----------------------------------------------------------------------------------
TOOL_INPUTS = {
    "read_file": {"path": "/home/dev/project/src/main.c"},
    "write_file": {"path": "/home/dev/project/src/out.txt", "content": "hello ../etc/"},
    "edit_file": {"path": "/home/dev/project/src/main.c", "old_text": "a", "new_text": "b"},
    "execute_code": {"command": "python3 src/app.py --out build/x", "dir": "/home/dev/project"},
    "git_ops": {"action": "push", "cwd": "/home/dev/project", "args": "origin main"},
    "http_request": {"url": "https://example.com/api", "method": "GET"},
}


def tools():
    reset("tool")
    names = c_array(read("tests/fuzz/fuzz_tool.c"), "tools")
    index = {n: i for i, n in enumerate(names)}
    seeds = []
    for name, args in TOOL_INPUTS.items():
        seeds.append((name, args))
    for r in pick_rows(14, 22):
        if r.get("tool_name") in index and isinstance(r.get("tool_input"), dict):
            seeds.append((r["tool_name"], substitute(r["tool_input"])))
    for k, (name, args) in enumerate(seeds[:45]):
        write("tool", "t%02d_%s" % (k, name), bytes([index[name], k % 12]) + json.dumps(args).encode())
    write_dict("tool", ["{", "}", "[", "]", ":", ",", "\"", "\\u", "\\\"", "null", "true",
                        "false", "\"command\"", "\"cmd\"", "\"file_path\"", "\"path\"",
                        "\"content\"", "\"old_string\"", "\"new_string\"", "\"edits\"",
                        "\"pattern\"", "\"glob\"", "\"type\"", "\"url\"", "\"input\"",
                        "\"patch\"", "\"workdir\"", "\"notebook_path\"", "\"dir\"", "\"cwd\"",
                        "\"action\"", "\"include\"", "\"query\"", "*** Begin Patch\n",
                        "*** Add File: ", "*** Update File: ", "*** Delete File: ",
                        "*** Move to: ", "*** End Patch", "@@", "apply_patch", "[\"bash\", \"-lc\", ",
                        ".env", "../", "~/.ssh", "/etc/", "https://", "http://"])


# ---- hook ----------------------------------------------------------------------------------
def hooks():
    reset("hook")
    rows = pick_rows(20, 12) + [r for r in HOOKS["rows"] if "raw" in r][:8]
    for k, r in enumerate(rows[:45]):
        write("hook", "h%02d_%s" % (k, r["id"]), payload(r))
    write_dict("hook", ["{", "}", "[", "]", ":", ",", "\"", "\\u", "\\u0000", "\\\\", "null",
                        "true", "false", "\"hook_event_name\"", "\"PreToolUse\"",
                        "\"tool_name\"", "\"tool_input\"", "\"cwd\"", "\"command\"", "\"cmd\"",
                        "\"timeout\"", "\"timeout_ms\"", "\"run_in_background\"",
                        "\"workdir\"", "\"Bash\"", "\"shell\"", "\"bash\"", "\"-lc\"", "\"-c\"",
                        "'", "1e999", "-0", "\"session_id\""])


# ---- outscan -------------------------------------------------------------------------------
TOKENS = [
    "AKIAQWERTYUIOPASDFGH",
    "ghp_0123456789abcdefghijABCDEFGHIJ0123456789",
    "glpat-abcdefghij0123456789",
    "xoxb-1234567890-abcdefghij",
    "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "sk_live_0123456789abcdefghijklmnop",
    "sk-ant-api03-Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1",
    "AIzaSyA0123456789abcdefghijklmnopqrstuv",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "npm_0123456789abcdefghijABCDEFGHIJ012345",
    "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
    "https://deploy:Pr0d-Pa55w0rd-x@git.example.com/repo.git",
    "ACME_abcdefghij0123456789",
    "ORD-2024-abc123XYZ",
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "-----END OPENSSH PRIVATE KEY-----",
]
VALUE = "zq8Kp2mXv7Lr4Tn9Wc3Yb6Hd"


def outscans():
    reset("outscan")

    def header(mode, cuts, clean_copy=True):
        return bytes([mode | (len(cuts) << 2) | (0 if clean_copy else 0x20)]) + bytes(cuts)

    for k, t in enumerate(TOKENS):
        cuts = [[], [1], [3, 7], [64], [2, 5, 11]][k % 5]
        write("outscan", "token%02d" % k, header(0, cuts, k % 3 != 0) +
              ("log: %s\nnext line\n" % t).encode())
    write("outscan", "known_value_encodings", header(0, [5, 9]) + (
        "token=%s\nb64: eHpxOEtwMm1YdjdMcjRUbjlXYzNZYjZIZA==\n"
        "hex: 7a71384b70326d5876374c7234546e39576333596236486420\njson: \"%s\"\n"
        % (VALUE, VALUE)).encode())
    write("outscan", "clean_binary", header(0, [4]) + bytes(range(256)))
    for k, p in enumerate(["prefix=ACME_ class=[A-Za-z0-9] min=20 max=40", "ORD-####-*",
                           "prefix=tok_ class=[a-f0-9] min=8 max=8", "KEY-????-[0-9]"]):
        write("outscan", "pattern%d" % k, header(1, [7]) + p.encode() + b"\0" +
              b"x ACME_abcdefghij0123456789012 ORD-1234-zz tok_deadbeef KEY-abcd-7\n")
    env = ("# comment\nexport API_KEY=plain-api-key-1\nDB_PASSWORD=\"quoted pass \\\"x\\\" 2\"\n"
           "SESSION_SECRET='single $quoted 3'\nDEBUG=true\n")
    write("outscan", "secret_dotenv", header(2, [3]) + env.encode() + b"\0" +
          b"echo plain-api-key-1 and quoted pass \"x\" 2\n")
    js = ('{\n  "private_key_id": "0123456789abcdef0123456789abcdef01234567",\n'
          '  "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEF\\n'
          '-----END PRIVATE KEY-----\\n"\n}\n')
    write("outscan", "secret_json", header(2, []) + js.encode() + b"\0" +
          b"key 0123456789abcdef0123456789abcdef01234567 MIIEvQIBADANBgkqhkiG9w0BAQEF\n")
    write("outscan", "env", header(3, [2]) +
          b"OPENAI_API_KEY=sk-proj-Ab1Ab1Ab1Ab1Ab1Ab1Ab1\nDATABASE_URL=postgres://u:hunter2-long@db/x"
          b"\nHOME=/home/dev\0sk-proj-Ab1Ab1Ab1Ab1Ab1Ab1Ab1 hunter2-long\n")
    write_dict("outscan", ["AKIA", "ghp_", "github_pat_", "glpat-", "xoxb-", "xoxp-",
                           "hooks.slack.com/services/", "sk_live_", "sk-ant-", "sk-proj-", "sk-",
                           "AIza", "eyJ", "npm_", "hf_", "://", "@", "-----BEGIN ",
                           "PRIVATE KEY-----", "-----END ", "ACME_", "ORD-", VALUE, "prefix=",
                           "class=", "min=", "max=", "[A-Za-z0-9]", "#", "?", "*", "export ",
                           "=", ": ", "\"", "'", "\\n", "\n", "\0", "_KEY=", "_TOKEN=",
                           "PASSWORD=", "=="])


def main():
    runpy.run_path(os.path.join(HERE, "make_net_corpus.py"), run_name="__main__")
    for fn in (policies, paths, globs, reports, shells, tools, hooks, outscans):
        fn()
    for sub in sorted(os.listdir(CORPUS)):
        d = os.path.join(CORPUS, sub)
        files = os.listdir(d)
        size = sum(os.path.getsize(os.path.join(d, f)) for f in files)
        print("%-10s %3d files %7d bytes" % (sub, len(files), size))
        if len(files) >= 50 or size >= 200 * 1024:
            sys.exit("corpus %s is too big (%d files, %d bytes)" % (sub, len(files), size))


if __name__ == "__main__":
    main()
