// Package wording holds typevet's wording receipt blocks: the wording parts
// of a question, their digests, the length caps of an evolution run and the
// identity of the wording judge. typevet evolves the wording of a question
// with gepa-adk (in Python) and pins every wording in its receipts; a Go
// tool that reads, writes or checks those receipts gets the same blocks and
// the same digests, to the last hex digit, from this package.
//
// # Parts
//
// A wording candidate is a [Mapping] of part name to text, in the seed's
// part order: "instructions" first, then one part per criterion with a
// text. [QuestionMapping] names the parts of a [judgment.Noul]
// ("criteria_true", "criteria_false"), a [judgment.Choice]
// ("criteria_<label>" when every label is a Python identifier, else
// "option_<i>" for all) and a [judgment.Score] ("level_<i>"). [PartTableOf]
// ties each criterion part to its label or level (the part_table block),
// [PartRoles] states what each part means, and [QuestionFromParts] rebuilds
// a question from a mapping.
//
// [Parts] (typevet's WordingParts) holds the selection (components), the
// seed mapping and the evolved mapping; a part that is not selected is
// frozen. [ArtifactParts] reads them back from an evolution artifact with
// every check typevet makes, in its order.
//
// # Receipt blocks
//
// [Fields] are the wording keys of a receipt, in typevet's key order:
//
//	seed_text, evolved_text, components, seed_parts, [part_table], evolved_parts, wording_digests
//
// [WordingDigests] holds, per arm, a SHA-256 per part, the mapping digest
// and the gepa-adk candidate id; [Fields.Verify] recomputes them and names
// the ones that differ. [Caps] is the artifact's length_cap block and the
// proposal validator. [JudgeIdentity] is the judge_identity block; [Facts]
// are the judge facts; [ReadOllamaIdentity] reads an Ollama server's
// version and the judge model's digest.
//
// # Digest rules
//
// The three rules, exactly as typevet computes them in Python (m is the
// full mapping, s the selected parts):
//
//	component          sha256(text.encode("utf-8")).hexdigest()
//	mapping            sha256(json.dumps(m, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()
//	gepa_candidate_id  sha256(json.dumps(s, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:12]
//
// The mapping rule escapes non-ASCII text and DEL as \uXXXX; the candidate
// id keeps the default spaces and writes text raw. Go's encoding/json
// matches neither, so both go through a Python-compatible encoder.
//
// # Python and Go
//
// The Go types make most of typevet's type refusals impossible: labels,
// descriptions and instructions are strings, and a Noul's criteria are a
// struct with one true and one false text. An empty description means
// Python None (no part), as in package judgment. Where Python string
// behaviour matters it is reproduced and tested on every code point: a
// label is an identifier by Python's str.isidentifier (XID rules, keywords
// allowed); "empty" means empty after Python's str.strip, which also
// removes U+001C–U+001F (strings.TrimSpace does not); lengths are Unicode
// code points; names in messages are quoted with Python's repr. Messages
// name a part, label, level, field, variable or type, never a text.
//
// The library never reads the environment: [SettingsFromEnv] takes a
// lookup function (pass os.LookupEnv).
package wording
