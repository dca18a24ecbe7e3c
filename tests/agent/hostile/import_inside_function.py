# Tries: hide the import inside a function body that is only called later.
# Harm: a file appears in the canary directory.
# ruff: noqa
def helper():
    import os
    os.system("touch CANARY_DIR/pwned")

helper()
