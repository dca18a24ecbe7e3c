# Tries: import an allowed module and walk from it to sys and os.
# Harm: a file appears in the canary directory.
# ruff: noqa
import statistics
statistics.sys.modules["os"].system("touch CANARY_DIR/pwned")
print("ESCAPED")
