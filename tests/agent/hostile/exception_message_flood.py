# Tries: an exception with a huge multi-line message.
# Harm: the error line grows without bound or spans many lines.
# ruff: noqa
raise ValueError("line\n" * 10**6)
