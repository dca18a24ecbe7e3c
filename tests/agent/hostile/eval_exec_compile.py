# Tries: eval / exec / compile of a string holding an import.
# Harm: a file appears in the canary directory.
# ruff: noqa
exec(compile("import os; os.system('touch CANARY_DIR/pwned')", "x", "exec"))
print("ESCAPED", eval("1+1"))
