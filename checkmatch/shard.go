package checkmatch

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/typevet/typevet-go/checkmatch/internal/lines"
	"github.com/typevet/typevet-go/checkmatch/journal"
)

// maxShards is the largest shard count [ParseShard] accepts.
const maxShards = 1 << 16

// shardPin is the name of the journal pin that records a shard run's
// shard; it is the only pin in which the shards of one experiment differ.
const shardPin = lines.ShardPin

// Shard names one of Count disjoint parts of a slice: a shard run judges
// the cases whose shard (below) is Index. The zero Shard is the whole
// slice.
//
// The assignment is a fixed function of the case id alone: the first 8
// bytes of SHA-256(case id), read as a big-endian unsigned integer, modulo
// Count. It does not depend on Go's map order, the number of cores, the
// concurrency or the order cases finish, so every process given the same
// i/n judges the same cases, every case is in exactly one shard, and each
// shard holds about 1/Count of the slice.
type Shard struct {
	// Index is the shard's number, 0 to Count-1 (a Kubernetes Indexed
	// Job's JOB_COMPLETION_INDEX).
	Index int
	// Count is the number of shards; 0 means no sharding.
	Count int
}

// ParseShard parses "i/n" (0 ≤ i < n ≤ 65,536); name is the flag or
// variable the text came from, for the error.
func ParseShard(raw, name string) (Shard, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(raw), "/")
	a, err1 := strconv.Atoi(i)
	b, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || b < 1 || b > maxShards || a < 0 || a >= b {
		return Shard{}, fmt.Errorf("%s must be i/n with 0 <= i < n <= %d (shard i of n, counted from 0), got %q", name, maxShards, raw)
	}
	return Shard{Index: a, Count: b}, nil
}

// String returns "i/n" ("" for the zero Shard).
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// MarshalJSON writes the shard as the string "i/n".
func (s Shard) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads the string "i/n".
func (s *Shard) UnmarshalJSON(b []byte) error {
	var t string
	if err := json.Unmarshal(b, &t); err != nil {
		return fmt.Errorf("shard must be a string i/n: %w", err)
	}
	v, err := ParseShard(t, "shard")
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// shardOf returns the shard, 0 to count-1, of the case with id caseID
// (see [Shard]); count must be at least 1.
func shardOf(caseID string, count int) int { return lines.Of(caseID, count) }

// Has reports whether the case with id caseID is in s; every case is in
// the zero Shard.
func (s Shard) Has(caseID string) bool {
	return s.Count == 0 || shardOf(caseID, s.Count) == s.Index
}

// ShardJournalHeader is the identity line of a check-match run's journal:
// every pin that decides the answers (the slice, the renderer, backend,
// model, server entry and revision, the prompt and code digests, the
// identity digest, the concurrency) and, for a shard, the shard as the
// last pin (the string "i/n"), so that a -resume of another shard, or of
// the whole slice, is refused by [journal.Header.Check]. The zero Shard
// is the whole run, with no shard pin.
func ShardJournalHeader(c RunContext, slice Slice, concurrency int, s Shard) (journal.Header, error) {
	h, err := journalHeader(c, slice, concurrency)
	if err != nil || s.Count == 0 {
		return h, err
	}
	p, err := journal.NewPin(shardPin, s.String())
	if err != nil {
		return journal.Header{}, err
	}
	h.Pins = append(h.Pins, p)
	return h, nil
}
