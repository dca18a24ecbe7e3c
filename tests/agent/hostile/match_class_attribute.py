# Tries: a match-class pattern whose keyword reads __class__.
# Harm: the object base class becomes reachable.
# ruff: noqa
match 1:
    case int(__class__=c):
        print("ESCAPED", c)
