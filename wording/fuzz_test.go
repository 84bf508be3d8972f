package wording

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
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

// FuzzVerifyJSON reads outside receipt JSON with VerifyJSON and checks the
// verdicts on artifacts built from a fuzzed mapping. Invariants: VerifyJSON
// never panics and refuses only with a *TypeError or *ValueError; the JSON
// of fresh NewFields verifies with no differences; and one changed digest
// character is reported as exactly that field's name, a name that carries
// no part text and no digest.
func FuzzVerifyJSON(f *testing.F) {
	for _, v := range loadVectors(f) {
		f.Add([]byte(v.InputMapping), "Is it a scam?", uint16(0), uint8(0))
	}
	p, err := NewParts(seedParts.Names(), seedParts, evolvedParts)
	if err != nil {
		f.Fatal(err)
	}
	fields, err := NewFields(p, nil)
	if err != nil {
		f.Fatal(err)
	}
	doc, err := json.Marshal(fields)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(doc, "", uint16(7), uint8(63))
	f.Add([]byte(`{"instructions": "seed", "criteria_true": "seed"}`), "seed", uint16(5), uint8(11))
	f.Fuzz(func(t *testing.T, b []byte, evolvedText string, which uint16, pos uint8) {
		if _, err := VerifyJSON(b); err != nil {
			var te *TypeError
			var ve *ValueError
			if !errors.As(err, &te) && !errors.As(err, &ve) {
				t.Fatalf("VerifyJSON refused with %T, want *TypeError or *ValueError: %v", err, err)
			}
		}
		var seed Mapping
		if json.Unmarshal(b, &seed) != nil {
			return
		}
		selection := []string{Instructions}
		if which&1 == 1 {
			selection = seed.Names()
		}
		p, err := NewParts(selection, seed, seed.With(Instructions, evolvedText))
		if err != nil {
			return
		}
		// Texts read from JSON are valid UTF-8; the Go string evolvedText
		// may not be, and then the digests cannot be computed.
		fields, err := NewFields(p, nil)
		if valid := utf8.ValidString(evolvedText); (err == nil) != valid {
			t.Fatalf("NewFields error %v for a text whose UTF-8 validity is %v", err, valid)
		}
		if err != nil {
			return
		}
		doc, err := json.Marshal(fields)
		if err != nil {
			t.Fatalf("fresh fields do not write: %v", err)
		}
		if bad, err := VerifyJSON(doc); err != nil || bad != nil {
			t.Fatalf("fresh fields report %q, %v", bad, err)
		}

		// Change one character of one recorded digest in a copy read back
		// from the JSON.
		var tampered Fields
		if err := json.Unmarshal(doc, &tampered); err != nil {
			t.Fatalf("fresh fields do not read back: %v", err)
		}
		type slot struct {
			path  string
			value *string
		}
		var slots []slot
		for _, arm := range []struct {
			name string
			d    *ArmDigests
		}{{"seed", &tampered.WordingDigests.Seed}, {"evolved", &tampered.WordingDigests.Evolved}} {
			prefix := "wording_digests." + arm.name + "."
			for i := range arm.d.Components {
				slots = append(slots, slot{prefix + "components." + arm.d.Components[i].Name, &arm.d.Components[i].Text})
			}
			slots = append(slots, slot{prefix + "mapping", &arm.d.Mapping}, slot{prefix + "gepa_candidate_id", &arm.d.GepaCandidateID})
		}
		s := slots[int(which>>1)%len(slots)]
		recorded := *s.value
		i := int(pos) % len(recorded)
		repl := "0"
		if recorded[i] == '0' {
			repl = "1"
		}
		changed := recorded[:i] + repl + recorded[i+1:]
		*s.value = changed
		doc2, err := json.Marshal(tampered)
		if err != nil {
			t.Fatalf("tampered fields do not write: %v", err)
		}
		bad, err := VerifyJSON(doc2)
		if err != nil {
			t.Fatalf("a changed digest is an error, not a difference: %v", err)
		}
		texts := []string{evolvedText}
		for _, p := range seed {
			texts = append(texts, p.Text)
		}
		for _, name := range bad {
			for _, text := range texts {
				if text != "" && strings.Contains(name, text) && !strings.Contains(s.path, text) {
					t.Fatalf("report %q holds a part text", name)
				}
			}
			if strings.Contains(name, recorded) || strings.Contains(name, changed) {
				t.Fatalf("report %q holds a digest", name)
			}
		}
		if !slices.Equal(bad, []string{s.path}) {
			t.Fatalf("changing %s reports %q, want just that name", s.path, bad)
		}
	})
}

// tagsMessages are the messages ReadOllamaIdentity may give for a served
// /api/tags body; a fuzzed string inside one of them proves nothing.
var tagsMessages = []string{
	"Ollama GET /api/tags: the body is not JSON of the expected shape",
	"Ollama GET /api/tags: the body is too large (over 8 MiB)",
	"Ollama GET /api/tags: the judge model entry has no digest",
	"the judge model is not listed by Ollama /api/tags",
}

// FuzzReadOllamaTags serves a fuzzed /api/tags body and reads the identity
// of a fuzzed model name. Invariants: a refusal is an *OllamaError for
// /api/tags whose message holds no model name, listed name or digest (no
// string of the body); an answer holds the digest of the first entry named
// model or model + ":latest", and the served version.
func FuzzReadOllamaTags(f *testing.F) {
	f.Add([]byte(tagsBody), "nimble")
	f.Add([]byte(tagsBody), "other")
	f.Add([]byte(`{"models": [{"name": "nimble", "digest": null}]}`), "nimble")
	f.Add([]byte(`{"models": [{"name": "x", "digest": "d1"}, {"name": "x:latest", "digest": "d2"}]}`), "x")
	f.Add([]byte(`{"models": {"name": "nimble"}}`), "nimble")
	f.Add([]byte(`[nimble`), "nimble")
	var (
		mu   sync.Mutex
		body []byte
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/version":
			_, _ = w.Write([]byte(`{"version": "0.35.0"}`))
		case "/api/tags":
			mu.Lock()
			defer mu.Unlock()
			_, _ = w.Write(body)
		default:
			http.NotFound(w, r)
		}
	}))
	f.Cleanup(srv.Close)
	f.Fuzz(func(t *testing.T, tags []byte, model string) {
		mu.Lock()
		body = tags
		mu.Unlock()
		got, err := ReadOllamaIdentity(context.Background(), srv.Client(), srv.URL, model)

		// The entries as the endpoint's schema reads them, and the first
		// one the model accepts.
		var listed struct {
			Models []struct {
				Name   string  `json:"name"`
				Digest *string `json:"digest"`
			} `json:"models"`
		}
		shapeErr := json.Unmarshal(tags, &listed)
		first := -1
		for i, m := range listed.Models {
			if m.Name == model || m.Name == model+":latest" {
				first = i
				break
			}
		}

		if err == nil {
			if shapeErr != nil || first < 0 || listed.Models[first].Digest == nil {
				t.Fatalf("accepted %q for %q; shape %v, first match %d", tags, model, shapeErr, first)
			}
			if want := *listed.Models[first].Digest; got.ModelDigest != want || got.Version != "0.35.0" {
				t.Fatalf("got %+v, want digest %q of entry %d", got, want, first)
			}
			return
		}
		var oe *OllamaError
		if !errors.As(err, &oe) || oe.Endpoint != "/api/tags" || oe.StatusCode != 0 || oe.Err != nil {
			t.Fatalf("refusal %T %+v, want a body-level *OllamaError for /api/tags", err, err)
		}
		if shapeErr == nil && first >= 0 && listed.Models[first].Digest != nil {
			t.Fatalf("refused a listed model %q: %v", model, err)
		}
		fuzzed := []string{model, model + ":latest"}
		dec := json.NewDecoder(bytes.NewReader(tags))
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			if s, ok := tok.(string); ok {
				fuzzed = append(fuzzed, s)
			}
		}
		msg := err.Error()
		for _, s := range fuzzed {
			if !strings.Contains(msg, s) {
				continue
			}
			if !slices.ContainsFunc(tagsMessages, func(m string) bool { return strings.Contains(m, s) }) {
				t.Fatalf("message %q holds the fuzzed text %q", msg, s)
			}
		}
	})
}
