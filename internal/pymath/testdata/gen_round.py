# Generates round.json for the pymath Round tests. Any CPython 3 works
# (round(float, int) has not changed since 3.1):
#   python3 gen_round.py > round.json
# Each vector is [x, n, round(x, n)], floats written with repr, which Go's
# strconv parses back exactly; non-finite values as repr writes them
# ("inf", "-inf", "nan"). Every value is a string so no JSON parser rounds it.
import json, math, random, sys

rng = random.Random(20261129)

cases = []
def add(x, n):
    cases.append([repr(x), n, repr(round(x, n))])

for x, n in [
    (2.675, 2), (-2.675, 2), (0.125, 2), (0.375, 2), (1099.5165, 3),
    (0.0005, 3), (1.0005, 3), (2.5, 0), (3.5, 0), (-0.5, 0), (0.5, 0),
    (0.1 + 0.2, 3), (22.5085, 3), (1.23456789e-10, 9), (123456789.123456789, 3),
    (1e300, 3), (1e-300, 3), (5e-324, 300), (-0.0, 2), (-0.0001, 2),
    (1234.5, -1), (1250.0, -2), (1350.0, -2), (-1250.0, -2), (2.5, -2),
    (15.0, -1), (25.0, -1), (1.5e22, -22), (2.5e22, -22), (123456.0, -3),
    (0.7, 308), (1.7976931348623157e308, 2), (1.7976931348623157e308, -300),
    (math.inf, 3), (-math.inf, -2), (math.nan, 1),
]:
    add(x, n)
for _ in range(300):
    x = rng.uniform(-1000, 1000)
    add(x, rng.randint(-3, 12))
for _ in range(100):
    # Values on a decimal tie in text, which binary stores just above or
    # just below: the cases where x*10**n arithmetic goes wrong.
    n = rng.randint(0, 6)
    x = (rng.randint(-10**7, 10**7) + 0.5) / 10**n
    add(x, n)
for _ in range(50):
    x = rng.uniform(0, 1) * 10 ** rng.randint(-20, 20)
    add(x, rng.randint(-25, 25))

sys.stdout.write('{"python": %s, "vectors": [\n' % json.dumps(sys.version.split()[0]))
sys.stdout.write(",\n".join(json.dumps(c) for c in cases))
sys.stdout.write("\n]}\n")
