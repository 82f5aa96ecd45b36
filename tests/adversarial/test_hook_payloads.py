"""Adversarial: the hook's static gate. Every payload of
tests/data/hook_payloads.json whose expected outcome is "block" is fed to
`paldron check --hook` (as the unprivileged test user, in a copy of the
table's scratch project) and must exit 2 with a PreToolUse deny; nothing in
the project may change. One case, one subTest per payload."""

import hashlib
import json
import os
import sys
import unittest

import adv_base  # noqa: F401  (puts tests/integration on sys.path)
from adv_base import main, skip
from harness import PaldronTest
from test_hook_table import Call, Project, evidence, load_table, outcome


def tree_digest(top):
    h = hashlib.sha256()
    for root, dirs, files in sorted(os.walk(top)):
        dirs.sort()
        for n in sorted(files):
            p = os.path.join(root, n)
            h.update(p.encode())
            if os.path.islink(p):
                h.update(os.readlink(p).encode())
            else:
                with open(p, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()


class HookPayloadsTest(PaldronTest):
    def setUp(self):
        self.table = load_table()
        try:
            self.project = Project(self.table)
        except unittest.SkipTest as e:
            skip(self, str(e))
        self.addCleanup(self.project.close)
        self.base = self.project.copy()

    def routed_run_denies(self, call, r):
        cmd = json.loads(r.out)["hookSpecificOutput"]["updatedInput"]["command"]
        ran = self.project.as_user(["bash", "-c", cmd], cwd=call.run_dir, timeout=120)
        leaked = [c for c in self.project.canaries if c in ran.both]
        why = "routed: exit %d; leaked %s; %s" % (ran.code, leaked, ran.both[-1500:])
        # a routed run keeps the command's own failing status (2 only when the
        # command itself exited 0; docs/integrations.md) and says what it denied
        return ran.code != 0 and "paldron: deny: " in ran.err and not leaked, why

    def test_every_block_payload_blocks(self):
        rows = [r for r in self.table["rows"] if r["expected"] == "block"]
        self.assertGreater(len(rows), 0)
        before = tree_digest(self.base)
        failed = []
        for row in rows:
            with self.subTest(row=row["id"]):
                call = Call(self.project, self.base, row)
                r = call.hook()
                if outcome(r) == "route" and "route" in row.get("accept", ()):
                    # the table accepts routing for this row: the call then
                    # runs under `paldron exec --routed`, which must deny it
                    # (non-zero, a deny line) with nothing of a canary in its output
                    ok, why = self.routed_run_denies(call, r)
                else:
                    ok = r.code == 2 and outcome(r) == "block"
                    if ok and "raw" not in row and row["class"] != "broken-input":
                        ok = '"permissionDecision":"deny"' in r.out.replace(" ", "")
                    why = evidence(r)
                if not ok:
                    failed.append(row["id"])
                self.assertTrue(ok, "%s: %s" % (row["id"], why))
        if failed:
            print("\n%d of %d block payload(s) not blocked: %s"
                  % (len(failed), len(rows), " ".join(failed)), file=sys.stderr)
        # nothing a blocked or routed call did changed the project
        self.assertEqual(tree_digest(self.base), before)
        print("%d block payloads checked" % len(rows), file=sys.stderr)


if __name__ == "__main__":
    main()
