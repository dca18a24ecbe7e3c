# Tries: print a lot of output that does finish.
# Harm: the host's memory fills with output.
# Expect: may-succeed
# ruff: noqa
for i in range(100000):
    print(i, "y" * 50)
