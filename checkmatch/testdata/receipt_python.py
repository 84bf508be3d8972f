"""Writes receipt_python_metrics.golden and receipt_python_cases.golden for
checkmatch/outcome_test.go (TestReceiptBlocksMatchPython): the metrics and
cases blocks of typevet's check-match receipt as Python's
json.dumps(block, indent=2) + "\n" writes them after json.load, which is
how typevet writes a receipt.

Run from checkmatch/testdata: python3 receipt_python.py
"""
import json

with open("receipt_typevet/check_match_vllm_receipt.json") as f:
    receipt = json.load(f)
for block in ("metrics", "cases"):
    with open(f"receipt_python_{block}.golden", "w") as f:
        f.write(json.dumps(receipt[block], indent=2) + "\n")
