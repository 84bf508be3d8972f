package evalrun

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
)

// Files are a run's receipt path and its journal beside it
// ([JournalPath]), and the life cycle between them that loses nothing: a
// new run needs a free receipt path and no journal; a resume needs the
// journal, and replaces a receipt at the path only when it is a stopped
// receipt of the journal's own run; the receipt is written whole (or not
// at all), read back and compared, and only then is the journal of a
// complete run removed.
type Files struct {
	// Receipt is the receipt path; Journal the journal path beside it.
	Receipt, Journal string
	// Resume is true when the journal is there to be resumed.
	Resume bool
	// ReplaceStopped is true when the path holds a stopped receipt of the
	// journal's run, which the finished receipt replaces.
	ReplaceStopped bool
}

// ErrComplete is returned by [OpenFiles] for a resume whose receipt is
// the journal's run's finished receipt: the run was stopped after writing
// it and before removing the journal, which OpenFiles then removed.
var ErrComplete = errors.New("evalrun: the run is complete; its leftover journal was removed")

// OpenFiles checks the receipt path and its journal before a run starts.
// A new run (resume false) needs a free path and no journal beside it. A
// resume needs the journal (read whole now: a changed line is refused
// before any request); a file at the path must be a receipt of the
// journaled run, as of reports it (stopped: it is replaced; finished: the
// journal is removed and [ErrComplete] returned); a receipt of another
// run is refused and left as it is. Temporary files a killed receipt
// write left beside the path are removed.
func OpenFiles(receiptPath string, resume bool, of func(receipt []byte, h Header) (stopped bool, err error)) (Files, error) {
	f := Files{Receipt: receiptPath, Journal: JournalPath(receiptPath), Resume: resume}
	if !resume {
		for _, p := range []string{f.Journal, f.Receipt} {
			if _, err := os.Lstat(p); err == nil {
				return f, fmt.Errorf("%s exists: a new run needs a free receipt path and no journal beside it", p)
			}
		}
		return f, nil
	}
	c, err := ReadJournalFile(f.Journal)
	if errors.Is(err, ErrTornHeader) {
		err = nil // nothing finished: the run starts over
	}
	if err != nil {
		return f, err
	}
	RemoveTemps(receiptPath)
	b, err := os.ReadFile(receiptPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f, nil
	case err != nil:
		return f, err
	}
	stopped, err := of(b, c.Header)
	if err != nil {
		return f, fmt.Errorf("%s is not a receipt of the run journaled at %s: %w", receiptPath, f.Journal, err)
	}
	if !stopped {
		if err := RemoveJournal(f.Journal); err != nil {
			return f, err
		}
		return f, ErrComplete
	}
	f.ReplaceStopped = true
	return f, nil
}

// WriteReceipt writes v at the receipt path ([receipt.Write], or
// [receipt.Replace] over a stopped receipt of the run), refusing it when
// it holds one of secrets, reads the file back and compares it with what
// was written, and, when complete, removes the journal. It returns the
// SHA-256 hex of the receipt. A failed write leaves the journal for a
// resume; its error is the receipt package's; a failed read-back or
// removal is a *[FilesError].
func (f Files) WriteReceipt(v any, secrets judgment.Secrets, complete bool) (string, error) {
	write := receipt.Write
	if f.ReplaceStopped {
		write = receipt.Replace
	}
	sum, err := write(f.Receipt, v, secrets)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(f.Receipt)
	if err != nil {
		return "", &FilesError{Msg: fmt.Sprintf("read back the receipt %s: %v; the journal %s keeps every finished case: rerun with -resume", f.Receipt, err, f.Journal), Err: err}
	}
	if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
		return "", &FilesError{Msg: fmt.Sprintf("the receipt %s read back differs from what was written; the journal %s keeps every finished case: rerun with -resume", f.Receipt, f.Journal)}
	}
	if complete {
		if err := RemoveJournal(f.Journal); err != nil {
			return sum, &FilesError{Msg: fmt.Sprintf("remove the journal %s of the finished run: %v", f.Journal, err), Err: err}
		}
	}
	return sum, nil
}

// FilesError reports a receipt that was written but could not be read
// back as written, or a journal of a finished run that could not be
// removed.
type FilesError struct {
	// Msg says what failed and what to do.
	Msg string
	// Err is the underlying error, nil when none.
	Err error
}

// Error returns Msg.
func (e *FilesError) Error() string { return e.Msg }

// Unwrap returns Err.
func (e *FilesError) Unwrap() error { return e.Err }

// RemoveTemps removes the temporary files (".<name>.tmp-*") that a
// receipt write killed before it finished left beside path.
func RemoveTemps(path string) {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+globEscape(filepath.Base(path))+".tmp-*"))
	for _, m := range matches {
		os.Remove(m)
	}
}

// globEscape escapes the glob metacharacters of a file name.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
