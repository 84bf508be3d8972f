package cli

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/journal"
)

// ParseRetries reads -retries N, the opt-in retry of a resumable run
// command (checkmatch.RetryPolicy): 0 when not given, a whole number of 0
// or more when given.
func ParseRetries(e *Env) (int, error) {
	if !e.Given("retries") {
		return 0, nil
	}
	n, err := strconv.Atoi(e.Flag("retries"))
	if err != nil || n < 0 {
		return 0, Usagef("-retries must be a whole number, 0 or more")
	}
	return n, nil
}

// ParseRetryPolicy reads -retries N ([ParseRetries]) and -retry-budget
// SECONDS, the most back-off time all retries of the run may wait
// together (0 or not given: no bound), into a retry policy.
func ParseRetryPolicy(e *Env) (checkmatch.RetryPolicy, error) {
	n, err := ParseRetries(e)
	if err != nil || !e.Given("retry-budget") {
		return checkmatch.RetryPolicy{Retries: n}, err
	}
	s, err := strconv.ParseFloat(e.Flag("retry-budget"), 64)
	if err != nil || !(s >= 0 && s <= 365*24*3600) {
		return checkmatch.RetryPolicy{}, Usagef("-retry-budget must be a number of seconds, 0 or more")
	}
	return checkmatch.RetryPolicy{Retries: n, Budget: time.Duration(s * float64(time.Second))}, nil
}

// RetryFlags are the -retries and -retry-budget flags of a resumable run
// command.
func RetryFlags() []Flag {
	return []Flag{
		{Name: "retries", Arg: "N", Default: "0", Usage: "retry a judgment after a transport error or HTTP 429/502/503/504 (0: stop at the first failure, as typevet does); a complete run writes its attempts to PATH.attempts.json"},
		{Name: "retry-budget", Arg: "SECONDS", Usage: "the most back-off time all retries of the run may wait together (default: no bound)"},
	}
}

// ParseShard reads -shard I/N ([checkmatch.ParseShard]); the zero Shard
// (the whole slice) when not given.
func ParseShard(e *Env) (checkmatch.Shard, error) {
	if !e.Given("shard") {
		return checkmatch.Shard{}, nil
	}
	s, err := checkmatch.ParseShard(e.Flag("shard"), "-shard")
	return s, Usage(err)
}

// ShardSize is the number of cases of reqs in s.
func ShardSize(reqs []checkmatch.Request, s checkmatch.Shard) int {
	n := 0
	for _, r := range reqs {
		if s.Has(r.CaseID()) {
			n++
		}
	}
	return n
}

// OpenJournalReporting is [RunFiles.OpenJournal] that also tells stderr,
// as prog, what a resume found: a torn last line (ignored, its case done
// again) and how many of the run's cases (of its shard) the journal
// holds. verb names the work on a case ("judge", "score").
func (f RunFiles) OpenJournalReporting(stderr io.Writer, prog, verb string, h journal.Header, reqs []checkmatch.Request, s checkmatch.Shard) (*checkmatch.Journal, error) {
	j, err := f.OpenJournal(h, reqs)
	if err != nil {
		return nil, err
	}
	for _, w := range j.Warnings() {
		fmt.Fprintf(stderr, "%s: warning: %s; recorded, not refused: it does not decide the answers (the receipt records this run's)\n", prog, w.Difference())
	}
	if t := j.Torn(); t != nil {
		fmt.Fprintf(stderr, "%s: the journal's last line (%d bytes) was torn by the stopped process and is ignored; that case is %sd again\n", prog, t.Bytes, verb)
	}
	if n := j.Finished(); n > 0 {
		cases := ShardSize(reqs, s)
		fmt.Fprintf(stderr, "%s: resuming: %d of %d cases are in the journal, %d to %s\n", prog, n, cases, cases-n, verb)
	}
	return j, nil
}
