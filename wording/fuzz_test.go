package wording

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// FuzzMappingJSON reads outside JSON as a Mapping. Invariant: whatever is
// accepted writes back to JSON that reads to the same ordered mapping, and
// the mapping digest does not depend on its order.
func FuzzMappingJSON(f *testing.F) {
	for _, v := range loadVectors(f) {
		f.Add([]byte(v.InputMapping))
	}
	f.Add([]byte(`{"a": 1}`))
	f.Add([]byte(`{"a": "x", "a": "y"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m Mapping
		if json.Unmarshal(b, &m) != nil {
			return
		}
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("an accepted mapping does not write: %v", err)
		}
		var back Mapping
		if err := json.Unmarshal(out, &back); err != nil || !reflect.DeepEqual(back, m) {
			t.Fatalf("round trip changed %q -> %q (%v)", b, out, err)
		}
		rev := make(Mapping, len(m))
		for i, p := range m {
			rev[len(m)-1-i] = p
		}
		d1, err1 := MappingDigest(m)
		d2, err2 := MappingDigest(rev)
		if err1 != nil || err2 != nil || d1 != d2 {
			t.Fatalf("digest depends on order or fails: %v %v", err1, err2)
		}
	})
}

// FuzzArtifactParts reads outside artifact JSON. Invariant: accepted parts
// keep every unselected part frozen, hold the seed's names, match the
// artifact's texts, and their own wording fields verify clean.
func FuzzArtifactParts(f *testing.F) {
	f.Add([]byte(`{"seed_text": "Is this message a scam?", "evolved_text": "Is this message a scam?",
		"components": ["criteria_true"],
		"seed_parts": {"instructions": "Is this message a scam?", "criteria_true": "It is a scam", "criteria_false": "It is l\u00e9gitimate"},
		"evolved_parts": {"instructions": "Is this message a scam?", "criteria_true": "It asks for money", "criteria_false": "It is l\u00e9gitimate"}}`))
	f.Add([]byte(`{"seed_text": "Is this message a scam?", "evolved_text": "x"}`))
	f.Add([]byte(`{"seed_text": "Is this message a scam?", "evolved_text": "x", "components": "instructions", "evolved_parts": []}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ArtifactParts(b, seedParts)
		if err != nil {
			return
		}
		seed, evolved := p.Seed(), p.Evolved()
		if !seed.Equal(seedParts) || CheckParts(evolved, seed) != nil {
			t.Fatalf("accepted parts with other names: %v / %v", seed, evolved)
		}
		for _, s := range seed {
			if slices.Contains(p.Components(), s.Name) {
				continue
			}
			if e, _ := evolved.Get(s.Name); e != s.Text {
				t.Fatalf("frozen part %s changed", s.Name)
			}
		}
		fields, err := NewFields(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if bad, err := fields.Verify(); err != nil || bad != nil {
			t.Fatalf("fresh fields do not verify: %v %v", bad, err)
		}
	})
}
