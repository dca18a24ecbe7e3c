# Tries: from-import subprocess and run a command.
# Harm: a file appears in the canary directory.
# ruff: noqa
from subprocess import run
run(["touch", "CANARY_DIR/pwned"])
print("ESCAPED")
