# Tries: one print of a 100 MB string.
# Harm: the host's memory fills with output.
# Expect: may-succeed
# ruff: noqa
print("z" * 10**8)
