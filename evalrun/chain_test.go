package evalrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeJournal writes a version 2 journal with n entries and returns its
// path and bytes.
func writeJournal(t *testing.T, seed, n int) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	w, err := CreateJournal(path, header(t, seed))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := w.Add(entry{i, 0.125 * float64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

// Every single-byte change of an entry line, anywhere in it, is refused
// with the line's number: the chain binds each line to the header and the
// lines before it (issue 25's 3 of 23 flips that changed a resumed
// receipt).
func TestChainRefusesEveryByteFlip(t *testing.T) {
	path, b := writeJournal(t, 0, 3)
	lines := bytes.SplitAfter(b, []byte("\n"))
	start := len(lines[0]) + len(lines[1]) // line 3, the second entry
	end := start + len(lines[2]) - 1       // its newline stays
	for i := start; i < end; i++ {
		for _, flip := range []byte{0x01, 0x20} {
			bad := bytes.Clone(b)
			bad[i] ^= flip
			_, err := ReadJournal(bytes.NewReader(bad))
			var fe *JournalError
			if !errors.As(err, &fe) || fe.Line != 3 {
				t.Fatalf("byte %d ^ %#x (%q): err %v, want a refusal of line 3", i-start, flip, bad[start:end], err)
			}
		}
	}
	if _, err := ReadJournalFile(path); err != nil {
		t.Fatal(err)
	}
}

// A header byte changed breaks the first entry's link.
func TestChainRefusesAChangedHeader(t *testing.T) {
	_, b := writeJournal(t, 0, 1)
	bad := bytes.Replace(b, []byte(`"value":"m"`), []byte(`"value":"n"`), 1)
	_, err := ReadJournal(bytes.NewReader(bad))
	var fe *JournalError
	if !errors.As(err, &fe) || fe.Line != 2 {
		t.Fatalf("err %v", err)
	}
}

// A line of another journal (another run of the same kind), a line
// removed from the middle and two lines swapped are refused.
func TestChainRefusesForeignAndMovedLines(t *testing.T) {
	_, mine := writeJournal(t, 0, 3)
	_, other := writeJournal(t, 1, 3)
	m := bytes.SplitAfter(mine, []byte("\n"))
	o := bytes.SplitAfter(other, []byte("\n"))
	cases := map[string][][]byte{
		"foreign line": {m[0], m[1], o[2], m[3]},
		"line removed": {m[0], m[1], m[3]},
		"lines moved":  {m[0], m[2], m[1], m[3]},
	}
	for name, ls := range cases {
		_, err := ReadJournal(bytes.NewReader(bytes.Join(ls, nil)))
		var fe *JournalError
		if !errors.As(err, &fe) || !strings.Contains(fe.Msg, "restore it from a copy") {
			t.Errorf("%s: err %v", name, err)
		}
	}
}

// ReadFile's refusal names the journal, the line and what to do.
func TestFormatErrorNamesFileLineAndRemedy(t *testing.T) {
	path, b := writeJournal(t, 0, 2)
	bad := bytes.Replace(b, []byte(`"p":0.125`), []byte(`"p":0.126`), 1)
	if err := os.WriteFile(path, bad, 0o666); err != nil {
		t.Fatal(err)
	}
	_, err := ReadJournalFile(path)
	if err == nil || !strings.Contains(err.Error(), path+" line 3:") || !strings.Contains(err.Error(), "start the run over") {
		t.Fatalf("err %v", err)
	}
}

// A version 1 journal (lines without a chain, as written before version
// 2) is still read, and a resume keeps appending version 1 lines.
func TestVersion1StillReadAndResumed(t *testing.T) {
	h := header(t, 0)
	h.Schema, h.Version = JournalSchema, 1
	hb, _ := json.Marshal(h)
	text := string(hb) + "\n" + `{"index":0,"p":0.5}` + "\n"
	path := filepath.Join(t.TempDir(), "v1.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	c, err := ReadJournalFile(path)
	if err != nil || c.Header.Version != 1 || len(c.Entries) != 1 {
		t.Fatalf("%+v %v", c, err)
	}
	w, err := ResumeJournal(path, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(entry{1, 0.25}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	c, err = ReadJournalFile(path)
	if err != nil || len(c.Entries) != 2 || string(c.Entries[1]) != `{"index":1,"p":0.25}` {
		t.Fatalf("%+v %v", c, err)
	}
}

// A chained journal resumed keeps its chain.
func TestChainContinuesOnResume(t *testing.T) {
	path, _ := writeJournal(t, 0, 2)
	c, err := ReadJournalFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ResumeJournal(path, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(entry{2, 0.5}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	c, err = ReadJournalFile(path)
	if err != nil || len(c.Entries) != 3 || string(c.Entries[2]) != `{"index":2,"p":0.5}` {
		t.Fatalf("%+v %v", c, err)
	}
}

func TestCompareAdvisory(t *testing.T) {
	pin := func(name string, v any) Pin { p, _ := NewPin(name, v); return p }
	mk := func(commit, renderer, digest string) Header {
		return Header{Kind: "k", Pins: []Pin{
			pin("renderer", map[string]string{"module_version": renderer, "font": "f"}),
			pin("baseline_commit", commit), pin("identity_digest", digest)}}
	}
	adv := Advisory{Pins: []string{"baseline_commit"}, Keys: map[string][]string{"renderer": {"module_version"}}, Derived: []string{"identity_digest"}}
	j := mk("a", "a", "d1")
	w, err := j.Compare(mk("b", "b+dirty", "d2"), adv)
	if err != nil || len(w) != 3 || w[0].Pin != "renderer.module_version" || w[1].Pin != "baseline_commit" || w[2].Pin != "identity_digest" {
		t.Fatalf("warnings %v, err %v", w, err)
	}
	// A derived pin that differs on its own is a refusal.
	var me *MismatchError
	if _, err := j.Compare(mk("a", "a", "d2"), adv); !errors.As(err, &me) || me.Pin != "identity_digest" {
		t.Errorf("derived alone: %v", err)
	}
	// Another renderer key is a refusal naming the pin.
	other := mk("a", "a", "d1")
	other.Pins[0] = pin("renderer", map[string]string{"module_version": "a", "font": "g"})
	if _, err := j.Compare(other, adv); !errors.As(err, &me) || me.Pin != "renderer" {
		t.Errorf("font: %v", err)
	}
}

// A mismatch shows both values in full, and where long ones first differ
// (issue 25: values cut at 77 characters printed the same prefix twice).
func TestMismatchShowsBothValuesInFull(t *testing.T) {
	a := `{"module":"github.com/typevet/typevet-go","module_version":"` + strings.Repeat("0", 40) + `","font":"x"}`
	b := strings.Replace(a, `"x"`, `"y"`, 1)
	msg := (&MismatchError{Pin: "renderer", Journal: a, Now: b}).Error()
	if !strings.Contains(msg, a) || !strings.Contains(msg, b) || !strings.Contains(msg, `first differ at byte 110: …x"} vs …y"}`) {
		t.Errorf("message %s", msg)
	}
}
