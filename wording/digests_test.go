package wording

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// vector is one entry of testdata/digest-vectors.json.
type vector struct {
	Name            string          `json:"name"`
	InputMapping    json.RawMessage `json:"input_mapping"`
	Selection       []string        `json:"selection"`
	ComponentSHA256 Mapping         `json:"component_sha256"`
	MappingSHA256   string          `json:"mapping_sha256"`
	GepaCandidateID string          `json:"gepa_candidate_id"`
	GepaIDFull      string          `json:"gepa_candidate_id_full_mapping"`
	CodepointLen    map[string]int  `json:"component_codepoint_len"`
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	b, err := os.ReadFile("testdata/digest-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []vector
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	if len(vs) != 13 {
		t.Fatalf("got %d vectors, want 13", len(vs))
	}
	return vs
}

func mustMapping(t testing.TB, raw []byte) Mapping {
	t.Helper()
	var m Mapping
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDigestVectors checks ComponentDigests against every vector Python
// computed: accents, CJK, emoji, quotes, backslashes, control characters,
// DEL, U+2028, key order, the empty mapping and empty text, selections.
func TestDigestVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			m := mustMapping(t, v.InputMapping)
			d, err := ComponentDigests(m, v.Selection)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Components) != len(v.ComponentSHA256) {
				t.Fatalf("components = %v, want %v", d.Components, v.ComponentSHA256)
			}
			for i, p := range v.ComponentSHA256 {
				if d.Components[i] != p {
					t.Errorf("component %d = %v, want %v (mapping order)", i, d.Components[i], p)
				}
				text, _ := m.Get(p.Name)
				if ComponentDigest(text) != p.Text {
					t.Errorf("ComponentDigest(%s) differs", p.Name)
				}
			}
			if d.Mapping != v.MappingSHA256 {
				t.Errorf("mapping = %s, want %s", d.Mapping, v.MappingSHA256)
			}
			if d.GepaCandidateID != v.GepaCandidateID {
				t.Errorf("gepa_candidate_id = %s, want %s", d.GepaCandidateID, v.GepaCandidateID)
			}
			if full, _ := GepaCandidateID(m, nil); full != v.GepaIDFull {
				t.Errorf("id over the full mapping = %s, want %s", full, v.GepaIDFull)
			}
			if strings.HasPrefix(d.Mapping, d.GepaCandidateID) && len(m) > 0 && v.Name != "V9a empty mapping" {
				t.Errorf("mapping digest starts with the candidate id: the rules must differ")
			}
		})
	}
}

// TestEngineLoggedCandidateIDs checks the candidate_id values that the
// gepa-adk engine itself logged in typevet's wording333 Ollama artifact.
// The two long proposals (4e321e686f40, 33cb05cc071d) are not
// quoted in full anywhere we hold, so only these three can be recomputed.
func TestEngineLoggedCandidateIDs(t *testing.T) {
	tests := []struct {
		name, text, id, mapping string
	}{
		{"proposal spam", "Is this message a spam or a phishing attempt?", "216129446ded", ""},
		{"proposal friend", "Is this message a legitimate text from a friend or acquaintance?", "89c53f063113", ""},
		{"seed, the artifact's gepa_candidate_id and parent_ids entry",
			"Is this message a scam, phishing or social-engineering attempt?", "75113cb9d5d1",
			"82e39624b0cc44dbc9c2feee4453dfcc043f9f60c5daec74758d7ab2e91b4435"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ComponentDigests(Mapping{{Instructions, tt.text}}, []string{Instructions})
			if err != nil {
				t.Fatal(err)
			}
			if d.GepaCandidateID != tt.id {
				t.Errorf("id = %s, want %s", d.GepaCandidateID, tt.id)
			}
			if tt.mapping != "" && d.Mapping != tt.mapping {
				t.Errorf("mapping = %s, want %s", d.Mapping, tt.mapping)
			}
		})
	}
}

// The test_wording_digests.py inputs.
var (
	seedParts = Mapping{
		{Instructions, "Is this message a scam?"},
		{CriteriaTrue, "It is a scam"},
		{CriteriaFalse, "It is légitimate"},
	}
	evolvedParts = seedParts.With(CriteriaTrue, "It asks for money")
)

func TestComponentDigest(t *testing.T) {
	if got := ComponentDigest("Café"); got != "73473dcc12b763085904a5279d048c4d5b3b008c46f1f32443b99de04aa83a14" {
		t.Errorf("ComponentDigest(Café) = %s", got)
	}
	if ComponentDigest("a") == ComponentDigest("b") {
		t.Error("a and b share a digest")
	}
}

func TestMappingDigestIgnoresOrder(t *testing.T) {
	m := Mapping{{"instructions", "Is this message a scam?"}, {"criteria", "Café rules"}}
	r := Mapping{m[1], m[0]}
	a, _ := MappingDigest(m)
	b, _ := MappingDigest(r)
	if a != b || a != "57581210f63e26e7d5e815c0b2ac22a271ac973510ace82f1c8ac75a5df3ef26" {
		t.Errorf("digests %s, %s; want both V2", a, b)
	}
}

// TestDigestsOf covers from_texts and the selection rules of
// test_wording_digests.py.
func TestDigestsOf(t *testing.T) {
	t.Run("from_texts", func(t *testing.T) {
		d, err := DigestsOf(FromTexts("seed", "evolved"))
		if err != nil {
			t.Fatal(err)
		}
		want := WordingDigests{
			Seed: ArmDigests{
				Components:      Mapping{{"instructions", "19b25856e1c150ca834cffc8b59b23adbd0ec0389e58eb22b3b64768098d002b"}},
				Mapping:         "6e303888e2f719791901414b7397f8683f368eb4b2e87c03e46ab89fe0581700",
				GepaCandidateID: "66b72eb50025",
			},
			Evolved: ArmDigests{
				Components:      Mapping{{"instructions", "1749238e95cb7739d56d4c0b775aefffdd5c8002a762bc6056ccde8871a201b0"}},
				Mapping:         "5251dbd205e5cbc7ec232d5394009b682818cc4bb88bb20bb4683900979eb9c1",
				GepaCandidateID: "6b52af9a9178",
			},
		}
		if !digestsEqual(d, want) {
			t.Errorf("got %+v\nwant %+v", d, want)
		}
	})
	t.Run("held-out texts", func(t *testing.T) {
		d, _ := DigestsOf(FromTexts("Is this message a scam?", "Does it ask for money?"))
		if d.Seed.Mapping != "e83c93c59191a6bf771310c06258dd6978bbc9e8f0275021f50efd57d44a560a" || d.Seed.GepaCandidateID != "6226781f4fdb" ||
			d.Evolved.Mapping != "babc5c1d8d0e48af209c2db25ca46204e5e4fe52c6c276270d6561452c24ace5" || d.Evolved.GepaCandidateID != "1310619246ad" ||
			d.Evolved.Components[0].Text != "353a1466ffa0756e2d228ae6ebbc5d5c0fb8646006ea5e95a4e1c9755b9c18cf" {
			t.Errorf("got %+v", d)
		}
	})
	t.Run("full selection", func(t *testing.T) {
		p, err := NewParts(seedParts.Names(), seedParts, evolvedParts)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := DigestsOf(p)
		if d.Seed.GepaCandidateID != "7b7d0e12a290" || d.Evolved.GepaCandidateID != "4beeae45949e" {
			t.Errorf("ids %s %s, want V3a 7b7d0e12a290, V3b 4beeae45949e", d.Seed.GepaCandidateID, d.Evolved.GepaCandidateID)
		}
	})
	t.Run("selection criteria_true", func(t *testing.T) {
		p, err := NewParts([]string{CriteriaTrue}, seedParts, evolvedParts)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := DigestsOf(p)
		if d.Evolved.GepaCandidateID != "ccb61621f752" {
			t.Errorf("evolved id %s, want V3c ccb61621f752", d.Evolved.GepaCandidateID)
		}
		if d.Evolved.Mapping != "86edad43a97f7aa62b25830dd5beeb3b934168a542a7fcf1612ce766afe0ff38" {
			t.Errorf("evolved mapping %s, want the full-selection mapping", d.Evolved.Mapping)
		}
		if len(d.Evolved.Components) != 3 || len(d.Seed.Components) != 3 {
			t.Errorf("components must cover every part: %v", d.Evolved.Components)
		}
	})
}

func digestsEqual(a, b WordingDigests) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestFieldsJSON checks the key order of wording_fields, with and without
// a part table.
func TestFieldsJSON(t *testing.T) {
	p, err := NewParts([]string{CriteriaTrue}, seedParts, evolvedParts)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFields(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"seed_text", "evolved_text", "components", "seed_parts", "evolved_parts", "wording_digests"}
	if got := topKeys(t, b); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("keys %v, want %v", got, want)
	}
	if f.SeedText != "Is this message a scam?" || f.Components[0] != CriteriaTrue {
		t.Errorf("fields %+v", f)
	}
	table := PartTable{}
	f, _ = NewFields(FromTexts("a", "b"), &table)
	b, _ = json.Marshal(f)
	want = []string{"seed_text", "evolved_text", "components", "seed_parts", "part_table", "evolved_parts", "wording_digests"}
	if got := topKeys(t, b); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("keys %v, want %v", got, want)
	}
	if !strings.Contains(string(b), `"part_table":{}`) {
		t.Errorf("an empty table must be written as {}: %s", b)
	}
	// Round trip: the JSON reads back to the same fields and verifies.
	var back Fields
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(back)
	if string(again) != string(b) {
		t.Errorf("round trip changed the JSON:\n%s\n%s", b, again)
	}
}

func topKeys(t *testing.T, b []byte) []string {
	t.Helper()
	var o orderedRaw
	if err := o.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range o {
		keys = append(keys, m.name)
	}
	return keys
}

func TestVerify(t *testing.T) {
	p, _ := NewParts([]string{CriteriaTrue, Instructions}, seedParts, evolvedParts.With(Instructions, "Does it ask for money?"))
	good, _ := NewFields(p, nil)
	tests := []struct {
		name   string
		edit   func(f *Fields)
		want   []string
		reason string
	}{
		{"intact", func(f *Fields) {}, nil, ""},
		{"evolved text edited", func(f *Fields) {
			f.EvolvedParts = f.EvolvedParts.With(CriteriaTrue, "It asks for cash")
		}, []string{"wording_digests.evolved.components.criteria_true", "wording_digests.evolved.mapping", "wording_digests.evolved.gepa_candidate_id"},
			"a selected part moves all three digests"},
		{"frozen part edited in both arms", func(f *Fields) {
			f.SeedParts = f.SeedParts.With(CriteriaFalse, "x")
			f.EvolvedParts = f.EvolvedParts.With(CriteriaFalse, "x")
		}, []string{"wording_digests.seed.components.criteria_false", "wording_digests.seed.mapping",
			"wording_digests.evolved.components.criteria_false", "wording_digests.evolved.mapping"},
			"an unselected part is outside the candidate id"},
		{"selection changed", func(f *Fields) { f.Components = []string{CriteriaTrue} },
			[]string{"wording_digests.seed.gepa_candidate_id", "wording_digests.evolved.gepa_candidate_id"}, ""},
		{"digest edited", func(f *Fields) { f.WordingDigests.Seed.Mapping = strings.Repeat("0", 64) },
			[]string{"wording_digests.seed.mapping"}, ""},
		{"extra component digest", func(f *Fields) {
			f.WordingDigests.Seed.Components = append(f.WordingDigests.Seed.Components.clone(), Part{"criteria_maybe", "00"})
		}, []string{"wording_digests.seed.components.criteria_maybe"}, ""},
		{"seed_text differs", func(f *Fields) { f.SeedText = "Another seed" }, []string{"seed_text"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := good
			f.SeedParts = good.SeedParts.clone()
			f.EvolvedParts = good.EvolvedParts.clone()
			tt.edit(&f)
			got, err := f.Verify()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("Verify = %v, want %v", got, tt.want)
			}
			for _, name := range got {
				if strings.Contains(name, "money") || strings.Contains(name, "cash") {
					t.Errorf("a name holds a text: %q", name)
				}
			}
		})
	}
	t.Run("pre-#363 block", func(t *testing.T) {
		_, err := VerifyJSON([]byte(`{"seed_text": "a", "evolved_text": "b", "wording_digests": {}}`))
		if err == nil || !strings.Contains(err.Error(), "#363") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("components outside the parts", func(t *testing.T) {
		f := good
		f.Components = []string{"is_scam"}
		if _, err := f.Verify(); err == nil || err.Error() != "'is_scam' is not a part of the seed" {
			t.Errorf("err = %v", err)
		}
	})
}

func BenchmarkDigestsOf3Parts(b *testing.B) {
	p, err := NewParts(seedParts.Names(), seedParts, evolvedParts)
	if err != nil {
		b.Fatal(err)
	}
	size := 0
	for _, m := range []Mapping{seedParts, evolvedParts} {
		for _, x := range m {
			size += len(x.Text)
		}
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := DigestsOf(p); err != nil {
			b.Fatal(err)
		}
	}
}
