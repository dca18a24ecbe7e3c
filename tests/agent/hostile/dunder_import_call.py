# Tries: call __import__ directly to get os.
# Harm: a file appears in the canary directory.
__import__("os").system("touch CANARY_DIR/pwned")
