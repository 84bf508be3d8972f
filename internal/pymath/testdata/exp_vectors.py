#!/usr/bin/python3
"""Writes exp_vectors.txt.gz: inputs x and what CPython's math.exp(x) returns.

Run it with Debian's python3 on x86-64 Linux (its math.exp is glibc's exp):

    /usr/bin/python3 exp_vectors.py

Each line of the output is "<bits of x> <bits of exp(x)>", both as 16 hex
digits. Where math.exp raises OverflowError (x above about 709.78) the line
holds the bits of +inf, the value glibc's exp returns there. The first line
is a comment naming the Python and libc that wrote the file.

The inputs (about 100,000, seeded, so the file is reproducible) cover what
a softmax over log-probabilities meets: differences l - max(l) in [-40, 0]
most densely, the whole negative range down to the underflow at -745.13,
the subnormal results below -708.4, tiny |x| near 0, differences of the
4-decimal log-probability grid that typevet's recording server answers
with, some positive x, random bit patterns, and the edges of glibc's
special cases.
"""
import gzip
import math
import platform
import random
import struct
import sys


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def frombits(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def glibc_exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def main():
    rng = random.Random(20261201)
    xs = []
    xs += [rng.uniform(-40.0, 0.0) for _ in range(50000)]
    xs += [rng.uniform(-745.2, 0.0) for _ in range(20000)]
    xs += [rng.uniform(-1.0, 0.0) for _ in range(8000)]
    xs += [-(2.0 ** rng.uniform(-60.0, 0.0)) for _ in range(4000)]
    xs += [rng.uniform(-745.2, -708.0) for _ in range(4000)]
    xs += [rng.uniform(0.0, 709.8) for _ in range(3000)]
    grid = lambda: -(rng.randrange(120000)) / 10000.0 - 0.0001
    for _ in range(8000):
        a, b = grid(), grid()
        xs.append(min(a, b) - max(a, b))
    for _ in range(1500):
        xs.append(frombits(rng.getrandbits(64)))
    # Edges: signed zeros, infinities, NaN, the thresholds of glibc's exp
    # (|x| = 2^-54, 512, 1024, overflow, underflow, subnormal results) and
    # their neighbours, and the reduction points k*ln2/128 and their
    # neighbours.
    edges = [0.0, -0.0, math.inf, -math.inf, math.nan,
             2.0 ** -54, -(2.0 ** -54), 512.0, -512.0, 1024.0, -1024.0,
             709.782712893384, 709.7827128933841, -708.3964185322641,
             -745.1332191019411, -745.1332191019412, -745.0, -746.0, 1.0, -1.0,
             math.log(2), -math.log(2)]
    for e in list(edges):
        if math.isfinite(e):
            edges += [math.nextafter(e, math.inf), math.nextafter(e, -math.inf)]
    for k in range(-96000, 1000, 97):
        p = k * math.log(2) / 128
        edges += [p, math.nextafter(p, math.inf), math.nextafter(p, -math.inf)]
    xs += edges
    out = [f"# math.exp of Python {platform.python_version()} on {platform.machine()} "
           f"{'-'.join(platform.libc_ver())}, {len(xs)} vectors\n"]
    for x in xs:
        out.append(f"{bits(x):016x} {bits(glibc_exp(x)):016x}\n")
    with gzip.GzipFile("exp_vectors.txt.gz", "wb", mtime=0) as f:
        f.write("".join(out).encode())
    print(f"wrote {len(xs)} vectors", file=sys.stderr)


if __name__ == "__main__":
    main()
