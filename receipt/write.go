package receipt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/typevet/typevet-go/internal/pyjson"
)

// Marshal serializes a receipt the way typevet writes one:
// json.dumps(receipt, indent=2) + "\n", byte for byte. Keys keep the struct
// field order; indentation is two spaces with ", " never used (",\n" and
// ": "); <, > and & are not escaped; every character outside printable
// ASCII is escaped as \uXXXX (surrogate pairs above U+FFFF), as Python's
// ensure_ascii does; a float64 is Python's float text (252.0, 1e-07).
//
// It encodes with [pyjson.Marshal] (Options{EnsureASCII: true, Indent: 2,
// RejectNonFinite: true}), which follows encoding/json's struct rules (json tags, omitempty, a
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
	b, err := pyjson.Marshal(v, pyjson.Options{EnsureASCII: true, Indent: 2, RejectNonFinite: true})
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
// through there as \" or \\; here it cannot. Pass API keys and extra header
// values as secrets.
func CheckKeyFree(b []byte, secrets []string) error {
	for _, s := range secrets {
		if s == "" {
			continue
		}
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
// stopped the check. Runs call it before any network call and word the
// refusal themselves (check match: "TYPEVET_CHECK_MATCH_RECEIPT must name a
// new file: <path> exists"); [Write] checks again atomically.
func CheckNew(path string) error {
	_, err := os.Lstat(path)
	switch {
	case err == nil:
		return &AlreadyExistsError{Path: path}
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return nil
	default:
		return fmt.Errorf("receipt: checking %s: %w", path, err)
	}
}

// Write serializes v with [Marshal], refuses it with [CheckKeyFree] before
// touching the disk (the check reads the exact bytes that would be
// written), creates the parent directories, creates path
// exclusively (a *[AlreadyExistsError] if anything is there; nothing is
// ever overwritten), writes, syncs and closes the file, and returns the
// SHA-256 hex of the bytes written, which the run prints beside the path.
//
// When a step after the create fails, the partial file is removed and the
// error is a *[WriteError].
func Write(path string, v any, secrets []string) (sha256hex string, err error) {
	w := &writer{path: path}
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
	path string
	data []byte
	f    *os.File
	err  error
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

func (w *writer) checkKeyFree(secrets []string) {
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

func (w *writer) create() {
	if w.err != nil {
		return
	}
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	switch {
	case errors.Is(err, fs.ErrExist):
		w.err = &AlreadyExistsError{Path: w.path}
	case err != nil:
		w.err = &WriteError{Path: w.path, Op: "create", Err: err}
	default:
		w.f = f
	}
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

// finish closes the file this write created and removes it if any step
// after the create failed.
func (w *writer) finish() {
	if w.f == nil {
		return
	}
	if err := w.f.Close(); err != nil && w.err == nil {
		w.err = &WriteError{Path: w.path, Op: "close", Err: err}
	}
	if w.err != nil {
		_ = os.Remove(w.path)
	}
}
