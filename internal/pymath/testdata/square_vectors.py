#!/usr/bin/python3
"""Writes square_vectors.txt.gz: inputs x and CPython's x ** 2.

Run it with Debian's python3 on x86-64 Linux (its float ** calls glibc's
pow):

    cd testdata && /usr/bin/python3 square_vectors.py

Each line is "<bits of x> <bits of x ** 2>" in hex, after one comment line
naming the Python and libc. The inputs (seeded) are what a Brier score
squares, p - y for p in [0, 1] and y in {0, 1}, plus the places where
x ** 2 and x * x differ (every such x among 2,000,000 draws is kept),
tiny values whose square is subnormal or zero, and a few large ones.
"""
import gzip
import platform
import random
import struct


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def inputs():
    rng = random.Random(27)
    for i in range(8000):
        p = rng.random() if i % 3 else rng.betavariate(0.3, 0.3)
        yield p - (i % 2)
    differ = 0
    for _ in range(2_000_000):
        x = rng.random() - (rng.random() < 0.5)
        if x ** 2 != x * x:
            differ += 1
            yield x
    for e in range(-545, -500):
        yield rng.random() * 2.0 ** e
    for x in (1e-160, 1e-200, 5e-324, 2.0 ** -1022, 1e150, 3.0, -2.5):
        yield x


with gzip.open("square_vectors.txt.gz", "wt") as out:
    out.write(f"# CPython {platform.python_version()} {' '.join(platform.libc_ver())}\n")
    for x in inputs():
        out.write(f"{bits(x):016x} {bits(x ** 2):016x}\n")
