#!/usr/bin/python3
"""Writes log_vectors.txt.gz: inputs x and CPython's math.log(x), math.log1p(x).

Run it with Debian's python3 on x86-64 Linux (its math.log and math.log1p
are glibc's):

    cd testdata && /usr/bin/python3 log_vectors.py

Each line is "<bits of x> <bits of log(x)> <bits of log1p(x)>" in hex, after
one comment line naming the Python and libc. The inputs (seeded) cover what
the calibration fitters meet: probabilities in (0, 1], odds p / (1 - p), the
values exp(-|z|) in (0, 1] of a log-loss, the neighbourhood of 1 where
glibc's log takes its own path, tiny and huge values, and subnormals.
"""
import gzip
import math
import platform
import random
import struct


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def inputs():
    rng = random.Random(343)
    for i in range(12000):
        r = rng.random()
        kind = i % 6
        if kind == 0:
            yield math.exp(-rng.uniform(0, 40))
        elif kind == 1:
            yield r or 0.5
        elif kind == 2:
            yield rng.uniform(0.9, 1.1)
        elif kind == 3:
            yield r / (1 - r) if 0 < r < 1 else 1.0
        elif kind == 4:
            yield 10.0 ** rng.uniform(-300, 300)
        else:
            yield rng.uniform(1e-10, 1e-8)
    for x in (1.0, 2.0, 0.5, 1e-6, 1 - 1e-6, 5e-324, 2.2250738585072014e-308,
              1.7976931348623157e308, 1.0 - 2**-53, 1.0 + 2**-52, 0.9375, 1.06640625):
        yield x


with gzip.open("log_vectors.txt.gz", "wt") as out:
    out.write(f"# CPython {platform.python_version()} {' '.join(platform.libc_ver())}\n")
    for x in inputs():
        out.write(f"{bits(x):016x} {bits(math.log(x)):016x} {bits(math.log1p(x)):016x}\n")
