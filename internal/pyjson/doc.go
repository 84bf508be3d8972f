// Package pyjson writes JSON byte for byte the way Python's json.dumps does,
// for the receipts and digests that typevet computes in Python.
//
// A digest over JSON only matches when every byte matches, and Go's
// encoding/json differs from Python on several points: it escapes <, > and &
// and U+2028/U+2029, it cannot escape non-ASCII text as \uXXXX, it never
// writes ", " and ": " separators, and it prints floats as 5 or 1e-7 where
// Python prints 5.0 and 1e-07. [Marshal] encodes with
// github.com/go-json-experiment/json (the future encoding/json/v2) under
// encoding/json's rules and adds only what it cannot do: Python's float
// text, ensure_ascii escapes, sort_keys order and ordered objects.
//
// # The three forms typevet uses
//
//   - [Canonical]: json.dumps(v, sort_keys=True) — identity and prompt digests.
//   - [Compact]: json.dumps(v, sort_keys=True, separators=(",", ":")) — the
//     wording mapping digest.
//   - [Raw]: json.dumps(v, sort_keys=True, ensure_ascii=False) — gepa-adk
//     Candidate.id.
//
// For example, the mapping {"b": "é", "a": "<x>"}:
//
//	Canonical: {"a": "<x>", "b": "\u00e9"}
//	Compact:   {"a":"<x>","b":"\u00e9"}
//	Raw:       {"a": "<x>", "b": "é"}
//
// # Receipts and ordered objects
//
// [Marshal] takes any Go value: a receipt struct with Options{EnsureASCII:
// true, Indent: 2} is written as json.dumps(receipt, indent=2) writes the
// equivalent dict, floats included (26.0, 1e-07). Values with their own
// MarshalJSON are re-emitted with Python's indentation and escapes while
// their number text is kept. [DecodeObject] is the one reader of ordered
// objects (Python dicts): key order kept, a repeated key refused.
//
// # Decisions where Go and Python differ
//
// Python strings cannot hold invalid UTF-8 and Go strings can; Marshal refuses
// a string or key that is not valid UTF-8 instead of guessing a replacement.
// Python dicts cannot hold a key twice and an [Object] can; Marshal refuses a
// repeated key. Go maps have no order, so a map is always written key-sorted,
// even without [Options.SortKeys]; use [Object] or a struct to keep
// insertion order. Python has no nil list or dict; a nil slice or map is
// written null, as encoding/json writes it, and a nil [Object] is {}.
// Python writes NaN and Infinity by default, which are not JSON; Marshal
// refuses them, as json.dumps(v, allow_nan=False) does.
package pyjson
