package receipt

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/typevet/typevet-go/internal/pyjson"
	"github.com/typevet/typevet-go/judgment"
)

// Marshal serializes a receipt the way typevet writes one:
// json.dumps(receipt, indent=2) + "\n", byte for byte. Keys keep the struct
// field order; indentation is two spaces with ", " never used (",\n" and
// ": "); <, > and & are not escaped; every character outside printable
// ASCII is escaped as \uXXXX (surrogate pairs above U+FFFF), as Python's
// ensure_ascii does; a float64 is Python's float text (252.0, 1e-07).
//
// It encodes with [pyjson.Marshal] (Options{EnsureASCII: true, Indent:
// 2}), which follows encoding/json's struct rules (json tags, omitempty, a
// nil slice or map written null) and re-emits the output of each
// MarshalJSON with Python's layout while copying its number text. So the
// SHA-256 of a receipt written here equals the one Python computes for the
// same values.
//
// Decision: a NaN or infinite float is an error (json.dumps(…,
// allow_nan=False)), as it was with encoding/json. Python's default would
// write the non-standard tokens NaN and Infinity, which JSON readers other
// than Python's refuse; typevet's receipts never hold them.
func Marshal(v any) ([]byte, error) {
	b, err := pyjson.Marshal(v, pyjson.Options{EnsureASCII: true, Indent: 2})
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// CheckKeyFree refuses receipt text that could carry a credential, as
// typevet's receipt writer does: any non-empty secret occurring verbatim, or the lower-cased
// text containing "authorization" or "bearer " (with the space). It returns
// a *[NotKeyFreeError] or nil.
//
// Decision: each secret is looked for twice, verbatim and in the escaped
// form [Marshal] gives it inside a JSON string. typevet checks only the
// verbatim form, so a secret holding a quote or a backslash would slip
// through there as \" or \\; here it cannot. Every value of secrets
// ([judgment.Secrets.Values]: API keys and extra header values alike) is
// looked for wherever it occurs, not only as a whole token.
func CheckKeyFree(b []byte, secrets judgment.Secrets) error {
	for _, s := range secrets.Values() {
		if bytes.Contains(b, []byte(s)) || bytes.Contains(b, escapedForm(s)) {
			return &NotKeyFreeError{Reason: "a configured secret"}
		}
	}
	lower := bytes.ToLower(b)
	for _, word := range []string{"authorization", "bearer "} {
		if bytes.Contains(lower, []byte(word)) {
			return &NotKeyFreeError{Reason: word}
		}
	}
	return nil
}

// escapedForm is s as it appears inside a string written by Marshal.
func escapedForm(s string) []byte {
	b, err := Marshal(s)
	if err != nil || len(b) < 3 {
		return []byte(s)
	}
	return b[1 : len(b)-2] // drop the quotes and the newline
}

// CheckNew reports whether path is free for a new receipt: nil when nothing
// exists there, a *[AlreadyExistsError] when anything does (a file, a
// directory or a symbolic link, even a dangling one), or the error that
// stopped the check (a parent that is a regular file gives ENOTDIR). Runs
// call it and [CheckWritable] before any network call and word the
// refusal themselves (check match: "TYPEVET_CHECK_MATCH_RECEIPT must name
// a new file: <path> exists"); [Write] checks again atomically.
func CheckNew(path string) error {
	_, err := os.Lstat(path)
	switch {
	case err == nil:
		return &AlreadyExistsError{Path: path}
	case errors.Is(err, fs.ErrNotExist):
		return nil
	default:
		return fmt.Errorf("receipt: checking %s: %w", path, err)
	}
}

// CheckWritable probes, before a run spends anything, that a receipt can
// be written at path: it creates the parent directories (as [Write]
// would), then creates and removes a temporary file beside path. A parent
// that is a regular file, a read-only directory or a full inode table
// fails here instead of after the run. The error is a *[WriteError] (Op
// "mkdir" or "probe").
func CheckWritable(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return &WriteError{Path: path, Op: "mkdir", Err: err}
	}
	f, err := createTemp(path, "probe")
	if err != nil {
		return &WriteError{Path: path, Op: "probe", Err: err}
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return &WriteError{Path: path, Op: "probe", Err: err}
	}
	return nil
}

// Write serializes v with [Marshal], refuses it with [CheckKeyFree] before
// touching the disk (the check reads the exact bytes that would be
// written), creates the parent directories, writes the bytes to a
// temporary file beside path, syncs it, and links it into place at path
// (a *[AlreadyExistsError] if anything is there; nothing is ever
// overwritten), then syncs the directory. It returns the SHA-256 hex of
// the bytes written, which the run prints beside the path.
//
// The receipt appears whole or not at all: a SIGKILL or a second Ctrl-C
// during the write leaves at most a temporary file named
// ".<name>.tmp-*", never a partial or empty file at path. A failed step
// removes the temporary file; the error is a *[WriteError].
func Write(path string, v any, secrets judgment.Secrets) (sha256hex string, err error) {
	return write(path, v, secrets, false)
}

// Replace is [Write] for a path that may hold an earlier receipt of the
// same run (a stopped receipt that a resumed run completes): the new
// receipt is renamed over it atomically, so path always holds one whole
// receipt. The caller decides that the old file may be replaced.
func Replace(path string, v any, secrets judgment.Secrets) (sha256hex string, err error) {
	return write(path, v, secrets, true)
}

func write(path string, v any, secrets judgment.Secrets, replace bool) (string, error) {
	w := &writer{path: path, replace: replace}
	w.marshal(v)
	w.checkKeyFree(secrets)
	w.mkdir()
	w.create()
	w.write()
	w.finish()
	if w.err != nil {
		return "", w.err
	}
	sum := sha256.Sum256(w.data)
	return hex.EncodeToString(sum[:]), nil
}

// writer carries one receipt write; each step does nothing once err is set
// (the sticky-error pattern of image/png's encoder).
type writer struct {
	path    string
	replace bool
	data    []byte
	f       *os.File // the temporary file
	err     error
}

func (w *writer) marshal(v any) {
	if w.err != nil {
		return
	}
	w.data, w.err = Marshal(v)
	if w.err != nil {
		w.err = fmt.Errorf("receipt: encoding %s: %w", w.path, w.err)
	}
}

func (w *writer) checkKeyFree(secrets judgment.Secrets) {
	if w.err != nil {
		return
	}
	w.err = CheckKeyFree(w.data, secrets)
}

func (w *writer) mkdir() {
	if w.err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(w.path), 0o777); err != nil {
		w.err = &WriteError{Path: w.path, Op: "mkdir", Err: err}
	}
}

// create makes the temporary file beside path; it refuses early when path
// is taken (Write checks again when it links).
func (w *writer) create() {
	if w.err != nil {
		return
	}
	if !w.replace {
		if _, err := os.Lstat(w.path); err == nil {
			w.err = &AlreadyExistsError{Path: w.path}
			return
		}
	}
	f, err := createTemp(w.path, "tmp")
	if err != nil {
		w.err = &WriteError{Path: w.path, Op: "create", Err: err}
		return
	}
	w.f = f
}

// createTemp creates ".<base>.<kind>-<random>" beside path, exclusively,
// with mode 0666 before the umask (os.CreateTemp would make it 0600, and a
// receipt is a shared document).
func createTemp(path, kind string) (*os.File, error) {
	for range 10 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		name := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+kind+"-"+hex.EncodeToString(b[:]))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, errors.New("receipt: no free temporary name")
}

func (w *writer) write() {
	if w.err != nil {
		return
	}
	if _, err := w.f.Write(w.data); err != nil {
		w.err = &WriteError{Path: w.path, Op: "write", Err: err}
		return
	}
	if err := w.f.Sync(); err != nil {
		w.err = &WriteError{Path: w.path, Op: "sync", Err: err}
	}
}

// finish closes the temporary file, puts it in place (link, or rename
// when replacing), syncs the directory and removes the temporary name.
func (w *writer) finish() {
	if w.f == nil {
		return
	}
	tmp := w.f.Name()
	defer os.Remove(tmp) // after a link: the second name; after a failure: the file
	if err := w.f.Close(); err != nil && w.err == nil {
		w.err = &WriteError{Path: w.path, Op: "close", Err: err}
	}
	if w.err != nil {
		return
	}
	var err error
	if w.replace {
		err = os.Rename(tmp, w.path)
	} else {
		err = os.Link(tmp, w.path)
	}
	switch {
	case errors.Is(err, fs.ErrExist):
		w.err = &AlreadyExistsError{Path: w.path}
		return
	case err != nil:
		w.err = &WriteError{Path: w.path, Op: "link", Err: err}
		return
	}
	if err := syncDir(filepath.Dir(w.path)); err != nil {
		w.err = &WriteError{Path: w.path, Op: "sync", Err: err}
	}
}

// syncDir makes the new directory entry durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}
