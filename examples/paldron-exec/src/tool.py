"""A well-behaved tool: writes its result inside src/ and says so."""
from pathlib import Path

Path("src/out.txt").write_text("via paldron")
print("tool done")
