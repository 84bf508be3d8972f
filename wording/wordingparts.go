package wording

import (
	"encoding/json"
	"slices"

	"github.com/typevet/typevet-go/judgment"

	"github.com/typevet/typevet-go/internal/pytext"
)

// Parts is typevet's WordingParts: the selected part names (components),
// the full seed mapping and the full evolved mapping. A Parts value is
// checked when built and immutable afterwards: its accessors return copies.
// Build one with [NewParts], [FromTexts], [InstructionsOnly],
// [ReceiptParts] or [ArtifactParts]; the zero Parts is empty.
type Parts struct {
	components []string
	seed       Mapping
	evolved    Mapping
}

// NewParts checks and builds wording parts (WordingParts(components, seed,
// evolved)). The inputs are copied, so later changes to them do not leak
// in. Checks, in order:
//
//  1. the seed mapping holds each name once and has an "instructions" part
//     (a Go-only check: a Python dict cannot repeat a key, and typevet
//     fails later, on the first use of the missing text);
//  2. [CheckSelection] of components over the seed;
//  3. [CheckParts] of the evolved mapping over the seed (same names);
//  4. each seed part that is not selected, in seed order, has the same
//     text in both mappings, else "frozen part '<name>' changed during the
//     run".
func NewParts(components []string, seed, evolved Mapping) (Parts, error) {
	if err := CheckParts(seed, seed); err != nil {
		return Parts{}, err
	}
	if !seed.Has(Instructions) {
		return Parts{}, valueErr("the wording mapping lacks the part %s", pytext.Repr(Instructions))
	}
	sel, err := CheckSelection(components, seed)
	if err != nil {
		return Parts{}, err
	}
	if err := CheckParts(evolved, seed); err != nil {
		return Parts{}, err
	}
	for _, p := range seed {
		if slices.Contains(sel, p.Name) {
			continue
		}
		if t, _ := evolved.Get(p.Name); t != p.Text {
			return Parts{}, valueErr("frozen part %s changed during the run", pytext.Repr(p.Name))
		}
	}
	return Parts{components: sel, seed: seed.clone(), evolved: evolved.clone()}, nil
}

// FromTexts returns the parts of an instructions-only run without criteria
// (from_texts): components ["instructions"], seed {"instructions":
// seedText}, evolved {"instructions": evolvedText}.
func FromTexts(seedText, evolvedText string) Parts {
	return Parts{
		components: []string{Instructions},
		seed:       Mapping{{Instructions, seedText}},
		evolved:    Mapping{{Instructions, evolvedText}},
	}
}

// InstructionsOnly returns the parts of an evolved instructions text over
// the full seed mapping (instructions_only): seed = [SeedMapping] of the
// seed question (with its criteria, if any), evolved = the same mapping
// with "instructions" replaced, components ["instructions"]. Both arms then
// send the seed criteria.
func InstructionsOnly(seed judgment.Question, evolvedText string) (Parts, error) {
	m, err := SeedMapping(seed)
	if err != nil {
		return Parts{}, err
	}
	return NewParts([]string{Instructions}, m, m.With(Instructions, evolvedText))
}

// Components returns the selected part names in selection order.
func (p Parts) Components() []string { return append([]string(nil), p.components...) }

// Seed returns a copy of the full seed mapping.
func (p Parts) Seed() Mapping { return p.seed.clone() }

// Evolved returns a copy of the full evolved mapping, in seed order.
func (p Parts) Evolved() Mapping { return p.evolved.clone() }

// SeedText returns the seed "instructions" text.
func (p Parts) SeedText() string { t, _ := p.seed.Get(Instructions); return t }

// EvolvedText returns the evolved "instructions" text.
func (p Parts) EvolvedText() string { t, _ := p.evolved.Get(Instructions); return t }

// CheckTexts is the refusal of parts whose instructions texts differ from
// the seed_text and evolved_text a receipt is given (check_texts). It
// compares seedText first, then evolvedText, and the first mismatch is
// "seed_text is not the 'instructions' part of the parts" or
// "evolved_text is not the 'instructions' part of the parts". The message
// names the field only, never either text.
func (p Parts) CheckTexts(seedText, evolvedText string) error {
	if seedText != p.SeedText() {
		return valueErr("seed_text is not the 'instructions' part of the parts")
	}
	if evolvedText != p.EvolvedText() {
		return valueErr("evolved_text is not the 'instructions' part of the parts")
	}
	return nil
}

// ReceiptParts returns the parts a held-out or comparison receipt records
// (receipt_parts): [FromTexts] when parts is nil, otherwise parts after
// [Parts.CheckTexts].
func ReceiptParts(seedText, evolvedText string, parts *Parts) (Parts, error) {
	if parts == nil {
		return FromTexts(seedText, evolvedText), nil
	}
	if err := parts.CheckTexts(seedText, evolvedText); err != nil {
		return Parts{}, err
	}
	return *parts, nil
}

// CheckSeedParts is the held-out run's refusal of parts built over another
// seed (score_held_out): the seed mapping of parts must equal seed's
// mapping, order ignored, else "the parts do not hold the seed's parts".
func (p Parts) CheckSeedParts(seed Mapping) error {
	if !p.seed.Equal(seed) {
		return valueErr("the parts do not hold the seed's parts")
	}
	return nil
}

// ArtifactParts reads the wording parts back from an evolution artifact
// (artifact_parts), given the JSON of the artifact (or of any object that
// holds its wording fields) and the seed's parts. Checks, in order:
//
//  1. seed_text must be the seed's "instructions" text, else "the artifact
//     seed_text is not the seed's instructions part";
//  2. an artifact without evolved_parts (written before #363) gives the seed
//     parts with "instructions" replaced by evolved_text, components
//     ["instructions"]; evolved_text must then be a string, else "the
//     artifact evolved_text must be text" (Go-only: Python would write
//     str() of any value);
//  3. seed_parts must equal the seed's parts as a map, else "the artifact
//     seed_parts are not the seed's parts";
//  4. components must be a JSON array of strings each naming a seed part,
//     else "the artifact components name a part outside the seed parts"
//     (the value is not echoed);
//  5. evolved_parts must be a JSON object, else the type error "the
//     artifact evolved_parts must be a mapping", whose values are strings
//     ("the wording part '<name>' must be text");
//  6. [NewParts] of the three (selection, same names, frozen parts);
//  7. evolved_text must be the evolved "instructions" text, else "the
//     artifact evolved_text is not its instructions part".
//
// A missing seed_text fails check 1 and a missing seed_parts check 3, where
// Python raises KeyError.
func ArtifactParts(artifact []byte, seed Mapping) (Parts, error) {
	var a orderedRaw
	if err := a.UnmarshalJSON(artifact); err != nil {
		return Parts{}, typeErr("the artifact must be a JSON object")
	}
	want, _ := seed.Get(Instructions)
	if s, ok := jsonString(a, "seed_text"); !ok || s != want || !seed.Has(Instructions) {
		return Parts{}, valueErr("the artifact seed_text is not the seed's instructions part")
	}
	evolvedText, textOK := jsonString(a, "evolved_text")
	rawEvolved, hasEvolved := a.get("evolved_parts")
	if !hasEvolved {
		if !textOK {
			return Parts{}, typeErr("the artifact evolved_text must be text")
		}
		return NewParts([]string{Instructions}, seed, seed.With(Instructions, evolvedText))
	}
	rawSeed, _ := a.get("seed_parts")
	artSeed, err := decodeMapping(rawSeed)
	if err != nil || !artSeed.Equal(seed) {
		return Parts{}, valueErr("the artifact seed_parts are not the seed's parts")
	}
	rawComponents, _ := a.get("components")
	var components []string
	if json.Unmarshal(rawComponents, &components) != nil || len(rawComponents) == 0 || rawComponents[0] != '[' {
		return Parts{}, valueErr("the artifact components name a part outside the seed parts")
	}
	for _, c := range components {
		if !seed.Has(c) {
			return Parts{}, valueErr("the artifact components name a part outside the seed parts")
		}
	}
	evolved, err := decodeMapping(rawEvolved)
	if err == errNotObject {
		return Parts{}, typeErr("the artifact evolved_parts must be a mapping")
	}
	if err != nil {
		return Parts{}, err
	}
	parts, err := NewParts(components, seed, evolved)
	if err != nil {
		return Parts{}, err
	}
	if !textOK || evolvedText != parts.EvolvedText() {
		return Parts{}, valueErr("the artifact evolved_text is not its instructions part")
	}
	return parts, nil
}

// jsonString returns the string value of a key.
func jsonString(o orderedRaw, name string) (string, bool) {
	raw, ok := o.get(name)
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
