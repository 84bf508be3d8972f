// Package lines reads the case lines of run journals and checks that a set
// of shard journals is one whole experiment: the part of resume and merge
// that does not depend on what a line answers. Package checkmatch uses it
// for check-match runs (checkmatch.ResumeJournal, checkmatch.MergeReceipt)
// and package checkmatch/orderings for the option-order study
// (orderings.MergeReceipt); each checks its own lines' answers.
package lines

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/evalrun"
)

// ShardPin is the name of the journal pin that records a shard run's
// shard ("i/n"); it is the only pin in which the shards of one experiment
// differ.
const ShardPin = "shard"

// Meta is what every kind of journal line holds besides its answers.
type Meta struct {
	// Index is the case's slice index.
	Index int `json:"index"`
	// CaseID is the case id, checked against the slice.
	CaseID string `json:"case_id"`
	// Part numbers the run that wrote the line: 1 for the first, one more
	// for each resume.
	Part int `json:"part"`
	// FinishedSeconds is the part's wall clock when the case finished.
	FinishedSeconds float64 `json:"finished_seconds"`
	// RenderSHA256 is the digest of the render the judge saw.
	RenderSHA256 string `json:"render_sha256"`
}

// Raw is a journal line of any kind: its [Meta] and the raw line, for the
// run that knows its answers to decode.
type Raw struct {
	Meta
	// Line is the line as the journal holds it.
	Line json.RawMessage
}

// UnmarshalJSON keeps the raw line and decodes its Meta.
func (l *Raw) UnmarshalJSON(b []byte) error {
	l.Line = append(json.RawMessage(nil), b...)
	return json.Unmarshal(b, &l.Meta)
}

// RawMeta is the meta function of [Decode] for [Raw] lines.
func RawMeta(l *Raw) Meta { return l.Meta }

// maxSeconds bounds a part's finished_seconds and a latency: a year.
const maxSeconds = 365 * 24 * 3600

// check refuses meta values no run writes: a part below 1, a time that is
// negative, not finite or over a year.
func (m Meta) check() error {
	if m.Part < 1 {
		return fmt.Errorf("part %d is not a part number (1 or more)", m.Part)
	}
	if !(m.FinishedSeconds >= 0 && m.FinishedSeconds <= maxSeconds) {
		return fmt.Errorf("finished_seconds %v is not a time from 0 to a year", m.FinishedSeconds)
	}
	return nil
}

// Seconds refuses a duration of name that is negative, not finite or over
// a year.
func Seconds(name string, v float64) error {
	if !(v >= 0 && v <= maxSeconds) {
		return fmt.Errorf("%s %v is not a time from 0 to a year", name, v)
	}
	return nil
}

// Strict decodes the journal line b into v (a pointer to a line type)
// strictly: the line must be exactly the JSON text encoding/json writes
// for the value it decodes to, so an unknown, missing, repeated or
// miscased key, a reordered line or a number written another way is
// refused, never read as a zero value. A [Raw] line is kept as it is,
// for the run that knows its answers to decode strictly.
func Strict(b []byte, v any) error {
	if r, ok := v.(*Raw); ok {
		return r.UnmarshalJSON(b)
	}
	return evalrun.DecodeLine(b, v)
}

// Error reports a journal line that does not fit the slice of the run: an
// index out of range, a case id or render digest that is not the slice's,
// or a line that is not a case.
type Error struct {
	// Path is the journal's path when the caller knows it, else "".
	Path string
	// Line is the entry's 1-based position after the header.
	Line int
	// Msg says what does not fit.
	Msg string
}

// Error returns "journal entry <n>: <msg>", or with a path "journal
// <path> line <n+1>: <msg>; …" and what to do.
func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("journal entry %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("journal %s line %d: %s; the line is not one this run wrote: restore the journal from a copy, or remove it and start the run over", e.Path, e.Line+1, e.Msg)
}

// Decode decodes a journal's entries as lines of type T and checks each
// against the slice's case ids and renders (digests[i] is case i's render
// digest; nil skips that check, as a merge does): the index in range, the
// case id and render digest the slice's, then check (given the line and
// its index). A case journaled twice keeps its first line: a later line of
// the same case is checked for its index, case id and render digest but
// not by check, so that a resume (which keeps a study's lines raw) and a
// merge accept the same journals. It returns the
// lines by index, each part's wall time (its latest finished_seconds) and
// the last part number.
func Decode[T any](entries []json.RawMessage, ids, digests []string, meta func(*T) Meta, check func(T, int) error) (map[int]T, map[int]float64, int, error) {
	out := make(map[int]T, len(entries))
	partWall := map[int]float64{}
	last := 0
	for n, raw := range entries {
		var line T
		if err := Strict(raw, &line); err != nil {
			return nil, nil, 0, &Error{Line: n + 1, Msg: "not a case line: " + err.Error()}
		}
		m := meta(&line)
		if m.Index < 0 || m.Index >= len(ids) {
			return nil, nil, 0, &Error{Line: n + 1, Msg: fmt.Sprintf("index %d is outside the slice's %d cases", m.Index, len(ids))}
		}
		if m.CaseID != ids[m.Index] {
			return nil, nil, 0, &Error{Line: n + 1, Msg: fmt.Sprintf("case %q is not case %d of the slice (%s)", m.CaseID, m.Index, ids[m.Index])}
		}
		if err := m.check(); err != nil {
			return nil, nil, 0, &Error{Line: n + 1, Msg: err.Error()}
		}
		_, dup := out[m.Index]
		if check != nil && !dup {
			if err := check(line, m.Index); err != nil {
				return nil, nil, 0, &Error{Line: n + 1, Msg: err.Error()}
			}
		}
		if digests != nil && m.RenderSHA256 != digests[m.Index] {
			return nil, nil, 0, &Error{Line: n + 1, Msg: "render digest is not the slice's"}
		}
		partWall[m.Part] = max(partWall[m.Part], m.FinishedSeconds)
		last = max(last, m.Part)
		if !dup {
			out[m.Index] = line
		}
	}
	return out, partWall, last, nil
}

// Of returns the shard, 0 to count-1, of the case with id caseID: the
// first 8 bytes of SHA-256(case id), read as a big-endian unsigned
// integer, modulo count; count must be at least 1.
func Of(caseID string, count int) int { return evalrun.ShardOf(caseID, count) }

// Shard is one shard of a set, as its record and journal give it.
type Shard struct {
	// Path is the record's path, for messages.
	Path string
	// Header is the journal's header, shard pin included.
	Header journal.Header
	// Index and Count are the record's shard, "Index/Count".
	Index, Count int
	// Entries are the journal's lines after the header.
	Entries []json.RawMessage
}

func (s Shard) name() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// MismatchError refuses to merge a shard of another experiment: it names
// the shard and the first pin (in the first shard's pin order) that
// differs from the first shard's.
type MismatchError struct {
	// Path is the shard's record path.
	Path string
	// Mismatch names the pin and both values.
	Mismatch *journal.MismatchError
}

// Error returns "<path> is a shard of another experiment: <pin> differs
// (first shard <a>, this shard <b>)".
func (e *MismatchError) Error() string {
	m := e.Mismatch
	return fmt.Sprintf("%s is a shard of another experiment: %s differs (%s)", e.Path, m.Pin, journal.ShowValues("first shard", m.Journal, "this shard", m.Now))
}

// SetError refuses a set of shards that is not one whole run: a missing
// shard, the same shard twice, shards of different counts, a case in two
// shards, or a case no shard holds.
type SetError struct {
	// Msg says what is wrong, naming the shard or the case.
	Msg string
}

// Error returns the message.
func (e *SetError) Error() string { return "merge refused: " + e.Msg }

// Order checks that shards are one experiment of kind (a *MismatchError
// naming the first differing pin, "kind" for a shard of another run type)
// and one whole set of shards (a *SetError), and returns their positions
// in shards by shard index.
func Order(shards []Shard, kind string) ([]int, error) {
	order, _, err := OrderAdvisory(shards, kind, journal.Advisory{})
	return order, err
}

// OrderAdvisory is [Order] comparing headers under adv: it also returns,
// per shard after the first, the advisory pins in which it differs from
// the first shard, each as "<path>: <difference>".
func OrderAdvisory(shards []Shard, kind string, adv journal.Advisory) ([]int, []string, error) {
	if len(shards) == 0 {
		return nil, nil, &SetError{Msg: "no shards given"}
	}
	first := shards[0]
	if k := first.Header.Kind; k != kind {
		return nil, nil, &SetError{Msg: fmt.Sprintf("%s is a shard of a %s run, not of a %s run", first.Path, k, kind)}
	}
	var notes []string
	base := DropPin(first.Header, ShardPin)
	n := first.Count
	byIndex := make([]int, n)
	for i := range byIndex {
		byIndex[i] = -1
	}
	for k, sf := range shards {
		warnings, err := base.Compare(DropPin(sf.Header, ShardPin), adv)
		if err != nil {
			me, ok := err.(*journal.MismatchError)
			if !ok {
				return nil, nil, fmt.Errorf("%s: %w", sf.Path, err)
			}
			return nil, nil, &MismatchError{Path: sf.Path, Mismatch: me}
		}
		for _, w := range warnings {
			notes = append(notes, fmt.Sprintf("%s: %s differs (%s)", sf.Path, w.Pin, journal.ShowValues("first shard", w.Journal, "this shard", w.Now)))
		}
		if sf.Count != n {
			return nil, nil, &SetError{Msg: fmt.Sprintf("%s is shard %s but %s is of %d shards", sf.Path, sf.name(), first.Path, n)}
		}
		if prev := byIndex[sf.Index]; prev >= 0 {
			return nil, nil, &SetError{Msg: fmt.Sprintf("shard %s is given twice (%s and %s)", sf.name(), shards[prev].Path, sf.Path)}
		}
		byIndex[sf.Index] = k
	}
	for i, k := range byIndex {
		if k < 0 {
			return nil, nil, &SetError{Msg: fmt.Sprintf("shard %d/%d is missing: run it and give its record", i, n)}
		}
	}
	return byIndex, notes, nil
}

// Gather reads every case's line (of type T, checked by check) from the
// journals of a whole set, byIndex as [Order] put them, by slice index of
// ids. It refuses a line that is not a case of ids, a case in two shards,
// a case outside its shard and a case no journal holds.
func Gather[T any](byIndex []Shard, ids []string, meta func(*T) Meta, check func(T, int) error) ([]T, error) {
	found := make([]T, len(ids))
	owner := make([]string, len(ids))
	var foreign error
	for _, sf := range byIndex {
		lines, _, _, err := Decode(sf.Entries, ids, nil, meta, check)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sf.Path, err)
		}
		for _, i := range slices.Sorted(maps.Keys(lines)) {
			id := ids[i]
			if owner[i] != "" {
				return nil, &SetError{Msg: fmt.Sprintf("case %s is in two shards (%s and %s)", id, owner[i], sf.Path)}
			}
			if Of(id, sf.Count) != sf.Index && foreign == nil {
				// Reported after every shard is read: a case in two
				// shards names both.
				foreign = &SetError{Msg: fmt.Sprintf("case %s is not of shard %s (%s)", id, sf.name(), sf.Path)}
			}
			found[i], owner[i] = lines[i], sf.Path
		}
	}
	if foreign != nil {
		return nil, foreign
	}
	n := len(byIndex)
	for i, id := range ids {
		if owner[i] == "" {
			return nil, &SetError{Msg: fmt.Sprintf("case %s of shard %d/%d is in no journal: resume that shard", id, Of(id, n), n)}
		}
	}
	return found, nil
}

// DropPin returns h without the pin name.
func DropPin(h journal.Header, name string) journal.Header {
	out := h
	out.Pins = nil
	for _, p := range h.Pins {
		if p.Name != name {
			out.Pins = append(out.Pins, p)
		}
	}
	return out
}
