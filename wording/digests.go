package wording

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"

	"github.com/typevet/typevet-go/internal/pyjson"
)

// WordingComponent is WORDING_COMPONENT, the part an instructions-only run
// evolves.
const WordingComponent = Instructions

// GepaIDLength is the number of hex digits of a gepa-adk Candidate.id.
const GepaIDLength = 12

// ComponentDigest returns the lowercase hex SHA-256 of the UTF-8 bytes of
// text (64 hex digits).
func ComponentDigest(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// MappingDigest returns the mapping digest of a full mapping: the hex
// SHA-256 of Python's json.dumps(m, sort_keys=True, separators=(",", ":"))
// — keys in code-point order, no whitespace, non-ASCII and DEL as
// lowercase \uXXXX escapes (surrogate pairs above U+FFFF). The order of m
// does not change it. It fails only on a repeated name or text that is not
// valid UTF-8.
func MappingDigest(m Mapping) (string, error) {
	b, err := pyjson.Compact(m.object())
	if err != nil {
		return "", err
	}
	return hashHex(b), nil
}

// GepaCandidateID returns gepa-adk's Candidate.id of the selected parts of
// m: the first 12 hex digits of the SHA-256 of Python's json.dumps(s,
// sort_keys=True, ensure_ascii=False), where s holds only the parts named
// in selection (", " and ": " separators, only ", \ and U+0000–U+001F
// escaped, everything else raw UTF-8). selection nil means every part; a
// non-nil selection passes [CheckSelection] over m.
//
// This is not the mapping digest: spacing, escaping and length differ.
func GepaCandidateID(m Mapping, selection []string) (string, error) {
	s := m
	if selection != nil {
		sel, err := CheckSelection(selection, m)
		if err != nil {
			return "", err
		}
		s = make(Mapping, len(sel))
		for i, name := range sel {
			text, _ := m.Get(name)
			s[i] = Part{name, text}
		}
	}
	b, err := pyjson.Raw(s.object())
	if err != nil {
		return "", err
	}
	return hashHex(b)[:GepaIDLength], nil
}

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ArmDigests is one arm (seed or evolved) of the wording_digests block:
//
//	{"components": {"instructions": "<64 hex>"}, "mapping": "<64 hex>", "gepa_candidate_id": "<12 hex>"}
type ArmDigests struct {
	// Components maps every part, in mapping order, to its [ComponentDigest].
	Components Mapping `json:"components"`
	// Mapping is the [MappingDigest] of the full mapping.
	Mapping string `json:"mapping"`
	// GepaCandidateID is the [GepaCandidateID] of the selected parts only;
	// it equals the candidate_id the gepa-adk engine logs.
	GepaCandidateID string `json:"gepa_candidate_id"`
}

// ComponentDigests returns the digests of one mapping (component_digests):
// every part's digest, the mapping digest, and the candidate id of the
// selection (nil = every part).
func ComponentDigests(m Mapping, selection []string) (ArmDigests, error) {
	comps := make(Mapping, len(m))
	for i, p := range m {
		comps[i] = Part{p.Name, ComponentDigest(p.Text)}
	}
	md, err := MappingDigest(m)
	if err != nil {
		return ArmDigests{}, err
	}
	id, err := GepaCandidateID(m, selection)
	if err != nil {
		return ArmDigests{}, err
	}
	return ArmDigests{Components: comps, Mapping: md, GepaCandidateID: id}, nil
}

// WordingDigests is the wording_digests receipt block (#362): the digests
// of seed_parts and evolved_parts, so a reader can match a receipt to a
// candidate without comparing texts.
//
//	"wording_digests": {
//	  "seed":    {"components": {...}, "mapping": "<64 hex>", "gepa_candidate_id": "<12 hex>"},
//	  "evolved": {"components": {...}, "mapping": "<64 hex>", "gepa_candidate_id": "<12 hex>"}
//	}
type WordingDigests struct {
	Seed    ArmDigests `json:"seed"`    // digests of seed_parts
	Evolved ArmDigests `json:"evolved"` // digests of evolved_parts
}

// DigestsOf returns the wording_digests block of parts (wording_digests):
// both arms digest their full mapping; both candidate ids cover the
// selected parts only.
func DigestsOf(p Parts) (WordingDigests, error) {
	seed, err := ComponentDigests(p.seed, p.components)
	if err != nil {
		return WordingDigests{}, err
	}
	evolved, err := ComponentDigests(p.evolved, p.components)
	if err != nil {
		return WordingDigests{}, err
	}
	return WordingDigests{Seed: seed, Evolved: evolved}, nil
}

// Fields are the wording keys of a held-out receipt, a comparison receipt
// and an evolution artifact (wording_fields), in the order typevet writes
// them:
//
//	seed_text        the seed instructions text, verbatim
//	evolved_text     the evolved instructions text, verbatim
//	components       the part names the run evolved, in selection order
//	seed_parts       the full seed mapping, part name to text
//	part_table       criterion part to label, key or level (#369; not in a
//	                 comparison receipt, nor in receipts before #369)
//	evolved_parts    the full evolved mapping, in seed order
//	wording_digests  the [WordingDigests] of both mappings
//
// Embed or copy them into a receipt struct at the place the receipt's key
// order puts them.
type Fields struct {
	SeedText    string   `json:"seed_text"`
	EvolvedText string   `json:"evolved_text"`
	Components  []string `json:"components"`
	SeedParts   Mapping  `json:"seed_parts"`
	// PartTable is nil when the receipt has no part_table key; a Noul
	// without criteria has a present, empty table ({}).
	PartTable      *PartTable     `json:"part_table,omitempty"`
	EvolvedParts   Mapping        `json:"evolved_parts"`
	WordingDigests WordingDigests `json:"wording_digests"`
}

// NewFields returns the wording fields of parts (wording_fields). table
// nil leaves part_table out (the comparison receipt); pass the seed's
// [PartTableOf] for the artifact and the held-out receipt.
func NewFields(p Parts, table *PartTable) (Fields, error) {
	d, err := DigestsOf(p)
	if err != nil {
		return Fields{}, err
	}
	f := Fields{
		SeedText:       p.SeedText(),
		EvolvedText:    p.EvolvedText(),
		Components:     p.Components(),
		SeedParts:      p.Seed(),
		EvolvedParts:   p.Evolved(),
		WordingDigests: d,
	}
	if table != nil {
		t := append(PartTable{}, *table...)
		f.PartTable = &t
	}
	return f, nil
}

// Verify recomputes every digest of the wording fields from seed_parts,
// evolved_parts and components, and returns the names of the fields that
// differ from the recorded ones, in block order, as JSON paths such as
// "wording_digests.seed.components.instructions",
// "wording_digests.evolved.mapping" or
// "wording_digests.evolved.gepa_candidate_id". A recorded component digest
// of a part the mapping lacks is named, and so is the missing digest of a
// part the mapping has. It also names "seed_text" or "evolved_text" when
// that text is not the mapping's instructions part. Names never carry a
// digest or a text; nil means everything matches.
//
// The error reports fields that cannot be digested: a block without
// seed_parts or evolved_parts (written before #363), or components that
// are empty, repeat a name or name a part outside the mapping.
func (f Fields) Verify() ([]string, error) {
	if f.SeedParts == nil || f.EvolvedParts == nil {
		return nil, valueErr("the wording fields have no seed_parts or evolved_parts (written before #363)")
	}
	var bad []string
	if t, ok := f.SeedParts.Get(Instructions); !ok || t != f.SeedText {
		bad = append(bad, "seed_text")
	}
	if t, ok := f.EvolvedParts.Get(Instructions); !ok || t != f.EvolvedText {
		bad = append(bad, "evolved_text")
	}
	arms := []struct {
		name string
		m    Mapping
		got  ArmDigests
	}{
		{"seed", f.SeedParts, f.WordingDigests.Seed},
		{"evolved", f.EvolvedParts, f.WordingDigests.Evolved},
	}
	for _, arm := range arms {
		want, err := ComponentDigests(arm.m, f.Components)
		if err != nil {
			return nil, err
		}
		prefix := "wording_digests." + arm.name + "."
		for _, p := range want.Components {
			if got, ok := arm.got.Components.Get(p.Name); !ok || got != p.Text {
				bad = append(bad, prefix+"components."+p.Name)
			}
		}
		for _, p := range arm.got.Components {
			if !want.Components.Has(p.Name) {
				bad = append(bad, prefix+"components."+p.Name)
			}
		}
		if arm.got.Mapping != want.Mapping {
			bad = append(bad, prefix+"mapping")
		}
		if arm.got.GepaCandidateID != want.GepaCandidateID {
			bad = append(bad, prefix+"gepa_candidate_id")
		}
	}
	return bad, nil
}

// VerifyJSON reads the wording fields from a receipt's or artifact's JSON
// (other keys are ignored) and runs [Fields.Verify].
func VerifyJSON(doc []byte) ([]string, error) {
	var f Fields
	if err := json.Unmarshal(doc, &f); err != nil {
		var te *TypeError
		var ve *ValueError
		if errors.As(err, &te) || errors.As(err, &ve) {
			return nil, err
		}
		return nil, typeErr("the wording fields are not readable JSON of the receipt schema")
	}
	return f.Verify()
}
