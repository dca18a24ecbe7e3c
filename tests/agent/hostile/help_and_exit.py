# Tries: help(), exit() and quit() from the site builtins.
# Harm: the interpreter is left or a pager starts.
# ruff: noqa
help()
exit(0)
quit()
print("ESCAPED")
