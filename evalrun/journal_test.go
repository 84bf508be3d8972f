package evalrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func header(t testing.TB, seed int) Header {
	t.Helper()
	a, err := NewPin("generator_seed", seed)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewPin("model", "m")
	return Header{Kind: "check_match", Pins: []Pin{a, b}}
}

type entry struct {
	Index int     `json:"index"`
	P     float64 `json:"p"`
}

func TestCreateAddRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json"+JournalSuffix)
	w, err := CreateJournal(path, header(t, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := []entry{{0, 0.1 + 0.2}, {1, 1e-300}, {2, 0.3333333333333333}}
	for _, e := range want {
		if err := w.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateJournal(path, header(t, 0)); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second Create = %v, want fs.ErrExist", err)
	}
	c, err := ReadJournalFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Header.Schema != JournalSchema || c.Header.Version != JournalVersion || c.Torn != nil {
		t.Fatalf("header %+v torn %v", c.Header, c.Torn)
	}
	if err := c.Header.Check(header(t, 0)); err != nil {
		t.Error(err)
	}
	var got []entry
	for _, raw := range c.Entries {
		var e entry
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] { // full precision: bit-equal floats
			t.Errorf("entry %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestTornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	w, err := CreateJournal(path, header(t, 0))
	if err != nil {
		t.Fatal(err)
	}
	w.Add(entry{0, 0.5})
	w.Close()
	full, _ := os.ReadFile(path)
	// A process killed mid-write: half a line, no newline.
	torn := append(bytes.Clone(full), []byte(`{"index":1,"p":0.`)...)
	os.WriteFile(path, torn, 0o644)
	c, err := ReadJournalFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Torn == nil || c.Torn.Line != 3 || len(c.Entries) != 1 || c.Size != int64(len(full)) {
		t.Fatalf("torn %+v entries %d size %d", c.Torn, len(c.Entries), c.Size)
	}
	// Resume cuts it off and appends on a line of its own.
	w, err = ResumeJournal(path, c)
	if err != nil {
		t.Fatal(err)
	}
	w.Add(entry{1, 0.25})
	w.Close()
	c, err = ReadJournalFile(path)
	if err != nil || c.Torn != nil || len(c.Entries) != 2 {
		t.Fatalf("after resume: %+v, %v", c, err)
	}
}

func TestReadRefuses(t *testing.T) {
	h, _ := json.Marshal(Header{Schema: JournalSchema, Version: 1, Kind: "k"})
	good := string(h) + "\n" // a version 1 header: lines without a chain
	tests := []struct {
		name, text string
		want       error
	}{
		{"empty", "", &JournalError{}},
		{"torn header", `{"schema":"typev`, ErrTornHeader},
		{"other schema", `{"schema":"x","version":1}` + "\n", &JournalError{}},
		{"other version", `{"schema":"typevet-go.journal","version":3,"kind":"k","pins":[]}` + "\n", &JournalError{}},
		{"unknown header key", `{"schema":"typevet-go.journal","version":2,"kind":"k","pins":[],"x":1}` + "\n", &JournalError{}},
		{"miscased header key", `{"schema":"typevet-go.journal","version":2,"Kind":"k","pins":[]}` + "\n", &JournalError{}},
		{"missing header key", `{"schema":"typevet-go.journal","version":2,"kind":"k"}` + "\n", &JournalError{}},
		{"bad middle line", good + "{nope\n" + `{"a":1}` + "\n", &JournalError{}},
		{"header not an object", "[1]\n", &JournalError{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadJournal(strings.NewReader(tt.text))
			if err == nil {
				t.Fatal("read")
			}
			var fe *JournalError
			if tt.want == ErrTornHeader && !errors.Is(err, ErrTornHeader) || tt.want != ErrTornHeader && !errors.As(err, &fe) {
				t.Errorf("err = %v (%T)", err, err)
			}
		})
	}
	// In a version 1 journal a complete but invalid last line is torn too
	// (a write cut short at a newline inside a value is impossible, but
	// version 1 is lenient at the end); version 2 refuses it (below).
	c, err := ReadJournal(strings.NewReader(good + `{"a":1}` + "\n" + "{nope\n"))
	if err != nil || c.Torn == nil || c.Torn.Line != 3 {
		t.Errorf("invalid last line: %+v %v", c.Torn, err)
	}
}

func TestCheckNamesFirstDifferingPin(t *testing.T) {
	j := header(t, 0)
	seed1 := header(t, 1)
	var me *MismatchError
	if err := j.Check(seed1); !errors.As(err, &me) || me.Pin != "generator_seed" || me.Journal != "0" || me.Now != "1" {
		t.Fatalf("Check = %v", err)
	}
	if !strings.Contains(me.Error(), "generator_seed differs") {
		t.Errorf("message %q", me.Error())
	}
	other := header(t, 0)
	other.Kind = "orderings"
	if err := j.Check(other); !errors.As(err, &me) || me.Pin != "kind" {
		t.Errorf("kind: %v", err)
	}
	missing := Header{Kind: "check_match", Pins: j.Pins[:1]}
	if err := j.Check(missing); !errors.As(err, &me) || me.Pin != "model" || me.Now != "" {
		t.Errorf("missing: %v", err)
	}
	extra := header(t, 0)
	p, _ := NewPin("concurrency", 4)
	extra.Pins = append(extra.Pins, p)
	if err := j.Check(extra); !errors.As(err, &me) || me.Pin != "concurrency" {
		t.Errorf("extra: %v", err)
	}
	spaced := header(t, 0)
	spaced.Pins[1].Value = json.RawMessage(` "m" `)
	if err := j.Check(spaced); err != nil {
		t.Errorf("same JSON, other spacing: %v", err)
	}
}

// BenchmarkAdd is the journal's cost per finished case: one marshalled
// case-sized line, one write, one fdatasync. Beside it, two floors: the
// same bytes written and fdatasynced without the journal (the device's
// flush latency, which no durable journal can beat), and the journal's
// work without the sync (its own CPU cost).
func BenchmarkAdd(b *testing.B) {
	line := caseLike()
	raw, _ := json.Marshal(line)
	raw = append(raw, '\n')
	modes := []string{"journal", "write+fdatasync-floor", "journal-nosync"}
	// At a run's concurrency, cases finishing together share a flush.
	b.Run("journal-c16", func(b *testing.B) {
		w, err := CreateJournal(filepath.Join(b.TempDir(), "j.jsonl"), header(b, 0))
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		b.ReportAllocs()
		b.SetParallelism((16 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := w.Add(line); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	for _, mode := range modes {
		b.Run(mode, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "j.jsonl")
			w, err := CreateJournal(path, header(b, 0))
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			b.ReportAllocs()
			for b.Loop() {
				switch mode {
				case "journal":
					if err := w.Add(line); err != nil {
						b.Fatal(err)
					}
				case "write+fdatasync-floor":
					w.f.Write(raw)
					datasync(w.f)
				default:
					buf, _ := json.Marshal(line)
					w.f.Write(append(buf, '\n'))
				}
			}
		})
	}
}

func caseLike() map[string]any {
	return map[string]any{
		"index": 17, "case_id": "r02:payee_changed", "attempts": 1, "part": 1, "finished_seconds": 123.456789,
		"verdict": "payee_mismatch",
		"verdict_probabilities": map[string]float64{"consistent": 0.01, "payee_mismatch": 0.97, "amount_mismatch": 0.005,
			"date_mismatch": 0.005, "unsigned": 0.005, "cannot_tell": 0.005},
		"payee_confidence": 0.0123456789, "amounts_confidence": 0.987654321, "legibility_score": 3.2,
		"legibility_level": 3, "legibility_probabilities": []float64{0.01, 0.02, 0.1, 0.5, 0.37},
		"render_sha256": strings.Repeat("ab", 32), "latency": 7.8512345, "input_tokens": 812,
	}
}

// TestConcurrentAddsShareFlushes: every entry 32 goroutines added is in
// the journal once, whole, and a flush that failed fails every later Add
// (no later flush proves the lost pages written).
func TestConcurrentAddsShareFlushes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json"+JournalSuffix)
	w, err := CreateJournal(path, header(t, 0))
	if err != nil {
		t.Fatal(err)
	}
	const n = 32
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Add(entry{i, float64(i) / 3}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	c, err := ReadJournalFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, raw := range c.Entries {
		var e entry
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		if seen[e.Index] || e.P != float64(e.Index)/3 {
			t.Errorf("entry %+v repeated or changed", e)
		}
		seen[e.Index] = true
	}
	if len(seen) != n || c.Torn != nil {
		t.Fatalf("%d of %d entries, torn %v", len(seen), n, c.Torn)
	}

	// A flush that fails (here: the file closed under the writer) is
	// sticky.
	w.mu.Lock()
	w.f.Close()
	w.mu.Unlock()
	if err := w.Add(entry{n, 0}); err == nil {
		t.Fatal("Add on a failed file succeeded")
	}
	w.mu.Lock()
	w.f, _ = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	w.mu.Unlock()
	if err := w.Add(entry{n + 1, 0}); err == nil || !strings.Contains(err.Error(), "journal: writing") {
		t.Fatalf("Add after a failure = %v, want the first failure again", err)
	}
	w.Close()
}
