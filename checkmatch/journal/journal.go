// Package journal keeps a run's finished work on disk while the run goes,
// so that a run killed by SIGKILL, an OOM kill, a reboot or a lost session
// loses nothing that finished.
//
// A journal is a JSON Lines file beside the receipt ([Path]: the receipt
// path plus ".journal.jsonl"). Its first line is the run's [Header]: the
// document's own schema key and version, the run kind and the pins that
// decide the answers (seed, rows, slice digest, renderer, backend, model,
// server entry, revision, prompt and code digests, identity digest,
// concurrency), in a fixed order. Every further line is one finished entry
// (for a check-match run: one case at full precision and its attempt
// count), written with one write call and made durable (fsync) by
// [Writer.Add] before the run counts the entry as done.
//
// [Read] reads a journal back. A last line that does not end in a newline
// or is not valid JSON is what a process killed mid-write leaves: it is
// ignored and reported ([Contents].Torn), never an error. Any other bad
// line is an error. [Header.Check] compares the journal's pins with the
// pins of the run about to resume it and names the first that differs
// ([*MismatchError]), so a resume never mixes two experiments.
//
// The package knows nothing of what an entry holds: callers marshal their
// own entry type (checkmatch's journal lines) and decode [Contents].Entries.
// Shards and other resumable runs build on the same reader and writer.
package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// Schema is the schema key of every journal header.
const Schema = "typevet-go.journal"

// Version is the journal format version this package writes and reads.
const Version = 1

// Suffix is appended to a receipt path to name its journal.
const Suffix = ".journal.jsonl"

// MaxLine bounds one journal line on read (a check-match case line is
// under 1 KiB; an orderings case under 16 KiB).
const MaxLine = 4 << 20

// Path returns the journal path of the receipt at receiptPath.
func Path(receiptPath string) string { return receiptPath + Suffix }

// Pin is one named value of a run's identity. Value is compact JSON.
type Pin struct {
	// Name names the pin as the receipt does ("generator_seed",
	// "prompt_digests.verdict", "pins.server").
	Name string `json:"name"`
	// Value is the pin's value as compact JSON text.
	Value json.RawMessage `json:"value"`
}

// NewPin returns the pin name with v marshalled as compact JSON.
func NewPin(name string, v any) (Pin, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Pin{}, fmt.Errorf("journal: pin %s: %w", name, err)
	}
	return Pin{Name: name, Value: b}, nil
}

// Header is a journal's first line: the run identity.
type Header struct {
	// Schema is [Schema].
	Schema string `json:"schema"`
	// Version is [Version].
	Version int `json:"version"`
	// Kind names the run type ("check_match", "orderings").
	Kind string `json:"kind"`
	// Pins are the pins that decide the answers, in a fixed order.
	Pins []Pin `json:"pins"`
}

// MismatchError is returned by [Header.Check] when the run about to resume
// is not the journal's experiment: it names the first pin that differs.
type MismatchError struct {
	// Pin is the first differing pin's name ("kind" when the run types
	// differ).
	Pin string
	// Journal and Now are the pin's values (compact JSON) in the journal
	// and in the run now starting; "" when the pin is missing on that side.
	Journal, Now string
}

// Error returns "the journal is of another experiment: <pin> differs
// (journal <a>, this run <b>)".
func (e *MismatchError) Error() string {
	show := func(s string) string {
		if s == "" {
			return "absent"
		}
		if len(s) > 80 {
			return s[:77] + "..."
		}
		return s
	}
	return fmt.Sprintf("the journal is of another experiment: %s differs (journal %s, this run %s)", e.Pin, show(e.Journal), show(e.Now))
}

// Check returns nil when now has the same kind and pins as h (the
// journal's), else a *[MismatchError] naming the first difference in h's
// pin order (a pin only now has comes after).
func (h Header) Check(now Header) error {
	if h.Kind != now.Kind {
		return &MismatchError{Pin: "kind", Journal: h.Kind, Now: now.Kind}
	}
	nowPins := make(map[string]json.RawMessage, len(now.Pins))
	for _, p := range now.Pins {
		nowPins[p.Name] = p.Value
	}
	seen := make(map[string]bool, len(h.Pins))
	for _, p := range h.Pins {
		seen[p.Name] = true
		v, ok := nowPins[p.Name]
		if !ok {
			return &MismatchError{Pin: p.Name, Journal: string(p.Value)}
		}
		if !jsonEqual(p.Value, v) {
			return &MismatchError{Pin: p.Name, Journal: string(p.Value), Now: string(v)}
		}
	}
	for _, p := range now.Pins {
		if !seen[p.Name] {
			return &MismatchError{Pin: p.Name, Now: string(p.Value)}
		}
	}
	return nil
}

// jsonEqual compares two JSON texts after compacting them.
func jsonEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// Torn describes a last line left incomplete by a killed process.
type Torn struct {
	// Line is the torn line's 1-based line number.
	Line int
	// Bytes is its length in bytes.
	Bytes int
}

// Contents is a journal as [Read] found it.
type Contents struct {
	// Header is the first line.
	Header Header
	// Entries are the complete entry lines, in file order, each one JSON
	// value.
	Entries []json.RawMessage
	// Torn is the torn last line that was ignored, nil when none.
	Torn *Torn
	// Size is the length in bytes of the complete lines (the header and
	// Entries): where [Resume] truncates a torn tail.
	Size int64
}

// FormatError reports a journal that cannot be read: a bad header, an
// unknown schema or version, or a bad line that is not the last.
type FormatError struct {
	// Line is the 1-based line number (0 for an empty journal).
	Line int
	// Msg says what is wrong.
	Msg string
}

// Error returns "journal line <n>: <msg>".
func (e *FormatError) Error() string { return fmt.Sprintf("journal line %d: %s", e.Line, e.Msg) }

// Read reads a journal from r (see the package comment for the torn-line
// rule). Lines longer than [MaxLine] are refused.
func Read(r io.Reader) (Contents, error) {
	var c Contents
	br := bufio.NewReaderSize(r, 64<<10)
	line := 0
	for {
		b, err := readLine(br)
		if len(b) == 0 && err == io.EOF {
			break
		}
		line++
		complete := err == nil
		if err != nil && err != io.EOF {
			if errors.Is(err, errLineTooLong) {
				return Contents{}, &FormatError{Line: line, Msg: "line longer than the journal's bound"}
			}
			return Contents{}, err
		}
		body := bytes.TrimSuffix(b, []byte("\n"))
		valid := json.Valid(body)
		if !complete || !valid {
			// Only the last line may be torn; peek whether anything follows.
			if _, perr := br.Peek(1); perr == io.EOF && line > 1 {
				c.Torn = &Torn{Line: line, Bytes: len(b)}
				break
			}
			if line == 1 {
				if _, perr := br.Peek(1); perr == io.EOF && !complete {
					return Contents{Torn: &Torn{Line: 1, Bytes: len(b)}}, ErrTornHeader
				}
				return Contents{}, &FormatError{Line: 1, Msg: "header is not a JSON value"}
			}
			return Contents{}, &FormatError{Line: line, Msg: "not a JSON value"}
		}
		if line == 1 {
			if err := json.Unmarshal(body, &c.Header); err != nil {
				return Contents{}, &FormatError{Line: 1, Msg: "header: " + err.Error()}
			}
			if c.Header.Schema != Schema {
				return Contents{}, &FormatError{Line: 1, Msg: fmt.Sprintf("schema %q is not %q", c.Header.Schema, Schema)}
			}
			if c.Header.Version != Version {
				return Contents{}, &FormatError{Line: 1, Msg: fmt.Sprintf("version %d is not %d", c.Header.Version, Version)}
			}
		} else {
			c.Entries = append(c.Entries, json.RawMessage(bytes.Clone(body)))
		}
		c.Size += int64(len(b))
		if err == io.EOF {
			break
		}
	}
	if line == 0 {
		return Contents{}, &FormatError{Msg: "empty journal"}
	}
	return c, nil
}

// ErrTornHeader is returned by [Read] for a journal whose only line, the
// header, is incomplete: the process died while creating it, before any
// entry was written. Nothing is lost; the journal can be removed and the
// run started afresh.
var ErrTornHeader = errors.New("journal: the header line is torn (no entry was written)")

var errLineTooLong = errors.New("journal: line too long")

// readLine returns one line with its newline; err is io.EOF when the line
// has none (it is the last, possibly torn).
func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		frag, err := br.ReadSlice('\n')
		out = append(out, frag...)
		if len(out) > MaxLine {
			return nil, errLineTooLong
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return out, err
	}
}

// ReadFile reads the journal at path with [Read].
func ReadFile(path string) (Contents, error) {
	f, err := os.Open(path)
	if err != nil {
		return Contents{}, err
	}
	defer f.Close()
	return Read(f)
}

// Writer appends entries to a journal. Its methods are safe for
// concurrent use.
//
// Concurrent [Writer.Add] calls share their flushes (group commit): each
// line is written at once, then one fdatasync makes every line written
// so far durable, and each Add returns when a flush that began after its
// write has ended. At concurrency 16 a case then pays a fraction of the
// device's flush latency rather than waiting for 15 flushes before its own.
type Writer struct {
	mu      sync.Mutex // guards f, buf, written and err
	f       *os.File
	path    string
	buf     []byte
	written uint64 // lines written (header included)
	err     error  // the first write or sync failure: every later Add fails

	syncMu sync.Mutex // one flush at a time
	synced uint64     // lines a finished flush made durable (under syncMu)
}

// Create creates a new journal at path (create-exclusive: an existing file
// is an error satisfying errors.Is(err, fs.ErrExist)), writes h as its
// first line with h.Schema and h.Version set, and makes it durable (file
// and directory synced).
func Create(path string, h Header) (*Writer, error) {
	h.Schema, h.Version = Schema, Version
	b, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("journal: encoding the header: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o666)
	if err != nil {
		return nil, err
	}
	w := &Writer{f: f, path: path}
	if err := w.writeLine(b); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return w, nil
}

// Resume opens the journal at path, read as c, for appending: a torn last
// line is cut off first (the file is truncated to c.Size), so new entries
// start on a line of their own.
func Resume(path string, c Contents) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(c.Size); err != nil {
		f.Close()
		return nil, fmt.Errorf("journal: cutting the torn line of %s: %w", path, err)
	}
	if _, err := f.Seek(c.Size, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	return &Writer{f: f, path: path}, nil
}

// Path returns the journal's path.
func (w *Writer) Path() string { return w.path }

// Add appends v as one JSON line with a single write and syncs the file's
// data before returning: once Add returns nil the entry survives a
// SIGKILL or a power loss. A failed write leaves at most a torn last line.
func (w *Writer) Add(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("journal: encoding an entry: %w", err)
	}
	return w.writeLine(b)
}

// writeLine writes b as one line and makes it durable.
func (w *Writer) writeLine(b []byte) error {
	n, err := w.write(b)
	if err != nil {
		return err
	}
	return w.sync(n)
}

// write appends b and a newline with one write and returns the number of
// lines written so far. After a failure nothing more is written, so a
// torn line can only be the last one.
func (w *Writer) write(b []byte) (uint64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	if w.f == nil {
		return 0, errors.New("journal: write after close")
	}
	w.buf = append(append(w.buf[:0], b...), '\n')
	if _, err := w.f.Write(w.buf); err != nil {
		w.err = fmt.Errorf("journal: writing %s: %w", w.path, err)
		return 0, w.err
	}
	w.written++
	return w.written, nil
}

// sync returns once line n is durable: at once when a flush that began
// after line n was written has already ended, else after one flush of
// every line written so far. A failed flush fails every later Add too
// (after a failed fdatasync the kernel may have dropped the pages, so no
// later flush proves them written).
func (w *Writer) sync(n uint64) error {
	w.syncMu.Lock()
	defer w.syncMu.Unlock()
	if w.synced >= n {
		return nil
	}
	w.mu.Lock()
	f, upTo, err := w.f, w.written, w.err
	w.mu.Unlock()
	if err != nil {
		return err
	}
	if f == nil {
		return errors.New("journal: sync after close")
	}
	if err := datasync(f); err != nil {
		w.mu.Lock()
		if w.err == nil {
			w.err = fmt.Errorf("journal: syncing %s: %w", w.path, err)
		}
		err = w.err
		w.mu.Unlock()
		return err
	}
	w.synced = upTo
	return nil
}

// Close closes the file. The journal stays on disk; [Remove] deletes it.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// Remove deletes the journal at path; a missing file is not an error.
// Call it only once the receipt has been written and read back.
func Remove(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a directory entry durable (a created or removed file).
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
