package checkmatch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

// shardSchema is the schema key of a [ShardRecord].
const shardSchema = "typevet-go.shard"

// shardVersion is the shard record format version this package writes and
// reads.
const shardVersion = 1

// ShardReading is one replica's /metrics readings around a shard run, as a
// shard record keeps them for the merge ([serving.Interval]).
type ShardReading struct {
	// Replica names the replica ("" for the session's one base URL).
	Replica string `json:"replica"`
	// Start and End are when the readings were taken (UTC, RFC 3339 with
	// nanoseconds).
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Before and After are the /metrics texts; null when no reading.
	Before *string `json:"before"`
	After  *string `json:"after"`
}

// NewShardReading returns the reading record of one replica's readings.
func NewShardReading(replica string, start, end time.Time, before, after serving.Reading) ShardReading {
	text := func(r serving.Reading) *string {
		if !r.OK {
			return nil
		}
		return &r.Text
	}
	return ShardReading{Replica: replica, Start: start.UTC(), End: end.UTC(), Before: text(before), After: text(after)}
}

func (r ShardReading) interval() serving.Interval {
	read := func(s *string) serving.Reading {
		if s == nil {
			return serving.Reading{}
		}
		return serving.Reading{Text: *s, OK: true}
	}
	return serving.Interval{Replica: r.Replica, Start: r.Start, End: r.End, Before: read(r.Before), After: read(r.After)}
}

// ShardRecord is the document a finished shard run writes (at the path a
// whole run would write its receipt): its own schema (shardSchema) and
// version, the shard, the run's identity (the journal header, shard pin
// included), the journal beside it (name and SHA-256) and what a receipt
// needs that the journal does not hold. It is never a receipt: only
// mergeShards over every shard makes one.
type ShardRecord struct {
	// Schema is shardSchema; Version is shardVersion.
	Schema  string `json:"schema"`
	Version int    `json:"version"`
	// Shard is "i/n".
	Shard Shard `json:"shard"`
	// Identity is the journal's header: every pin that decides the
	// answers, and the shard.
	Identity journal.Header `json:"identity"`
	// Journal is the journal's file name, in the record's directory;
	// JournalSHA256 the SHA-256 hex of its bytes when the shard finished.
	Journal       string `json:"journal"`
	JournalSHA256 string `json:"journal_sha256"`
	// Cases is the number of cases of the shard (all judged).
	Cases int `json:"cases"`
	// WallSeconds is the shard's unrounded wall time (summed over its
	// parts when resumed).
	WallSeconds float64 `json:"wall_seconds"`
	// Backend, Model, Pins, ReceiptIdentity and ServerArgs are the
	// receipt parts of the whole slice as this shard's process would write
	// them ([RunContext.ReceiptParts] with arm_call_counts over every case
	// of the slice). Pins is a check-match shard's (absent from an
	// option-order shard's record); OrderingsPins an option-order study
	// shard's ([RunContext.OrderingsReceiptParts], with server_args inside
	// it: ServerArgs is then null), absent from a check-match shard's.
	// Identity.Kind says which.
	Backend         serving.Backend          `json:"backend"`
	Model           string                   `json:"model"`
	Pins            *Pins                    `json:"pins,omitempty"`
	OrderingsPins   *OrderingsPins           `json:"orderings_pins,omitempty"`
	ReceiptIdentity receipt.Identity         `json:"receipt_identity"`
	ServerArgs      *serving.ServerArgsBlock `json:"server_args"`
	// Readings are the /metrics readings of the shard's last part, one per
	// replica; empty without /metrics.
	Readings []ShardReading `json:"readings"`
}

// NewShardRecord returns the record of a finished shard run: s, the
// journal header h and the journal file (its path, hashed now), run's
// wall time and cases, c's receipt parts for the whole slice, and the
// readings.
func NewShardRecord(c RunContext, slice Slice, s Shard, h journal.Header, journalPath string, run RunResult, readings []ShardReading) (ShardRecord, error) {
	full := run
	full.Outcomes = make([]Outcome, len(slice.Requests)) // arm_call_counts: the whole slice
	parts := c.ReceiptParts(slice, full)
	if readings == nil {
		readings = []ShardReading{}
	}
	rec := ShardRecord{
		Cases: len(run.Outcomes), WallSeconds: run.WallSeconds,
		Backend: parts.Backend, Model: parts.Model, Pins: &parts.Pins,
		ReceiptIdentity: parts.Identity, ServerArgs: parts.ServerArgs, Readings: readings,
	}
	return rec.seal(s, h, journalPath)
}

// seal fills in the record's schema, shard, identity and journal (its
// path, hashed now).
func (r ShardRecord) seal(s Shard, h journal.Header, journalPath string) (ShardRecord, error) {
	b, err := os.ReadFile(journalPath)
	if err != nil {
		return ShardRecord{}, err
	}
	sum := sha256.Sum256(b)
	h.Schema, h.Version = journal.Schema, journal.Version
	r.Schema, r.Version, r.Shard, r.Identity = shardSchema, shardVersion, s, h
	r.Journal, r.JournalSHA256 = filepath.Base(journalPath), hex.EncodeToString(sum[:])
	return r, nil
}

// ShardFile is a shard record read back with its journal ([ReadShard]).
type ShardFile struct {
	// Path is the record's path, for messages.
	Path string
	// Record is the record.
	Record ShardRecord
	// Journal is the journal it names.
	Journal journal.Contents
}

// ReadShard reads the shard record at path and the journal it names
// beside it, and checks that they belong together: the record's schema
// and version, the journal's SHA-256 and header (equal to the record's
// identity, shard pin included).
func ReadShard(path string) (ShardFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return ShardFile{}, err
	}
	var rec ShardRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&rec); err != nil {
		return ShardFile{}, fmt.Errorf("%s: not a shard record: %w", path, err)
	}
	if rec.Schema != shardSchema || rec.Version != shardVersion {
		return ShardFile{}, fmt.Errorf("%s: schema %q version %d is not a %s version %d shard record", path, rec.Schema, rec.Version, shardSchema, shardVersion)
	}
	if rec.Journal == "" || filepath.Base(rec.Journal) != rec.Journal {
		return ShardFile{}, fmt.Errorf("%s: the journal must be a file name beside the record", path)
	}
	jpath := filepath.Join(filepath.Dir(path), rec.Journal)
	jb, err := os.ReadFile(jpath)
	if err != nil {
		return ShardFile{}, fmt.Errorf("%s: its journal: %w", path, err)
	}
	if sum := sha256.Sum256(jb); hex.EncodeToString(sum[:]) != rec.JournalSHA256 {
		return ShardFile{}, fmt.Errorf("%s: the journal %s is not the one the shard finished with (SHA-256 differs)", path, jpath)
	}
	c, err := journal.Read(bytes.NewReader(jb))
	if err != nil {
		return ShardFile{}, fmt.Errorf("%s: %w", jpath, err)
	}
	if err := rec.Identity.Check(c.Header); err != nil {
		return ShardFile{}, fmt.Errorf("%s: the journal's header is not the record's identity: %w", path, err)
	}
	switch k := rec.Identity.Kind; {
	case k == journalKind && rec.Pins == nil, k == OrderingsJournalKind && rec.OrderingsPins == nil:
		return ShardFile{}, fmt.Errorf("%s: a %s shard record without its pins", path, k)
	case k != journalKind && k != OrderingsJournalKind:
		return ShardFile{}, fmt.Errorf("%s: kind %q is not a check-match run or an option-order study", path, k)
	}
	return ShardFile{Path: path, Record: rec, Journal: c}, nil
}

// shardMismatchError refuses to merge a shard of another experiment: it
// names the shard and the first pin (in the first shard's pin order) that
// differs from the first shard's.
type shardMismatchError struct {
	// Path is the shard's record path.
	Path string
	// Mismatch names the pin and both values.
	Mismatch *journal.MismatchError
}

// Error returns "<path> is a shard of another experiment: <pin> differs
// (first shard <a>, this shard <b>)".
func (e *shardMismatchError) Error() string {
	m := e.Mismatch
	return fmt.Sprintf("%s is a shard of another experiment: %s differs (first shard %s, this shard %s)", e.Path, m.Pin, orAbsent(m.Journal), orAbsent(m.Now))
}

func orAbsent(s string) string {
	if s == "" {
		return "absent"
	}
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// shardSetError refuses a set of shards that is not one whole run: a
// missing shard, the same shard twice, shards of different counts, a case
// in two shards, or a case no shard holds.
type shardSetError struct {
	// Msg says what is wrong, naming the shard or the case.
	Msg string
}

// Error returns the message.
func (e *shardSetError) Error() string { return "merge refused: " + e.Msg }

// mergeShards puts the shards of one experiment, by index as [shardSet]
// checked them, back together: the
// outcomes of every case of slice cases (from [Cases] with the shards'
// seed and rows) in slice order, as one [RunResult], and the receipt
// parts for [BuildReceipt]. The receipt it gives is byte-identical to the
// one a single process judging the whole slice would write, but for what
// depends on how the work was spread and when:
//
//   - pins.finished_utc is the latest shard's, identity.run_id is new;
//   - wall_seconds is the longest shard's (shards run side by side), so
//     throughput's judgments_per_second is all judgments over that wall
//     time, and its latency figures are over every case's latency;
//   - the server block is [serving.MergeRunDelta] over every shard's
//     readings: counters and histograms summed, shards that ran at the
//     same time against the same replica joined into one interval, the
//     gauges of the pool (see there). A resumed shard's readings cover its
//     last part only.
//
// It refuses, before building anything, a case in two shards, a case
// outside its shard and a case of no shard.
func mergeShards(cases []Case, byIndex []*ShardFile) (RunResult, ReceiptParts, error) {
	found, err := shardLines(byIndex, cases, journalCaseMeta, checkCaseLine)
	if err != nil {
		return RunResult{}, ReceiptParts{}, err
	}
	first := byIndex[0]
	var run RunResult
	var readings []serving.Interval
	finished := first.Record.Pins.FinishedUTC
	for _, sf := range byIndex {
		run.WallSeconds = max(run.WallSeconds, sf.Record.WallSeconds)
		finished = max(finished, sf.Record.Pins.FinishedUTC)
		for _, r := range sf.Record.Readings {
			readings = append(readings, r.interval())
		}
	}
	run.Outcomes = make([]Outcome, len(cases))
	for i, jc := range found {
		run.Outcomes[i] = jc.outcome(Request{Case: cases[i]})
	}
	run.Concurrency = first.Record.Pins.Concurrency
	rec := first.Record
	if len(readings) > 0 {
		d, err := serving.MergeRunDelta(readings)
		if err != nil {
			return RunResult{}, ReceiptParts{}, err
		}
		run.Server = &d
		run.Warnings = append(run.Warnings, d.Warnings...)
	}
	pins := *rec.Pins
	pins.FinishedUTC = finished
	id := rec.ReceiptIdentity
	id.RunID = receipt.NewRunID()
	return run, ReceiptParts{Backend: rec.Backend, Model: rec.Model, Pins: pins, Identity: id, ServerArgs: rec.ServerArgs}, nil
}

// shardSet checks that shards are one experiment of kind (a
// shardMismatchError naming the first differing pin, "kind" for a
// shard of another run type) and one whole set of shards (a
// shardSetError), and returns them by shard index.
func shardSet(shards []ShardFile, kind string) ([]*ShardFile, error) {
	if len(shards) == 0 {
		return nil, &shardSetError{Msg: "no shards given"}
	}
	first := shards[0]
	if k := first.Journal.Header.Kind; k != kind {
		return nil, &shardSetError{Msg: fmt.Sprintf("%s is a shard of a %s run, not of a %s run", first.Path, k, kind)}
	}
	base := dropPin(first.Journal.Header, shardPin)
	n := first.Record.Shard.Count
	byIndex := make([]*ShardFile, n)
	for k := range shards {
		sf := &shards[k]
		if err := base.Check(dropPin(sf.Journal.Header, shardPin)); err != nil {
			me, ok := err.(*journal.MismatchError)
			if !ok {
				return nil, fmt.Errorf("%s: %w", sf.Path, err)
			}
			return nil, &shardMismatchError{Path: sf.Path, Mismatch: me}
		}
		s := sf.Record.Shard
		if s.Count != n {
			return nil, &shardSetError{Msg: fmt.Sprintf("%s is shard %s but %s is of %d shards", sf.Path, s, first.Path, n)}
		}
		if prev := byIndex[s.Index]; prev != nil {
			return nil, &shardSetError{Msg: fmt.Sprintf("shard %s is given twice (%s and %s)", s, prev.Path, sf.Path)}
		}
		byIndex[s.Index] = sf
	}
	for i, sf := range byIndex {
		if sf == nil {
			return nil, &shardSetError{Msg: fmt.Sprintf("shard %d/%d is missing: run it and give its record", i, n)}
		}
	}
	return byIndex, nil
}

// shardLines reads every case's journal line (of type T, checked by
// check) from the shards of a whole set, by slice index. It refuses a line
// that is not a case of cases, a case in two shards, a case outside its
// shard and a case no journal holds.
func shardLines[T any](byIndex []*ShardFile, cases []Case, meta func(*T) caseLine, check func(T, Case) error) ([]T, error) {
	found := make([]T, len(cases))
	owner := make([]string, len(cases))
	var foreign error
	for _, sf := range byIndex {
		lines, _, _, err := caseLines(sf.Journal.Entries, cases, nil, meta, check)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sf.Path, err)
		}
		for _, i := range slices.Sorted(maps.Keys(lines)) {
			id := cases[i].ID()
			if owner[i] != "" {
				return nil, &shardSetError{Msg: fmt.Sprintf("case %s is in two shards (%s and %s)", id, owner[i], sf.Path)}
			}
			if !sf.Record.Shard.Has(id) && foreign == nil {
				// Reported after every shard is read: a case in two
				// shards names both.
				foreign = &shardSetError{Msg: fmt.Sprintf("case %s is not of shard %s (%s)", id, sf.Record.Shard, sf.Path)}
			}
			found[i], owner[i] = lines[i], sf.Path
		}
	}
	if foreign != nil {
		return nil, foreign
	}
	n := len(byIndex)
	for i := range cases {
		if owner[i] == "" {
			s := Shard{Index: shardOf(cases[i].ID(), n), Count: n}
			return nil, &shardSetError{Msg: fmt.Sprintf("case %s of shard %s is in no journal: resume that shard", cases[i].ID(), s)}
		}
	}
	return found, nil
}

// dropPin returns h without the pin name.
func dropPin(h journal.Header, name string) journal.Header {
	out := h
	out.Pins = nil
	for _, p := range h.Pins {
		if p.Name != name {
			out.Pins = append(out.Pins, p)
		}
	}
	return out
}

// MergeReceipt puts the shards of one check-match run back into the
// receipt of the whole run ([BuildReceipt]): it generates the slice's
// cases from the shards' seed and rows (no render: the journals hold each
// case's render digest, and the shards' equal slice_sha256 pins the slice).
// The receipt is byte-identical to a single process's but for
// pins.finished_utc (the latest shard's) and identity.run_id (new),
// wall_seconds (the longest shard's), the latency and throughput figures
// (over every case) and the server block (every shard's readings merged,
// [serving.MergeRunDelta]).
//
// It refuses, before building anything, with a message naming the shard
// or case: a shard of another experiment (naming the first differing
// pin), shards of different counts, the same shard twice, a missing
// shard, a case in two shards, a case outside its shard, a case of no
// shard.
func MergeReceipt(shards []ShardFile) (Receipt, error) {
	byIndex, err := shardSet(shards, journalKind)
	if err != nil {
		return Receipt{}, err
	}
	p := shards[0].Record.Pins
	cases, err := Cases(p.GeneratorSeed, p.RegisterRows)
	if err != nil {
		return Receipt{}, fmt.Errorf("%s: %w", shards[0].Path, err)
	}
	run, parts, err := mergeShards(cases, byIndex)
	if err != nil {
		return Receipt{}, err
	}
	return BuildReceipt(run, parts)
}

// ReadingsDelta returns the server block of one run from its readings,
// one per replica ([serving.MergeRunDelta]).
func ReadingsDelta(readings []ShardReading) (serving.RunDelta, error) {
	iv := make([]serving.Interval, len(readings))
	for k, r := range readings {
		iv[k] = r.interval()
	}
	return serving.MergeRunDelta(iv)
}

// Readings returns the reading pair as [serving.Reading]s (before, after).
func (r ShardReading) Readings() []serving.Reading {
	iv := r.interval()
	return []serving.Reading{iv.Before, iv.After}
}
