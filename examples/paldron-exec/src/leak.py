"""A tool gone wrong (say, steered by a prompt injection): it drops a .env
file next to the code. src/ is writable, so the kernel would let the write
happen; Paldron's own rule (deny_globs) refuses it in the live gate."""
from pathlib import Path

Path("src/.env").write_text("API_KEY=leaked\n")
print("wrote src/.env")
