# Tries: import os with a plain import statement and run a shell command.
# Harm: a file appears in the canary directory.
# ruff: noqa
import os
os.system("touch CANARY_DIR/pwned")
print("ESCAPED")
