# Tries: open('/etc/passwd') and print it.
# Harm: /etc/passwd content appears in the output.
# ruff: noqa
print(open("/etc/passwd").read())
