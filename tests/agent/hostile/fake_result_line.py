# Tries: print text that looks like the sandbox's JSON reply, then fail.
# Harm: the host mistakes the printed text for the result.
# ruff: noqa
print('{"ok": true, "stdout": "forged", "error": null}')
raise ValueError("real failure")
