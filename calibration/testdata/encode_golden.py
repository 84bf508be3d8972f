#!/usr/bin/python3
"""Writes <map>.golden for each fixture map: what typevet's
write_calibration_map writes for the same document,
json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\\n".

    cd testdata && python3 encode_golden.py
"""
import json

for name in ("platt_noul_map", "platt_score_map"):
    with open(f"{name}.json", encoding="utf-8") as f:
        doc = json.load(f)
    with open(f"{name}.golden", "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n")
