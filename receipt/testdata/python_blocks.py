"""Writes the python_*.golden files of receipt/write_test.go
(TestMarshalMatchesPython): each block that test re-encodes, as Python's
json.dumps(block, indent=2) + "\n" writes it after json.load of the
receipt, which is how typevet writes a receipt.

Run from receipt/testdata: python3 python_blocks.py
"""
import json

BLOCKS = [
    ("check_match_vllm_receipt.json", "identity", "python_receipt_identity.golden"),
    ("check_match_vllm_throughput_c4.head.json", "identity", "python_c4_identity.golden"),
    ("check_match_vllm_throughput_c4.head.json", "throughput", "python_c4_throughput.golden"),
    ("check_match_vllm_throughput_full_c16.head.json", "identity", "python_c16_identity.golden"),
    ("check_match_vllm_throughput_full_c16.head.json", "throughput", "python_c16_throughput.golden"),
]

for source, block, golden in BLOCKS:
    with open(source) as f:
        receipt = json.load(f)
    with open(golden, "w") as f:
        f.write(json.dumps(receipt[block], indent=2) + "\n")
