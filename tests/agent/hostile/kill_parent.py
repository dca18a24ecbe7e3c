# Tries: os.kill of the parent (the host) with SIGKILL.
# Harm: the host process dies.
# ruff: noqa
import os
import signal
os.kill(os.getppid(), signal.SIGKILL)
