"""Writes python_dumps.json: the text Python's json.dumps gives for the
dicts that mirror the Go values of TestMarshalPython (reflect_test.go).

Run from internal/pyjson: python3 testdata/python_dumps.py
Each case lists its json.dumps keyword arguments; the Go test uses the
matching Options.
"""
import json

floats = [26.0, 1e-07, 1e16, 1e15, 0.1, 5e-324, 1.7976931348623157e308,
          -0.0, 123456789012345680.0, 0.0001, 1e-05, 252.0, 2.798854759893043]

receipt_like = {
    "issue": 316,
    "model": "m<&>\u00e9\u2028\U0001F600",
    "wall_seconds": 26.0,
    "tiny": 1e-07,
    "rate": None,
    "p50": 1.3526233648881316,
    "ok": True,
    "paths": [],
    "missing": None,
    "nested": {"n": 0, "p95": None, "xs": [1, 2]},
    "counts": {"a": 2, "b": 1, "\u00e9": 3},
    "ordered": {"z": 1.0, "a": "x"},
    "kept": "yes",
}

marshalers = {
    "probabilities": {"consistent": 26.0, "<a&b>": 1e-07, "caf\u00e9": 0.5},
    "levels": [{"0": 0.25, "1": 0.75}, {}, []],
    "text": "\u00e9\u2028\U0001F600/\x7f",
    "after": [{"deep": {"x": [1.0, {"y": None}]}}],
}

embedded = {"outer": 1, "inner": "i", "shadow": "outer wins", "tagged": 2.5}

cases = [
    ("floats", floats, dict(indent=2)),
    ("receipt_like", receipt_like, dict(indent=2)),
    ("receipt_like_sorted", receipt_like, dict(indent=2, sort_keys=True)),
    ("marshalers", marshalers, dict(indent=2)),
    ("marshalers_sorted_compact", marshalers, dict(sort_keys=True, separators=(",", ":"))),
    ("marshalers_raw", marshalers, dict(ensure_ascii=False)),
    ("embedded", embedded, dict(indent=2)),
]

out = {name: json.dumps(obj, **kw) for name, obj, kw in cases}
with open("testdata/python_dumps.json", "w") as f:
    json.dump(out, f, indent=2)
    f.write("\n")
