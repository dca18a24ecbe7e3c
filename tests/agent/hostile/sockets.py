# Tries: open a TCP socket to a local port.
# Harm: a network connection is made.
# ruff: noqa
import socket
socket.create_connection(("127.0.0.1", 22), timeout=1)
print("ESCAPED")
