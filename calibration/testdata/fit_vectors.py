#!/usr/bin/python3
"""Writes fit_vectors.jsonl: seeded series and what typevet's #343 fitters give.

An independent reference for the Go fitters, written from the description
of typevet_evals.calibration (split, temperature, Platt, isotonic, ECE,
Brier, accuracy, bootstrap interval, rule). Run with Debian's python3 on
x86-64 Linux, whose math.exp, math.log and math.log1p are glibc's:

    cd testdata && /usr/bin/python3 fit_vectors.py

Python 3.11's built-in sum adds left to right; typevet runs on 3.12, whose
sum of floats is Neumaier's compensated sum. sum312 below is that
algorithm, and every sum typevet takes with sum() goes through it.

Each line is one series: name, ids, probabilities (repr strings), labels,
and per method the fitted parameters, before/after metrics, rule outcome
and, on every fourth series, the bootstrap interval of the ECE change, all
floats as repr strings so they parse back to the same bits. A Platt fit
that divides by a zero determinant records "error": "singular".
"""
import hashlib
import json
import math
import random

CLIP = 1e-6


def sum312(xs):
    """CPython 3.12's sum() over floats, started from the int 0."""
    it = iter(xs)
    try:
        first = next(it)
    except StopIteration:
        return 0
    s = 0 + first
    c = 0.0
    for x in it:
        t = s + x
        if abs(s) >= abs(x):
            c += (s - t) + x
        else:
            c += (x - t) + s
        s = t
    if c and math.isfinite(c):
        s += c
    return s


def clip(p):
    return min(max(p, CLIP), 1.0 - CLIP)


def logit(p):
    p = clip(p)
    return math.log(p / (1.0 - p))


def sigmoid(z):
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def nll(xs, ys, a, b):
    total = 0.0
    for x, y in zip(xs, ys):
        z = a * x + b
        total += max(z, 0.0) + math.log1p(math.exp(-abs(z))) - (z if y else 0.0)
    return total


def calibration_half(item):
    return int(hashlib.sha256(item.encode()).hexdigest(), 16) % 2 == 0


def fit_temperature(ps, ys):
    xs = [logit(p) for p in ps]
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    low, high = -3.0, 3.0
    for _ in range(100):
        left = high - ratio * (high - low)
        right = low + ratio * (high - low)
        if nll(xs, ys, math.exp(-left), 0.0) <= nll(xs, ys, math.exp(-right), 0.0):
            high = right
        else:
            low = left
    t = math.exp((low + high) / 2.0)
    return {"temperature": t}, lambda p: sigmoid(logit(p) / t)


def fit_platt(ps, ys):
    xs = [logit(p) for p in ps]
    a, b = 1.0, 0.0
    loss = nll(xs, ys, a, b)
    for _ in range(200):
        ga = gb = haa = hab = hbb = 0.0
        for x, y in zip(xs, ys):
            s = sigmoid(a * x + b)
            w = s * (1.0 - s) + 1e-12
            ga += (s - y) * x
            gb += s - y
            haa, hab, hbb = haa + w * x * x, hab + w * x, hbb + w
        det = haa * hbb - hab * hab
        da, db = (hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det
        step = 1.0
        for _ in range(40):
            trial = nll(xs, ys, a - step * da, b - step * db)
            if trial < loss:
                break
            step /= 2.0
        else:
            break
        a, b = a - step * da, b - step * db
        if loss - trial < 1e-12:
            break
        loss = trial
    return {"slope": a, "intercept": b}, lambda p: sigmoid(a * logit(p) + b)


def fit_isotonic(ps, ys):
    groups = {}
    for p, y in zip(ps, ys):
        groups.setdefault(clip(p), []).append(float(y))
    knots = sorted(groups)
    blocks = []
    for k in knots:
        blocks.append([sum312(groups[k]), float(len(groups[k])), 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            last = blocks.pop()
            blocks[-1] = [x + y for x, y in zip(blocks[-1], last)]
    values = [b[0] / b[1] for b in blocks for _ in range(int(b[2]))]

    def apply(p):
        i = 0
        x = clip(p)
        lo, hi = 0, len(knots)
        while lo < hi:
            mid = (lo + hi) // 2
            if x < knots[mid]:
                hi = mid
            else:
                lo = mid + 1
        i = lo - 1
        return values[max(i, 0)]

    return {"knots": knots, "values": values}, apply


def ece(ps, ys, bins=10):
    buckets = [[] for _ in range(bins)]
    for p, y in zip(ps, ys):
        buckets[min(int(p * bins), bins - 1)].append((p, y))
    if not ps:
        return 0.0
    gaps = []
    for items in buckets:
        if items:
            n = len(items)
            mean = sum312(p for p, _ in items) / n
            frac = sum(1 for _, y in items if y) / n
            gaps.append(n * abs(mean - frac))
    return sum312(gaps) / len(ps)


def brier(ps, ys):
    return sum312((p - float(y)) ** 2 for p, y in zip(ps, ys)) / len(ys)


def accuracy(ps, ys):
    return sum(1 for p, y in zip(ps, ys) if (p >= 0.5) == bool(y)) / len(ys)


def metrics(ps, ys):
    return {"ece": ece(ps, ys), "brier": brier(ps, ys), "accuracy": accuracy(ps, ys)}


def rule(before, after):
    return (before["ece"] - after["ece"] >= 0.03 - 1e-9
            and after["brier"] < before["brier"]
            and before["accuracy"] - after["accuracy"] <= 0.01 + 1e-9)


def resample(n, seed, b):
    return [int.from_bytes(hashlib.sha256(f"{seed}:{b}:{i}".encode()).digest()[:8], "big") % n
            for i in range(n)]


def interval(ps, ys, f, resamples=1000, level=0.95):
    after = [f(p) for p in ps]
    changes = []
    for b in range(resamples):
        rows = resample(len(ys), 0, b)
        g = [ys[i] for i in rows]
        changes.append(ece([after[i] for i in rows], g) - ece([ps[i] for i in rows], g))
    changes.sort()
    n = len(changes)
    lo = math.floor(round((1 - level) / 2 * n, 9))
    hi = math.ceil(round((1 + level) / 2 * n, 9)) - 1
    return [changes[lo], changes[min(hi, n - 1)]]


def series(k, rng):
    n = rng.randint(12, 160)
    ids = [f"s{k}:r{i}" for i in range(n)]
    kind = k % 8
    ps, ys = [], []
    for i in range(n):
        truth = rng.random() < rng.choice((0.3, 0.5, 0.7))
        if kind == 0:  # overconfident judge
            q = rng.betavariate(0.4, 0.4)
            p = q if truth else 1 - q
            p = p if rng.random() < 0.8 else 1 - p
        elif kind == 1:  # ties: two decimals
            p = round(rng.random(), 2)
        elif kind == 2:  # heavy ties: a few values
            p = rng.choice((0.1, 0.25, 0.5, 0.75, 0.9, 1.0, 0.0))
        elif kind == 3:  # separable: truth decides the side of 0.5
            p = rng.uniform(0.55, 1.0) if truth else rng.uniform(0.0, 0.45)
        elif kind == 4:  # near 0 and 1, below and past the clip
            p = rng.choice((0.0, 1.0, 1e-9, 1 - 1e-12, 0.999999, 1e-7, rng.random()))
        elif kind == 5:  # underconfident
            p = 0.5 + (0.2 if truth else -0.2) * rng.random()
        else:
            p = rng.random()
        ps.append(p)
        ys.append(truth)
    cal = [calibration_half(x) for x in ids]
    if kind == 6:  # all-true calibration half
        ys = [True if c else y for c, y in zip(cal, ys)]
    if kind == 7:  # all-false evaluation half
        ys = [False if not c else y for c, y in zip(cal, ys)]
    if k % 16 == 15:  # one constant probability: platt's determinant is 0
        ps = [0.7] * n
    return ids, ps, ys


def reprs(v):
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, dict):
        return {k: reprs(x) for k, x in v.items()}
    if isinstance(v, list):
        return [reprs(x) for x in v]
    return v


def main():
    rng = random.Random(343)
    with open("fit_vectors.jsonl", "w") as out:
        for k in range(240):
            ids, ps, ys = series(k, rng)
            cal = [i for i, x in enumerate(ids) if calibration_half(x)]
            ev = [i for i in range(len(ids)) if i not in set(cal)]
            if not cal or not ev:
                continue
            cp, cy = [ps[i] for i in cal], [ys[i] for i in cal]
            ep, ey = [ps[i] for i in ev], [ys[i] for i in ev]
            before = metrics(ep, ey)
            row = {"name": f"s{k}", "ids": ids, "p": reprs(ps), "truth": ys,
                   "n_calibration": len(cal), "before": reprs(before), "methods": {}}
            for name, fit in (("temperature", fit_temperature), ("platt", fit_platt),
                              ("isotonic", fit_isotonic)):
                try:
                    params, f = fit(cp, cy)
                except ZeroDivisionError:
                    row["methods"][name] = {"error": "singular"}
                    continue
                after = metrics([f(p) for p in ep], ey)
                m = {"parameters": reprs(params), "after": reprs(after),
                     "rule_met": rule(before, after)}
                if k % 4 == 0:
                    m["interval"] = reprs(interval(ep, ey, f))
                row["methods"][name] = m
            out.write(json.dumps(row) + "\n")


main()
