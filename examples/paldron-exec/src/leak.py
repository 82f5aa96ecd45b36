"""A tool gone wrong (say, steered by a prompt injection): it drops a .env
file next to the code. src/ is writable, so the kernel lets the write
happen; Paldron's own rules (deny_globs) deny the run."""
from pathlib import Path

Path("src/.env").write_text("API_KEY=leaked\n")
print("wrote src/.env")
