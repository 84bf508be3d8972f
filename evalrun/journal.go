package evalrun

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// JournalSchema is the schema key of every journal header.
const JournalSchema = "typevet-go.journal"

// JournalVersion is the journal format version this package writes. Version 2
// binds every entry line to the header by a digest chain (see [ReadJournal]) and
// may record the run's settings ([Header].Settings); version 1 journals,
// whose lines carry no chain, are still read and resumed (their new lines
// then stay unchained, as version 1 lines are).
const JournalVersion = 2

// chainKey is the key a version 2 entry line ends with: its chain digest.
const chainKey = `,"chain":"`

// chainTrailerLen is the length of a chain trailer: chainKey, 64 hex
// digits, the closing quote and brace.
const chainTrailerLen = len(chainKey) + 64 + 2

// JournalSuffix is appended to a receipt path to name its journal.
const JournalSuffix = ".journal.jsonl"

// MaxJournalLine bounds one journal line on read (a check-match case line is
// under 1 KiB; an orderings case under 16 KiB).
const MaxJournalLine = 4 << 20

// JournalPath returns the journal path of the receipt at receiptPath.
func JournalPath(receiptPath string) string { return receiptPath + JournalSuffix }

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
	// JournalSchema is [JournalSchema].
	Schema string `json:"schema"`
	// JournalVersion is [JournalVersion].
	Version int `json:"version"`
	// Kind names the run type ("check_match", "orderings").
	Kind string `json:"kind"`
	// Pins are the pins that decide the answers, in a fixed order.
	Pins []Pin `json:"pins"`
	// Settings are what the run was started with that a resume takes
	// from the journal rather than from its caller (a base URL, a
	// timeout, a retry count), in the run's own order; no secret. They are
	// not the run's identity: [Header.Check] does not compare them.
	// Absent from version 1 journals.
	Settings []Pin `json:"settings,omitempty"`
}

// Pin returns the value of the pin name, false when h has none.
func (h Header) Pin(name string) (json.RawMessage, bool) {
	for _, p := range h.Pins {
		if p.Name == name {
			return p.Value, true
		}
	}
	return nil, false
}

// Setting returns the value of the setting name, false when h has none.
func (h Header) Setting(name string) (json.RawMessage, bool) {
	for _, p := range h.Settings {
		if p.Name == name {
			return p.Value, true
		}
	}
	return nil, false
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
// (journal <a>, this run <b>)", both values in full.
func (e *MismatchError) Error() string {
	return "the journal is of another experiment: " + e.Difference()
}

// Difference returns "<pin> differs (journal <a>, this run <b>)", both
// values in full ("absent" for a missing one); when both are longer than
// a line, it also says at which byte they first differ.
func (e *MismatchError) Difference() string {
	return e.Pin + " differs (" + ShowValues("journal", e.Journal, "this run", e.Now) + ")"
}

// ShowValues returns "<nameA> <a>, <nameB> <b>", each value in full
// ("absent" when empty); when both are over 80 bytes it adds where they
// first differ: "; they first differ at byte N: …<a's next bytes> vs
// …<b's next bytes>", so a difference deep in a long value shows.
func ShowValues(nameA, a, nameB, b string) string {
	show := func(s string) string {
		if s == "" {
			return "absent"
		}
		return s
	}
	out := fmt.Sprintf("%s %s, %s %s", nameA, show(a), nameB, show(b))
	if len(a) <= 80 || len(b) <= 80 {
		return out
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	excerpt := func(s string) string {
		return "…" + s[i:min(len(s), i+40)]
	}
	return fmt.Sprintf("%s; they first differ at byte %d: %s vs %s", out, i, excerpt(a), excerpt(b))
}

// Advisory says which differences between a journal's header and the
// run now starting are warnings rather than refusals: pins that record
// where the run was made (a git baseline, a working tree) but do not
// decide its answers.
type Advisory struct {
	// Pins are the pins whose difference is a warning.
	Pins []string
	// Keys maps a pin whose value is a JSON object to the object keys
	// whose difference is a warning ("renderer": "module_version"): the
	// rest of the object must be equal.
	Keys map[string][]string
	// Derived are pins computed over an advisory pin among others (an
	// identity digest over the working tree): their difference is a
	// warning when one of Pins differs too, else a refusal.
	Derived []string
}

// WhereBuilt is the [Advisory] of typevet's run journals: a different
// git baseline commit or working tree, the renderer's module_version that
// follows them, and the identity digest taken over them are warnings,
// never refusals. They say where the code was built, not what decides the
// answers: the code path digests, prompt digests, the rest of the
// renderer pin, the slice digest, the model and the server pins do, and
// any of those that differs still refuses. An identity digest that
// differs while the baseline and working tree are equal refuses too.
func WhereBuilt() Advisory {
	return Advisory{
		Pins:    []string{"baseline_commit", "working_tree"},
		Keys:    map[string][]string{"renderer": {"module_version"}},
		Derived: []string{"identity_digest"},
	}
}

// Check returns nil when now has the same kind and pins as h (the
// journal's), else a *[MismatchError] naming the first difference in h's
// pin order (a pin only now has comes after). Every pin counts: see
// [Header.Compare] for pins whose difference is only a warning.
func (h Header) Check(now Header) error {
	_, err := h.Compare(now, Advisory{})
	return err
}

// Compare is [Header.Check] under adv: a difference in an advisory pin
// (or key, or a derived pin explained by an advisory pin) is returned as
// a warning, one *[MismatchError] each, in h's pin order, and only the
// other pins can refuse.
func (h Header) Compare(now Header, adv Advisory) ([]*MismatchError, error) {
	if h.Kind != now.Kind {
		return nil, &MismatchError{Pin: "kind", Journal: h.Kind, Now: now.Kind}
	}
	nowPins := make(map[string]json.RawMessage, len(now.Pins))
	for _, p := range now.Pins {
		nowPins[p.Name] = p.Value
	}
	var warnings, derived []*MismatchError
	seen := make(map[string]bool, len(h.Pins))
	for _, p := range h.Pins {
		seen[p.Name] = true
		v, ok := nowPins[p.Name]
		if !ok {
			return nil, &MismatchError{Pin: p.Name, Journal: string(p.Value)}
		}
		if jsonEqual(p.Value, v) {
			continue
		}
		m := &MismatchError{Pin: p.Name, Journal: string(p.Value), Now: string(v)}
		switch {
		case slices.Contains(adv.Pins, p.Name):
			warnings = append(warnings, m)
		case slices.Contains(adv.Derived, p.Name):
			derived = append(derived, m)
		case len(adv.Keys[p.Name]) > 0:
			w, err := compareKeys(p.Name, p.Value, v, adv.Keys[p.Name])
			if err != nil {
				return nil, err
			}
			warnings = append(warnings, w...)
		default:
			return nil, m
		}
	}
	for _, p := range now.Pins {
		if !seen[p.Name] {
			return nil, &MismatchError{Pin: p.Name, Now: string(p.Value)}
		}
	}
	if len(derived) > 0 {
		explained := false
		for _, w := range warnings {
			explained = explained || slices.Contains(adv.Pins, w.Pin)
		}
		if !explained {
			return nil, derived[0]
		}
		warnings = append(warnings, derived...)
	}
	return warnings, nil
}

// compareKeys compares two JSON objects: a difference in one of keys is a
// warning named "<pin>.<key>", any other difference a refusal naming the
// pin.
func compareKeys(pin string, a, b json.RawMessage, keys []string) ([]*MismatchError, error) {
	var oa, ob map[string]json.RawMessage
	whole := &MismatchError{Pin: pin, Journal: string(a), Now: string(b)}
	if json.Unmarshal(a, &oa) != nil || json.Unmarshal(b, &ob) != nil {
		return nil, whole
	}
	var warnings []*MismatchError
	for _, k := range keys {
		if !jsonEqual(oa[k], ob[k]) {
			warnings = append(warnings, &MismatchError{Pin: pin + "." + k, Journal: string(oa[k]), Now: string(ob[k])})
		}
		delete(oa, k)
		delete(ob, k)
	}
	ca, _ := json.Marshal(oa) // map keys are sorted: equal maps, equal text
	cb, _ := json.Marshal(ob)
	if !jsonEqual(ca, cb) {
		return nil, whole
	}
	return warnings, nil
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

// JournalContents is a journal as [ReadJournal] found it.
type JournalContents struct {
	// Header is the first line.
	Header Header
	// Entries are the complete entry lines, in file order, each one JSON
	// value.
	Entries []json.RawMessage
	// Torn is the torn last line that was ignored, nil when none.
	Torn *Torn
	// Size is the length in bytes of the complete lines (the header and
	// Entries): where [ResumeJournal] truncates a torn tail.
	Size int64
	// chain is the chain digest of the last complete line (version 2).
	chain [sha256.Size]byte
}

// JournalError reports a journal that cannot be read: a bad header, an
// unknown schema or version, a bad line that is not the last, or (version
// 2) a line whose chain digest is not its own: a line changed, removed,
// moved or copied from another journal after it was written.
type JournalError struct {
	// Path is the journal's path when known ([ReadJournalFile]), else "".
	Path string
	// Line is the 1-based line number (0 for an empty journal).
	Line int
	// Msg says what is wrong.
	Msg string
}

// Error returns "journal <path> line <n>: <msg>" ("journal line <n>: …"
// without a path).
func (e *JournalError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("journal line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("journal %s line %d: %s", e.Path, e.Line, e.Msg)
}

// changedHint ends the message of a line the chain refuses.
const changedHint = "the journal was changed after it was written: restore it from a copy, or remove it and start the run over"

// ReadJournal reads a journal from r (see the package comment for the torn-line
// rule). Lines longer than [MaxJournalLine] are refused.
//
// JournalVersion 2 journals bind each entry line to the header: a line is the
// entry's JSON object with a last key "chain", the SHA-256 hex of the
// previous line's chain digest (the header line's SHA-256 for the first
// entry) followed by the entry's bytes without that key. Read checks
// every link and returns the entries without the key; a line whose link
// does not hold is refused, naming the line. Only a last line without its
// newline counts as torn: a complete line that fails is an error.
func ReadJournal(r io.Reader) (JournalContents, error) {
	var c JournalContents
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
				return JournalContents{}, &JournalError{Line: line, Msg: "line longer than the journal's bound"}
			}
			return JournalContents{}, err
		}
		body := bytes.TrimSuffix(b, []byte("\n"))
		valid := json.Valid(body)
		chained := line > 1 && c.Header.Version >= 2
		if !complete || !valid {
			// Only the last line may be torn; peek whether anything follows.
			// A chained journal's complete line is never torn: its one
			// write ends with the newline.
			if _, perr := br.Peek(1); perr == io.EOF && line > 1 && (!complete || !chained) {
				c.Torn = &Torn{Line: line, Bytes: len(b)}
				break
			}
			if line == 1 {
				if _, perr := br.Peek(1); perr == io.EOF && !complete {
					return JournalContents{Torn: &Torn{Line: 1, Bytes: len(b)}}, ErrTornHeader
				}
				return JournalContents{}, &JournalError{Line: 1, Msg: "header is not a JSON value"}
			}
			if chained {
				return JournalContents{}, &JournalError{Line: line, Msg: "not a JSON value; " + changedHint}
			}
			return JournalContents{}, &JournalError{Line: line, Msg: "not a JSON value"}
		}
		if line == 1 {
			if err := decodeHeader(body, &c.Header); err != nil {
				return JournalContents{}, &JournalError{Line: 1, Msg: "header: " + err.Error()}
			}
			if c.Header.Schema != JournalSchema {
				return JournalContents{}, &JournalError{Line: 1, Msg: fmt.Sprintf("schema %q is not %q", c.Header.Schema, JournalSchema)}
			}
			if c.Header.Version != 1 && c.Header.Version != JournalVersion {
				return JournalContents{}, &JournalError{Line: 1, Msg: fmt.Sprintf("version %d is not 1 or %d: a journal of another typevet-go version", c.Header.Version, JournalVersion)}
			}
			c.chain = sha256.Sum256(body)
		} else {
			entry := body
			if chained {
				var ok bool
				if entry, c.chain, ok = unchain(body, c.chain); !ok {
					return JournalContents{}, &JournalError{Line: line, Msg: "its chain digest does not match the header and the lines before it; " + changedHint}
				}
			}
			c.Entries = append(c.Entries, json.RawMessage(bytes.Clone(entry)))
		}
		c.Size += int64(len(b))
		if err == io.EOF {
			break
		}
	}
	if line == 0 {
		return JournalContents{}, &JournalError{Msg: "empty journal"}
	}
	return c, nil
}

// decodeHeader decodes a header line strictly: every key known and
// spelled as written, none missing.
func decodeHeader(b []byte, h *Header) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(h); err != nil {
		return err
	}
	again, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if !jsonEqual(again, b) {
		return errors.New("not a header as this package writes it (a key missing, misspelt or repeated)")
	}
	return nil
}

// link returns the chain digest of an entry after prev.
func link(prev [sha256.Size]byte, entry []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(hex.EncodeToString(prev[:])))
	h.Write(entry)
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// chain returns entry, a JSON object, with its chain key after prev.
func chain(entry []byte, prev [sha256.Size]byte) ([]byte, [sha256.Size]byte, error) {
	if len(entry) < 3 || entry[0] != '{' || entry[len(entry)-1] != '}' {
		return nil, prev, errors.New("journal: an entry must be a JSON object with at least one key")
	}
	next := link(prev, entry)
	out := make([]byte, 0, len(entry)+chainTrailerLen)
	out = append(out, entry[:len(entry)-1]...)
	out = append(out, chainKey...)
	out = hex.AppendEncode(out, next[:])
	out = append(out, '"', '}')
	return out, next, nil
}

// unchain checks line's chain key after prev and returns the entry
// without it and the line's digest.
func unchain(line []byte, prev [sha256.Size]byte) ([]byte, [sha256.Size]byte, bool) {
	n := len(line) - chainTrailerLen
	if n < 2 || !bytes.HasPrefix(line[n:], []byte(chainKey)) || !bytes.HasSuffix(line, []byte(`"}`)) {
		return nil, prev, false
	}
	entry := append(bytes.Clone(line[:n]), '}')
	got := link(prev, entry)
	if hex.EncodeToString(got[:]) != string(line[n+len(chainKey):len(line)-2]) {
		return nil, prev, false
	}
	return entry, got, true
}

// ErrTornHeader is returned by [ReadJournal] for a journal whose only line, the
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
		if len(out) > MaxJournalLine {
			return nil, errLineTooLong
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return out, err
	}
}

// ReadJournalFile reads the journal at path with [ReadJournal].
func ReadJournalFile(path string) (JournalContents, error) {
	f, err := os.Open(path)
	if err != nil {
		return JournalContents{}, err
	}
	defer f.Close()
	c, err := ReadJournal(f)
	var fe *JournalError
	if errors.As(err, &fe) {
		fe.Path = path
	}
	return c, err
}

// JournalWriter appends entries to a journal. Its methods are safe for
// concurrent use.
//
// Concurrent [JournalWriter.Add] calls share their flushes (group commit): each
// line is written at once, then one fdatasync makes every line written
// so far durable, and each Add returns when a flush that began after its
// write has ended. At concurrency 16 a case then pays a fraction of the
// device's flush latency rather than waiting for 15 flushes before its own.
type JournalWriter struct {
	mu      sync.Mutex // guards f, buf, written and err
	f       *os.File
	path    string
	buf     []byte
	written uint64 // lines written (header included)
	err     error  // the first write or sync failure: every later Add fails
	chained bool   // version 2: lines carry their chain digest
	chain   [sha256.Size]byte

	syncMu sync.Mutex // one flush at a time
	synced uint64     // lines a finished flush made durable (under syncMu)
}

// CreateJournal creates a new journal at path (create-exclusive: an existing file
// is an error satisfying errors.Is(err, fs.ErrExist)), writes h as its
// first line with h.Schema and h.Version set, and makes it durable (file
// and directory synced).
func CreateJournal(path string, h Header) (*JournalWriter, error) {
	h.Schema, h.Version = JournalSchema, JournalVersion
	b, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("journal: encoding the header: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o666)
	if err != nil {
		return nil, err
	}
	w := &JournalWriter{f: f, path: path}
	err = w.writeLine(b)
	w.chained, w.chain = true, sha256.Sum256(b)
	if err != nil {
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

// ResumeJournal opens the journal at path, read as c, for appending: a torn last
// line is cut off first (the file is truncated to c.Size), so new entries
// start on a line of their own.
func ResumeJournal(path string, c JournalContents) (*JournalWriter, error) {
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
	return &JournalWriter{f: f, path: path, chained: c.Header.Version >= 2, chain: c.chain}, nil
}

// Path returns the journal's path.
func (w *JournalWriter) Path() string { return w.path }

// Add appends v, which must marshal to a JSON object, as one JSON line
// (with its chain key in a version 2 journal) with a single write and
// syncs the file's data before returning: once Add returns nil the entry
// survives a SIGKILL or a power loss. A failed write leaves at most a
// torn last line.
func (w *JournalWriter) Add(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("journal: encoding an entry: %w", err)
	}
	if len(b) < 3 || b[0] != '{' {
		return errors.New("journal: an entry must be a JSON object with at least one key")
	}
	return w.writeLine(b)
}

// writeLine writes b as one line and makes it durable.
func (w *JournalWriter) writeLine(b []byte) error {
	n, err := w.write(b)
	if err != nil {
		return err
	}
	return w.sync(n)
}

// write appends b and a newline with one write and returns the number of
// lines written so far. After a failure nothing more is written, so a
// torn line can only be the last one.
func (w *JournalWriter) write(b []byte) (uint64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	if w.f == nil {
		return 0, errors.New("journal: write after close")
	}
	if w.chained {
		var err error
		if b, w.chain, err = chain(b, w.chain); err != nil {
			return 0, err
		}
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
func (w *JournalWriter) sync(n uint64) error {
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

// Close closes the file. The journal stays on disk; [RemoveJournal] deletes it.
func (w *JournalWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// RemoveJournal deletes the journal at path; a missing file is not an error.
// Call it only once the receipt has been written and read back.
func RemoveJournal(path string) error {
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
