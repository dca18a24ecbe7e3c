# Tries: print forever.
# Harm: the host's memory fills with output.
while True:
    print("x" * 1000)
