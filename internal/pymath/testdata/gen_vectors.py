# Generates vectors.json for the pymath tests. Run with CPython 3.12:
#   python3.12 gen_vectors.py > vectors.json
# Every value is written with repr, which Go's strconv parses back exactly.
import json, math, random, statistics, sys

assert sys.version_info[:2] >= (3, 12), "sum() must be the 3.12 Neumaier sum"
rng = random.Random(20261129)

def case_lists():
    yield "tenths", [0.1] * 10
    yield "cancel", [1e100, 1.0, -1e100]
    yield "neg_zero_first", [-0.0]
    yield "neg_zero_pair", [-0.0, -0.0]
    yield "mixed_magnitudes", [1e16, 1.0, -1e16, 3.0, 1e-16]
    yield "probabilities", [0.9999999957707868, 9.736203785466836e-10, 0.9999981261248398, 3.3e-7]
    for i in range(40):
        n = rng.randint(1, 60)
        kind = i % 4
        if kind == 0:
            xs = [rng.random() for _ in range(n)]
        elif kind == 1:
            xs = [rng.uniform(-1, 1) * 10 ** rng.randint(-12, 12) for _ in range(n)]
        elif kind == 2:
            xs = [1.0 - rng.random() * 10 ** -rng.randint(1, 15) for _ in range(n)]
        else:
            xs = [rng.choice([0.1, 0.2, 0.3, 0.7, 1e-9, 1 - 1e-9]) for _ in range(n)]
        yield f"random{i:02d}", xs

out = []
for name, xs in case_lists():
    row = {"name": name, "xs": xs, "sum": sum(xs), "fsum": math.fsum(xs),
           "fmean": statistics.fmean(xs)}
    row["stdev"] = statistics.stdev(xs) if len(xs) >= 2 else None
    out.append(row)
json.dump({"python": sys.version.split()[0], "vectors": out}, sys.stdout, indent=1)
print()
