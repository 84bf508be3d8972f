package evalrun

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/pool"
)

// Item is one thing a run judges: an id, unique in the run and stable
// across runs (a shard is chosen by it, a journal line names it), and the
// request sent for it.
type Item struct {
	// ID names the item ("img-07").
	ID string
	// Request is the judgment request of the item.
	Request judgment.Request
}

// Shard is one of Count parts of a run's items, chosen by item id
// ([ShardOf]); the zero Shard is every item.
type Shard struct {
	// Index is the shard, 0 to Count-1; Count the number of shards.
	Index, Count int
}

// Has reports whether the item with id id is in s.
func (s Shard) Has(id string) bool { return s.Count == 0 || ShardOf(id, s.Count) == s.Index }

// ShardOf returns the shard, 0 to count-1, of the item with id id: the
// first 8 bytes of SHA-256(id), read as a big-endian unsigned integer,
// modulo count; count must be at least 1.
func ShardOf(id string, count int) int {
	sum := sha256.Sum256([]byte(id))
	return int(binary.BigEndian.Uint64(sum[:8]) % uint64(count))
}

// Options configures [Run]. The zero value judges every item one at a
// time without a journal and stops at the first failure.
type Options struct {
	// Concurrency is the most judgments in flight; 0 means 1. Results
	// are kept in item order whatever the concurrency.
	Concurrency int
	// Journal, when set, is the run's journal ([CreateRunJournal], or
	// [ResumeRunJournal] to finish an earlier part): each finished item is
	// appended and synced before it counts as done, and items it already
	// holds are not judged again.
	Journal *Journal
	// Shard, when set, judges only the items of that shard.
	Shard Shard
}

// Outcome is one judged item.
type Outcome struct {
	// ID is the item's id.
	ID string
	// Response is the item's answers.
	Response judgment.Response
	// LatencySeconds is the wall time of the judgment call.
	LatencySeconds float64
	// Part is the part of the run that judged it: 1 for the first, one
	// more for each resume.
	Part int
}

// Stopped is the first failure that stopped a run.
type Stopped struct {
	// Index and ID name the failed item.
	Index int
	ID    string
	// Err is the failure (a *pool.CanceledError when the context ended
	// the run before the item was sent).
	Err error
}

// Result is what [Run] did.
type Result struct {
	// Outcomes are the items of the run's shard before the first failure,
	// in item order, earlier parts' included.
	Outcomes []Outcome
	// Stopped is the first failure, nil when every item was judged.
	Stopped *Stopped
	// WallSeconds is the run's wall time: the sum of PartSeconds.
	WallSeconds float64
	// PartSeconds is the wall time of every part, in part order: an
	// earlier part's as far as its journal shows (its last finished item).
	PartSeconds []float64
	// Resumed counts the outcomes an earlier part judged.
	Resumed int
}

// Run judges items through port in item order at opts.Concurrency and
// stops at the first failure (a generation error or the context's end),
// keeping every earlier outcome; wrap port with [Retry] to retry failures
// that may succeed when sent again. With a journal, every finished item is
// journaled before it counts, and the items an earlier part finished are
// taken from the journal, with their latencies.
func Run(ctx context.Context, port judgment.Port, items []Item, opts Options) (Result, error) {
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		if it.ID == "" || seen[it.ID] {
			return Result{}, fmt.Errorf("evalrun: item id %q is empty or given twice", it.ID)
		}
		seen[it.ID] = true
	}
	j := opts.Journal
	if j != nil && len(j.ids) > 0 && len(j.ids) != len(items) {
		return Result{}, errors.New("evalrun: the journal was opened for other items")
	}
	var todo []int
	for i, it := range items {
		if opts.Shard.Has(it.ID) && (j == nil || !j.has(i)) {
			todo = append(todo, i)
		}
	}
	part := 1
	if j != nil {
		part = j.part
	}
	start := time.Now()
	clock := func() float64 { return time.Since(start).Seconds() }
	var last atomic.Uint64 // the latest finished_seconds of this part
	res, err := pool.JudgeInOrder(ctx, todo, max(opts.Concurrency, 1), func(ctx context.Context, _ int, i int) (Outcome, error) {
		t0 := clock()
		resp, err := port.Judge(ctx, items[i].Request)
		if err != nil {
			return Outcome{}, err
		}
		end := clock()
		o := Outcome{ID: items[i].ID, Response: resp, LatencySeconds: end - t0, Part: part}
		if j != nil {
			if err := j.w.Add(runLine{Index: i, ID: o.ID, Part: part, FinishedSeconds: end, Latency: o.LatencySeconds, Response: resp}); err != nil {
				return Outcome{}, err
			}
			for {
				old := last.Load()
				if math.Float64frombits(old) >= end || last.CompareAndSwap(old, math.Float64bits(end)) {
					break
				}
			}
		}
		return o, nil
	}, pool.Options{})
	if err != nil {
		return Result{}, err
	}
	out := Result{}
	if j != nil {
		out.PartSeconds = append(out.PartSeconds, j.parts...)
	}
	wall := clock()
	out.PartSeconds = append(out.PartSeconds, wall)
	for _, s := range out.PartSeconds {
		out.WallSeconds += s
	}
	stop := len(items)
	if f := res.Failure; f != nil {
		stop = todo[f.Index]
		out.Stopped = &Stopped{Index: stop, ID: items[stop].ID, Err: f.Err}
	}
	k := 0
	for i := range stop {
		switch {
		case !opts.Shard.Has(items[i].ID):
		case j != nil && j.has(i):
			l := j.done[i]
			out.Outcomes = append(out.Outcomes, Outcome{ID: l.ID, Response: l.Response, LatencySeconds: l.Latency, Part: l.Part})
			out.Resumed++
		default:
			out.Outcomes = append(out.Outcomes, res.Values[k])
			k++
		}
	}
	return out, nil
}

// runLine is one journal line of [Run]: a finished item.
type runLine struct {
	Index           int               `json:"index"`
	ID              string            `json:"id"`
	Part            int               `json:"part"`
	FinishedSeconds float64           `json:"finished_seconds"`
	Latency         float64           `json:"latency"`
	Response        judgment.Response `json:"response"`
}

// Journal is the journal of one part of a [Run]: the items earlier parts
// finished and the writer this part appends to.
type Journal struct {
	w     *JournalWriter
	part  int
	ids   []string
	done  map[int]runLine
	parts []float64 // earlier parts' wall times
	warn  []*MismatchError
	torn  *Torn
}

// CreateRunJournal creates the journal of a new run at path with header h
// (h.Kind names the eval; h.Pins are what decides its answers). An
// existing file is refused (errors.Is(err, fs.ErrExist) holds).
func CreateRunJournal(path string, h Header) (*Journal, error) {
	w, err := CreateJournal(path, h)
	if err != nil {
		return nil, err
	}
	return &Journal{w: w, part: 1, done: map[int]runLine{}}, nil
}

// ResumeRunJournal opens the journal at path to finish the run of items
// whose identity is now: a journal of another experiment is refused with
// the *[MismatchError] naming the first pin that differs (pins adv names
// are returned as warnings by [Journal.Warnings]), and a line that is not
// one [Run] wrote for these items (decoded strictly: an unknown, missing
// or miscased key, an index or id not of items, a negative or non-finite
// time) is refused naming the journal and the line. A torn last line is
// cut off. New lines carry the next part number.
func ResumeRunJournal(path string, now Header, items []Item, adv Advisory) (*Journal, error) {
	c, err := ReadJournalFile(path)
	if err != nil {
		return nil, err
	}
	warnings, err := c.Header.Compare(now, adv)
	if err != nil {
		return nil, err
	}
	j := &Journal{done: map[int]runLine{}, warn: warnings, torn: c.Torn}
	for _, it := range items {
		j.ids = append(j.ids, it.ID)
	}
	wall := map[int]float64{}
	for n, raw := range c.Entries {
		var l runLine
		bad := func(msg string) error {
			return &JournalError{Path: path, Line: n + 2, Msg: msg + "; the line is not one this run wrote: restore the journal from a copy, or remove it and start the run over"}
		}
		if err := DecodeLine(raw, &l); err != nil {
			return nil, bad("not an item line: " + err.Error())
		}
		switch {
		case l.Index < 0 || l.Index >= len(items) || items[l.Index].ID != l.ID:
			return nil, bad(fmt.Sprintf("item %q at index %d is not an item of the run", l.ID, l.Index))
		case l.Part < 1:
			return nil, bad(fmt.Sprintf("part %d is not a part number", l.Part))
		case !(l.FinishedSeconds >= 0 && l.FinishedSeconds <= maxSeconds) || !(l.Latency >= 0 && l.Latency <= maxSeconds):
			return nil, bad("a time is negative, not finite or over a year")
		}
		if _, dup := j.done[l.Index]; !dup {
			j.done[l.Index] = l
		}
		wall[l.Part] = max(wall[l.Part], l.FinishedSeconds)
		j.part = max(j.part, l.Part)
	}
	for p := 1; p <= j.part; p++ {
		j.parts = append(j.parts, wall[p])
	}
	j.part++
	if j.w, err = ResumeJournal(path, c); err != nil {
		return nil, err
	}
	return j, nil
}

// maxSeconds bounds a journaled time: a year.
const maxSeconds = 365 * 24 * 3600

func (j *Journal) has(i int) bool { _, ok := j.done[i]; return ok }

// Finished returns the number of items earlier parts finished.
func (j *Journal) Finished() int { return len(j.done) }

// Part returns the part number this run's lines carry.
func (j *Journal) Part() int { return j.part }

// Warnings returns the advisory pins in which the resumed journal differs
// from the run resuming it.
func (j *Journal) Warnings() []*MismatchError { return j.warn }

// Torn returns the torn last line the resume cut off, nil when none.
func (j *Journal) Torn() *Torn { return j.torn }

// Path returns the journal's path.
func (j *Journal) Path() string { return j.w.Path() }

// Close closes the journal file; the journal stays on disk.
func (j *Journal) Close() error { return j.w.Close() }

// DecodeLine decodes the journal line b into v (a pointer to a line
// type) strictly: the line must be exactly the JSON text encoding/json
// writes for the value it decodes to, so an unknown, missing, repeated or
// miscased key, a reordered line or a number written another way is
// refused, never read as a zero value.
func DecodeLine(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	again, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if !bytes.Equal(again, b) {
		return errors.New("not a line as the run writes it (a key missing, misspelt, miscased, repeated or out of order, or a value written another way)")
	}
	return nil
}
