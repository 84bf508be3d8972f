package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/evalrun"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
)

// RunFiles are a run's receipt path and its journal ([journal.Path]).
type RunFiles struct {
	// Receipt is the receipt path.
	Receipt string
	// Journal is the journal path beside it.
	Journal string
	// Resume is true for a -resume run.
	Resume bool
	// ReplaceStopped is true when Resume found a stopped receipt of the
	// run at Receipt: the completed receipt replaces it.
	ReplaceStopped bool
	// Header is the resumed journal's header (zero for a new run): the
	// settings a resume takes from it ([ResumeArgs]).
	Header journal.Header
	// Retry is the run's retry policy: a complete run that may retry
	// writes its attempts beside the receipt ([evalrun.Attempts]).
	Retry checkmatch.RetryPolicy
	// name is the receipt variable, for messages.
	name string
	// taken, when set, is how to finish when the receipt path was taken
	// during the run (a sweep's level: [LevelFiles]).
	taken string
}

// LevelFiles are the run files of one level of a throughput sweep: the
// level's receipt at path, its journal beside it ([journal.Path]). resume
// is true when the journal is there to be resumed, replaceStopped when
// path holds the level's stopped receipt. name is the prefix flag, and
// taken says how to finish when the receipt path is taken during the run;
// both are for messages.
func LevelFiles(path, name string, resume, replaceStopped bool, taken string) RunFiles {
	return RunFiles{Receipt: path, Journal: journal.Path(path), Resume: resume, ReplaceStopped: replaceStopped, name: name, taken: taken}
}

// NewRunFiles reads the receipt path from variable name and checks it and
// its journal before any network call; every refusal is a [*UsageError].
//
// A new run needs a new receipt path and no journal beside it (a journal
// there is an unfinished run: "add -resume to finish it"). A -resume run
// needs the journal, read whole here (a line changed since it was written
// is refused now, before any session opens); its receipt path must be
// new or hold a stopped receipt of the journal's own run, which ofRun
// decides ([evalrun.ReceiptOfJournal]): another run's receipt is never
// replaced. A finished receipt of the journal's run means a run killed
// after its receipt was written and before its journal was removed: the
// journal is removed and [*CompleteError] returned. Temporary files a
// killed receipt write left beside the path are removed. Either way the
// directory must take a file ([receipt.CheckWritable]).
func NewRunFiles(env func(string) (string, bool), name string, resume bool, ofRun func(receipt []byte, h journal.Header) (stopped bool, err error)) (RunFiles, error) {
	f := RunFiles{Resume: resume, name: name}
	if !resume {
		path, err := NewReceiptPath(env, name)
		if err != nil {
			return f, err
		}
		f.Receipt, f.Journal = path, journal.Path(path)
		if _, err := os.Lstat(f.Journal); err == nil {
			return f, Usagef("a journal of an unfinished run is at %s: add -resume to finish that run, or remove the journal to start over", f.Journal)
		}
		return f, nil
	}
	path, err := receiptPathSet(env, name)
	if err != nil {
		return f, err
	}
	f.Receipt, f.Journal = path, journal.Path(path)
	if _, err := os.Lstat(f.Journal); err != nil {
		return f, Usagef("-resume: no journal at %s to resume (%s names the receipt of the run to finish)", f.Journal, name)
	}
	c, err := journal.ReadFile(f.Journal)
	if errors.Is(err, journal.ErrTornHeader) {
		c, err = journal.Contents{}, nil // nothing finished: OpenJournal starts over
	}
	if err != nil {
		return f, Usagef("-resume: %v", err)
	}
	f.Header = c.Header
	evalrun.RemoveTemps(path)
	if b, err := os.ReadFile(path); err == nil {
		var doc struct {
			Schema string `json:"schema"`
		}
		if json.Unmarshal(b, &doc) == nil && doc.Schema == "typevet-go.shard" { // a checkmatch.ShardRecord
			return f, Usagef("-resume: %s holds a finished receipt: the run it journals is complete (a finished shard's record: its journal stays beside it for examples/merge)", path)
		}
		stopped, err := ofRun(b, c.Header)
		switch {
		case err != nil:
			return f, Usagef("-resume: %s is not the receipt of the run journaled at %s: %v; it is left as it is: move the journal to NEW%s and rerun with %s=NEW and -resume",
				path, f.Journal, err, journal.Suffix, name)
		case !stopped:
			if err := journal.Remove(f.Journal); err != nil {
				return f, err
			}
			return f, &CompleteError{Receipt: path, Journal: f.Journal}
		}
		f.ReplaceStopped = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return f, Usagef("%s: %v", name, err)
	}
	if err := receipt.CheckWritable(f.Receipt); err != nil {
		return f, Usagef("%s: no receipt can be written at %s: %v", name, f.Receipt, errors.Unwrap(err))
	}
	return f, nil
}

// CompleteError reports a -resume of a run that had finished: its
// receipt was written, but it was stopped before removing its journal,
// which [NewRunFiles] then removed. Nothing is left to do.
type CompleteError struct {
	// Receipt and Journal are the paths.
	Receipt, Journal string
}

// Error says the run is complete.
func (e *CompleteError) Error() string {
	return fmt.Sprintf("the run is complete: %s is its finished receipt; its leftover journal %s was removed", e.Receipt, e.Journal)
}

// OpenJournal creates the journal of a new run with header h, or resumes
// it over reqs; a journal of another experiment is refused as a
// [*UsageError] naming the first differing pin.
func (f RunFiles) OpenJournal(h journal.Header, reqs []checkmatch.Request) (*checkmatch.Journal, error) {
	if !f.Resume {
		j, err := checkmatch.CreateJournal(f.Journal, h)
		if errors.Is(err, fs.ErrExist) {
			return nil, Usagef("a journal of an unfinished run is at %s: add -resume to finish that run, or remove the journal to start over", f.Journal)
		}
		if err != nil {
			return nil, fmt.Errorf("create the journal: %w", err)
		}
		return j, nil
	}
	j, err := checkmatch.ResumeJournal(f.Journal, h, reqs)
	var me *journal.MismatchError
	switch {
	case errors.As(err, &me):
		return nil, Usagef("-resume refused: %v; resume with the settings of the journaled run, or start a new run with another %s", me, f.name)
	case errors.Is(err, journal.ErrTornHeader):
		// Killed while creating the journal: nothing finished. Start over.
		if err := os.Remove(f.Journal); err != nil {
			return nil, err
		}
		return checkmatch.CreateJournal(f.Journal, h)
	case err != nil:
		return nil, fmt.Errorf("-resume: read the journal %s: %w", f.Journal, err)
	}
	return j, nil
}

// WriteReceipt writes rec to the receipt path ([receipt.Write], or
// [receipt.Replace] over a stopped receipt being completed), reads the
// file back and compares it with what was written, and removes the
// journal once the run is complete (complete: every case judged). A
// stopped run keeps its journal for a -resume.
//
// When the receipt cannot be written, the journal stays and the error
// says how to finish: which variable holds a key found in the receipt,
// or to rerun with -resume (after freeing space), or to move the journal
// beside a new path when the path was taken.
func (f RunFiles) WriteReceipt(rec any, secrets []NamedSecret, complete bool) (string, error) {
	values := make([]string, len(secrets))
	for i, s := range secrets {
		values[i] = s.Value
	}
	if complete && f.Retry.Retries > 0 {
		// The attempts go first (replaced whole if an earlier part wrote
		// them): the journal, their only other record, goes after the
		// receipt.
		a, err := evalrun.AttemptsOf(f.Journal, f.Retry)
		if err != nil {
			return "", err
		}
		if _, err := receipt.Replace(f.Receipt+evalrun.AttemptsSuffix, a, judgment.Secrets{Keys: values}); err != nil {
			return "", f.finishHint(rec, secrets, err)
		}
	}
	// The key-free check looks for every value alike (judgment.Secrets.Values).
	files := evalrun.Files{Receipt: f.Receipt, Journal: f.Journal, Resume: f.Resume, ReplaceStopped: f.ReplaceStopped}
	sum, err := files.WriteReceipt(rec, judgment.Secrets{Keys: values}, complete)
	var fe *evalrun.FilesError
	if err != nil && !errors.As(err, &fe) {
		return "", f.finishHint(rec, secrets, err)
	}
	return sum, err
}

// WriteShardRecord writes the record of a finished shard run at the
// receipt path ([RunFiles.WriteReceipt], keeping the journal beside it for
// examples/merge) and tells stdout where both are.
func (f RunFiles) WriteShardRecord(stdout io.Writer, rec checkmatch.ShardRecord, secrets []NamedSecret) error {
	sum, err := f.WriteReceipt(rec, secrets, false)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "shard %s record %s sha256 %s\n%d cases in the journal %s; merge every shard with examples/merge\n",
		rec.Shard, f.Receipt, sum, rec.Cases, f.Journal)
	return err
}

// finishHint wraps a failed receipt write with how to finish the run.
func (f RunFiles) finishHint(rec any, secrets []NamedSecret, err error) error {
	var nk *receipt.NotKeyFreeError
	var ae *receipt.AlreadyExistsError
	switch {
	case errors.As(err, &nk):
		if b, merr := receipt.Marshal(rec); merr == nil {
			if n, ok := secretIn(b, secrets); ok {
				return fmt.Errorf("%w: the value of %s occurs in it; the journal %s keeps every finished case: set %s to the right key and rerun with -resume",
					err, n.Name, f.Journal, n.Name)
			}
		}
		return fmt.Errorf("%w (\"authorization\" or \"bearer \"); the journal %s keeps every finished case", err, f.Journal)
	case errors.As(err, &ae) && f.taken != "":
		return fmt.Errorf("%w; the journal %s keeps every finished case: %s", err, f.Journal, f.taken)
	case errors.As(err, &ae):
		return fmt.Errorf("%w; the journal %s keeps every finished case: move it to NEW%s and rerun with %s=NEW and -resume",
			err, f.Journal, journal.Suffix, f.name)
	default:
		return fmt.Errorf("%w; the journal %s keeps every finished case: free the space or fix the directory, then rerun with -resume", err, f.Journal)
	}
}

// Discard removes the journal of a run in which no case finished (stopped
// before its first case): nothing is written.
func (f RunFiles) Discard() error { return journal.Remove(f.Journal) }

// receiptPathSet is the stripped path of variable name, required.
func receiptPathSet(env func(string) (string, bool), name string) (string, error) {
	path, _ := env(name)
	path = strings.TrimSpace(path)
	if path == "" {
		return "", Usagef("%s not set", name)
	}
	return path, nil
}
