package lines

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodeRefuses: each line that does not fit the slice is refused
// naming its entry; a case journaled twice keeps its first line, and each
// part's wall time is its latest finished_seconds.
func TestDecodeRefuses(t *testing.T) {
	ids := []string{"r00:clean", "r00:unsigned"}
	digests := []string{"aa", "bb"}
	for _, tt := range []struct {
		name, line, want string
	}{
		{"not json object", `[1]`, "journal entry 2: not a case line"},
		{"index out of range", `{"index": 2, "case_id": "r01:clean"}`, "index 2 is outside the slice's 2 cases"},
		{"negative index", `{"index": -1}`, "index -1 is outside"},
		{"other case", `{"index": 1, "case_id": "r00:clean", "part": 1, "render_sha256": "bb"}`, `case "r00:clean" is not case 1 of the slice (r00:unsigned)`},
		{"other render", `{"index": 1, "case_id": "r00:unsigned", "part": 1, "render_sha256": "cc"}`, "render digest is not the slice's"},
		{"check", `{"index": 1, "case_id": "r00:unsigned", "part": 1, "render_sha256": "bb", "bad": true}`, "journal entry 2: bad line"},
		{"part 0", `{"index": 1, "case_id": "r00:unsigned", "part": 0, "render_sha256": "bb"}`, "part 0 is not a part number"},
		{"time too large", `{"index": 1, "case_id": "r00:unsigned", "part": 1, "finished_seconds": 1e300, "render_sha256": "bb"}`, "finished_seconds 1e+300 is not a time"},
		{"negative time", `{"index": 1, "case_id": "r00:unsigned", "part": 1, "finished_seconds": -1, "render_sha256": "bb"}`, "finished_seconds -1 is not a time"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			entries := []json.RawMessage{json.RawMessage(`{"index": 0, "case_id": "r00:clean", "part": 1, "render_sha256": "aa"}`), json.RawMessage(tt.line)}
			_, _, _, err := Decode(entries, ids, digests, RawMeta, func(l Raw, i int) error {
				var v struct{ Bad bool }
				if json.Unmarshal(l.Line, &v) == nil && v.Bad {
					return errors.New("bad line")
				}
				return nil
			})
			var le *Error
			require.ErrorAs(t, err, &le)
			assert.Equal(t, 2, le.Line)
			assert.ErrorContains(t, err, tt.want)
		})
	}

	entries := []json.RawMessage{
		json.RawMessage(`{"index": 1, "case_id": "r00:unsigned", "part": 1, "finished_seconds": 2.5, "render_sha256": "bb", "first": true}`),
		json.RawMessage(`{"index": 1, "case_id": "r00:unsigned", "part": 2, "finished_seconds": 1, "render_sha256": "bb"}`),
		json.RawMessage(`{"index": 0, "case_id": "r00:clean", "part": 1, "finished_seconds": 1.5, "render_sha256": "aa"}`),
	}
	// The later line of a case journaled twice is not given to check, so
	// a resume that keeps lines raw and a merge that checks them accept
	// the same journals.
	checked := 0
	got, wall, last, err := Decode(entries, ids, digests, RawMeta, func(l Raw, i int) error {
		checked++
		if l.Meta.Part == 2 {
			return errors.New("the later duplicate was checked")
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 2, checked)
	assert.Len(t, got, 2)
	assert.Contains(t, string(got[1].Line), `"first": true`, "a case journaled twice keeps its first line")
	assert.Equal(t, map[int]float64{1: 2.5, 2: 1}, wall)
	assert.Equal(t, 2, last)
}

// TestStrictRefuses: a typed line must be exactly the text the run
// writes; each way a key can be broken is refused, never read as zero
// (issue 25: a broken key name zeroed legibility_level).
func TestStrictRefuses(t *testing.T) {
	type line struct {
		Index int       `json:"index"`
		Level int       `json:"level"`
		P     []float64 `json:"p"`
	}
	good := `{"index":1,"level":2,"p":[0.5,0.5]}`
	var l line
	require.NoError(t, Strict([]byte(good), &l))
	assert.Equal(t, line{1, 2, []float64{0.5, 0.5}}, l)
	for name, bad := range map[string]string{
		"unknown key":  `{"index":1,"level":2,"p":[0.5,0.5],"x":1}`,
		"misspelt key": `{"index":1,"leve!":2,"p":[0.5,0.5]}`,
		"missing key":  `{"index":1,"p":[0.5,0.5]}`,
		"miscased key": `{"index":1,"Level":2,"p":[0.5,0.5]}`,
		"repeated key": `{"index":1,"level":2,"level":2,"p":[0.5,0.5]}`,
		"reordered":    `{"level":2,"index":1,"p":[0.5,0.5]}`,
		"number spelt": `{"index":1,"level":2.0,"p":[0.5,0.5]}`,
		"spaced":       `{"index":1, "level":2,"p":[0.5,0.5]}`,
		"two values":   good + good,
		"wrong type":   `{"index":1,"level":"2","p":[0.5,0.5]}`,
	} {
		var l line
		assert.Error(t, Strict([]byte(bad), &l), name)
	}
}

// TestOf: the shard of a case is a fixed function of its id.
func TestOf(t *testing.T) {
	assert.Equal(t, 0, Of("r00:clean", 3))
	assert.Equal(t, 0, Of("r00:clean", 1))
}

// FuzzDecode feeds one journal line of outside input to Decode: it never
// panics, and a line it accepts is a case of the slice, by index and id.
func FuzzDecode(f *testing.F) {
	ids := []string{"r00:clean", "r00:unsigned"}
	f.Add([]byte(`{"index": 1, "case_id": "r00:unsigned", "part": 1, "finished_seconds": 0.5, "render_sha256": "bb"}`))
	f.Add([]byte(`{"index": -1}`))
	f.Add([]byte(`{"index": 1e400}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		got, _, _, err := Decode([]json.RawMessage{line}, ids, []string{"aa", "bb"}, RawMeta, nil)
		if err != nil {
			return
		}
		for i, l := range got {
			if i < 0 || i >= len(ids) || l.CaseID != ids[i] || l.RenderSHA256 != []string{"aa", "bb"}[i] {
				t.Fatalf("accepted %q as case %d", line, i)
			}
		}
	})
}
