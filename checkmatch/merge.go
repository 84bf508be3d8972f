package checkmatch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/typevet/typevet-go/checkmatch/internal/lines"
	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/evalrun"
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
// whole run would write its receipt): its own schema ("typevet-go.shard")
// and version, the shard, the run's identity (the journal header, shard pin
// included), the journal beside it (name and SHA-256) and what a receipt
// needs that the journal does not hold. It is never a receipt: only
// [MergeReceipt] (or orderings.MergeReceipt) over every shard makes one.
type ShardRecord struct {
	// Schema is "typevet-go.shard"; Version is 1, the version this
	// package writes and reads.
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
	// of the slice). Pins is a check-match shard's (absent from a study
	// shard's record); OrderingsPins an option-order study shard's pins
	// block as package checkmatch/orderings writes it (orderings.Pins,
	// with server_args inside it: ServerArgs is then null), kept as
	// written and absent from a check-match shard's. Identity.Kind says
	// which.
	Backend         serving.Backend          `json:"backend"`
	Model           string                   `json:"model"`
	Pins            *Pins                    `json:"pins,omitempty"`
	OrderingsPins   json.RawMessage          `json:"orderings_pins,omitempty"`
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
	return rec.Seal(s, h, journalPath)
}

// Seal returns r as the record of the finished shard s whose journal,
// with header h, is at journalPath: the record's schema and version, s,
// h as its identity and the journal's file name and SHA-256 (hashed now).
// [NewShardRecord] seals a check-match shard's record; a study fills in
// the rest of its own record (orderings.NewShardRecord) and seals it.
func (r ShardRecord) Seal(s Shard, h journal.Header, journalPath string) (ShardRecord, error) {
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
	if k := rec.Identity.Kind; k == journalKind && rec.Pins == nil || k != journalKind && len(rec.OrderingsPins) == 0 {
		return ShardFile{}, fmt.Errorf("%s: a %s shard record without its pins", path, k)
	}
	return ShardFile{Path: path, Record: rec, Journal: c}, nil
}

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
	found, err := shardLines(byIndex, cases)
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
	parts, err := verifiedParts(first.Path, dropShard(first.Journal.Header), len(cases), first.Record)
	if err != nil {
		return RunResult{}, ReceiptParts{}, err
	}
	for _, sf := range byIndex[1:] {
		if _, err := verifiedParts(sf.Path, dropShard(sf.Journal.Header), len(cases), sf.Record); err != nil {
			return RunResult{}, ReceiptParts{}, err
		}
	}
	run.Concurrency = parts.Pins.Concurrency
	rec := first.Record
	if len(readings) > 0 {
		d, err := serving.MergeRunDelta(readings)
		if err != nil {
			return RunResult{}, ReceiptParts{}, err
		}
		run.Server = &d
		run.Warnings = append(run.Warnings, d.Warnings...)
	}
	parts.Pins.FinishedUTC = finished
	parts.Identity.RunID = receipt.NewRunID()
	// server_args: cache_config from the readings the record keeps, as a
	// single run takes it; caller_stated as the shard recorded it.
	parts.ServerArgs = rec.ServerArgs
	if rec.ServerArgs != nil {
		var rs []serving.Reading
		for _, r := range rec.Readings {
			rs = append(rs, r.Readings()...)
		}
		cache, _ := serving.FirstCacheConfig(rs...)
		b := serving.ServerArgs(cache, rec.ServerArgs.CallerStated)
		parts.ServerArgs = &b
	}
	return run, parts, nil
}

// lineShards returns shards as package lines reads them.
func lineShards(shards []ShardFile) []lines.Shard {
	out := make([]lines.Shard, len(shards))
	for k, sf := range shards {
		out[k] = sf.lineShard()
	}
	return out
}

func (sf ShardFile) lineShard() lines.Shard {
	return lines.Shard{Path: sf.Path, Header: sf.Journal.Header, Index: sf.Record.Shard.Index, Count: sf.Record.Shard.Count, Entries: sf.Journal.Entries}
}

// shardSet checks that shards are one experiment of kind (a
// *lines.MismatchError naming the first differing pin, "kind" for a
// shard of another run type) and one whole set of shards (a
// *lines.SetError), and returns them by shard index.
func shardSet(shards []ShardFile, kind string) ([]*ShardFile, error) {
	order, _, err := lines.OrderAdvisory(lineShards(shards), kind, evalrun.WhereBuilt())
	if err != nil {
		return nil, err
	}
	byIndex := make([]*ShardFile, len(order))
	for i, k := range order {
		byIndex[i] = &shards[k]
	}
	return byIndex, nil
}

// shardLines reads every case's check-match journal line from the shards
// of a whole set, by slice index ([lines.Gather]).
func shardLines(byIndex []*ShardFile, cases []Case) ([]journalCase, error) {
	set := make([]lines.Shard, len(byIndex))
	for i, sf := range byIndex {
		set[i] = sf.lineShard()
	}
	return lines.Gather(set, caseIDs(cases), journalCaseMeta, caseCheck(cases))
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

// Notes returns what a merge does not refuse but the user should know:
// each pin in which sf's journal header differs from the first shard's
// only by [evalrun.WhereBuilt] (a git baseline commit, working tree or
// renderer module_version), as "<record path>: <pin> differs (first shard
// <a>, this shard <b>)". The merged receipt records the first shard's.
func (sf ShardFile) Notes(first ShardFile) []string {
	w, _ := dropShard(first.Journal.Header).Compare(dropShard(sf.Journal.Header), evalrun.WhereBuilt())
	var notes []string
	for _, m := range w {
		notes = append(notes, fmt.Sprintf("%s: %s differs (%s)", sf.Path, m.Pin, journal.ShowValues("first shard", m.Journal, "this shard", m.Now)))
	}
	return notes
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

// verifiedParts returns the receipt parts of a check-match merge built
// from the journal header h alone (its chain binds it to the journal's
// lines): backend, model, the pins and the identity of the whole slice
// of n cases, its identity digest recomputed and checked against the
// header's. rec, the shard's record, must agree with them: a record
// whose model, pins or identity were edited is refused, naming the first
// field that differs.
func verifiedParts(path string, h journal.Header, n int, rec ShardRecord) (ReceiptParts, error) {
	var parts ReceiptParts
	var p Pins
	var tmpl string
	id := receipt.Identity{PromptDigests: receipt.Digests{}, CodePathDigests: receipt.Digests{}, FixtureDigests: receipt.Digests{}}
	var want string
	fields := []struct {
		pin string
		v   any
	}{
		{"backend", &parts.Backend}, {"model", &parts.Model}, {"served_template", &tmpl},
		{"generator_seed", &p.GeneratorSeed}, {"register_rows", &p.RegisterRows},
		{"variants_per_row", &p.VariantsPerRow}, {"slice_sha256", &p.SliceSHA256},
		{"renderer", &p.Renderer}, {"pins.server", &p.Server}, {"model_revision", &p.ModelRevision},
		{"baseline_commit", &id.BaselineCommit}, {"working_tree", &id.WorkingTree},
		{"concurrency", &p.Concurrency}, {"identity_digest", &want},
	}
	for _, f := range fields {
		raw, ok := h.Pin(f.pin)
		if !ok {
			return ReceiptParts{}, fmt.Errorf("%s: the journal's header has no %s pin", path, f.pin)
		}
		if err := json.Unmarshal(raw, f.v); err != nil {
			return ReceiptParts{}, fmt.Errorf("%s: the journal's %s pin: %w", path, f.pin, err)
		}
	}
	for _, pin := range h.Pins {
		var v string
		if name, ok := strings.CutPrefix(pin.Name, "prompt_digests."); ok && json.Unmarshal(pin.Value, &v) == nil {
			id.PromptDigests = append(id.PromptDigests, receipt.Entry[string]{Name: name, Value: v})
		}
		if name, ok := strings.CutPrefix(pin.Name, "code_path_digests."); ok && json.Unmarshal(pin.Value, &v) == nil {
			id.CodePathDigests = append(id.CodePathDigests, receipt.Entry[string]{Name: name, Value: v})
		}
	}
	p.Dataset = dataset
	build := receipt.Unknown
	if p.Server != nil {
		build = p.Server.BuildInfo
	}
	id.Runtime = receipt.NewRuntime(parts.Model, tmpl, build)
	id.ArmCallCounts = receipt.Counts{{Name: "judgments", Value: n}}
	id.IdentityDigest = receipt.IdentityDigest(id)
	if id.IdentityDigest != want {
		return ReceiptParts{}, fmt.Errorf("%s: the journal's identity_digest %s is not the digest of its pins (%s): the journal was changed", path, want, id.IdentityDigest)
	}
	parts.Pins, parts.Identity = p, id
	// The record's copies must be the journal's.
	if rec.Pins == nil {
		return ReceiptParts{}, fmt.Errorf("%s: a check_match shard record without its pins", path)
	}
	recPins := *rec.Pins
	recPins.FinishedUTC = ""
	recID := rec.ReceiptIdentity
	recID.RunID = ""
	for _, c := range []struct {
		name       string
		got, wantV any
	}{
		{"backend", rec.Backend, parts.Backend}, {"model", rec.Model, parts.Model},
		{"pins", recPins, p}, {"receipt_identity", recID, id},
	} {
		a, _ := json.Marshal(c.got)
		b, _ := json.Marshal(c.wantV)
		if !bytes.Equal(a, b) {
			return ReceiptParts{}, fmt.Errorf("%s: the record's %s is not its journal's (%s): the record was edited; restore it, or run the shard again", path, c.name,
				journal.ShowValues("record", string(a), "journal", string(b)))
		}
	}
	return parts, nil
}

// dropShard returns h without its shard pin: the identity every shard of
// one run shares.
func dropShard(h journal.Header) journal.Header { return lines.DropPin(h, shardPin) }
