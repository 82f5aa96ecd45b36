"""The original's behaviour corpus (../shared/reference/seed-cases.tsv) run by
../shared/tools/seed-compat against the real binary, as the unprivileged user.

Every row that behaves differently from the original - a non-quirk row that
fails, or a [seed-quirk] row whose bug we no longer reproduce - must be
listed in docs/compat.md with its reason. This test fails when a row differs
and is not listed, and when a listed non-quirk row starts passing again
(then the doc is stale)."""

import json
import os
import re
import subprocess
import sys
import tempfile

from harness import PALDRON, SOURCE_DIR, PaldronTest, skip, unprivileged_user, main

SEED_COMPAT = os.path.join(SOURCE_DIR, "..", "shared", "tools", "seed-compat")
PREFIXES = os.environ.get("PALDRON_SEED_PREFIXES", "PL,C,G,E,S,L,K,X,J")


def documented_rows():
    with open(os.path.join(SOURCE_DIR, "docs", "compat.md")) as f:
        text = f.read()
    return set(re.findall(r"\b(?:PL|C|G|E|S|L|K|X|J)\d\d\b", text))


class SeedCompatTest(PaldronTest):
    def test_corpus(self):
        if not os.path.exists(SEED_COMPAT):
            skip(self, "seed-compat not found at %s (../shared is not beside the repo)" % SEED_COMPAT)
        user = unprivileged_user()
        report = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
        cmd = [sys.executable if os.path.exists("/usr/bin/python3") else "python3", SEED_COMPAT,
               PALDRON, "--only", PREFIXES, "--json", report]
        if user is not None:
            cmd += ["--as-user", user.pw_name]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=1200)
        out = p.stdout.decode("utf-8", "replace")
        with open(report) as f:
            doc = json.load(f)
        os.unlink(report)
        rows = doc.get("results") or []
        self.assertTrue(rows, "seed-compat reported no rows:\n" + out[-2000:])
        listed = documented_rows()
        undocumented, stale = [], []
        for row in rows:
            rid, status, quirk = row.get("id"), row.get("status"), row.get("quirk", False)
            differs = (status == "FAIL" and not quirk) or (quirk and status == "FAIL")
            if differs and rid not in listed:
                undocumented.append("%s: %s" % (rid, row.get("detail", "")))
            if status == "PASS" and not quirk and rid in listed:
                stale.append(rid)
        self.assertEqual(undocumented, [], "rows that differ from the original but are not in "
                         "docs/compat.md:\n" + "\n".join(undocumented))
        self.assertEqual(stale, [], "rows listed in docs/compat.md that now pass: " + " ".join(stale))
        print(out.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
