package llamacpp

import (
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/typevet/typevet-go/judgment"
)

// A full-vocabulary /completion answer holds 262144 top_logprobs entries
// (about 20 MB), one per question. decodeCompletion reads it straight from
// the response body in one pass and keeps only what scoring needs: the
// candidates' logprobs, the entry count, the ids seen (for duplicates) and
// the compensated sum of exp(logprob) for the off-option mass rule.
// Every other value (token text, bytes, timings) is checked for
// JSON syntax and dropped.
//
// The decoder reads the body as typevet's Python json.loads does: keys
// match exactly (after unescaping, no case folding), a repeated key keeps
// its last value, only completion_probabilities[0] is read, and the
// literals NaN, Infinity and -Infinity are numbers. FuzzDecodeCompletionOracle
// checks it against encoding/json on small bodies.
//
// Most of the time goes to top_logprobs entries, so each entry is first
// tried by fastEntry, a scanner for exactly the layout llama-server writes
// (no white space, only the keys id, token, bytes and logprob, plain
// numbers, the token's escapes checked but not decoded, bytes a list of
// plain integers) over the bytes already in the read buffer. Anything else
// (white space, another key, a literal, an entry cut by the buffer's end,
// anything the general path would refuse) makes fastEntry give up, and the
// general, validating path reads the same entry from its first byte, so an
// answer is accepted or refused exactly as before (FuzzDecodeCompletionFast
// checks it against the previous decoder, kept in the tests).
//
// Memory is bounded whatever the server sends: the read buffer is 64 KiB,
// the id bitset covers at most maxBitsetIDs ids (8 MiB), at most
// maxOutsideIDs distinct ids outside it are remembered (more refuse the
// answer), and a key longer than maxKeyBytes is kept as a marker that
// matches no key.

// Bounds of the decoder's memory.
const (
	// maxBitsetIDs bounds the id bitset: ids 0..maxBitsetIDs-1 are checked
	// for repeats there (it grows past the n_probs sent on demand).
	maxBitsetIDs = 1 << 26
	// maxOutsideIDs is the most distinct ids outside the bitset (negative
	// or from maxBitsetIDs up) one top_logprobs list may hold; an answer
	// with more is refused (msgOutside), since no vocabulary has them.
	maxOutsideIDs = 1 << 16
	// maxKeyBytes bounds a kept object key (escaped): longer keys match
	// none the decoder reads.
	maxKeyBytes = 1024
	// fastWindow is how many bytes list keeps in the buffer ahead of an
	// entry, so that fastEntry finds whole entries.
	fastWindow = 2048
)

// maxDepth bounds nesting, as encoding/json does (a deeper body is not JSON).
const maxDepth = 10000

// shape is what the path root → completion_probabilities[0].top_logprobs
// held, as far as the decoder got.
type shape int

const (
	shapeMissing   shape = iota // absent or null somewhere on the path
	shapeMalformed              // a value of the wrong type on the path
	shapeList                   // top_logprobs is a list
)

// Error messages of the /completion decoder.
const (
	msgMissing   = "llama.cpp /completion response missing completion_probabilities[0].top_logprobs"
	msgMalformed = "llama.cpp /completion response is malformed: top_logprobs must be a list of objects with an integer id and a numeric logprob"
	msgLacks     = "llama.cpp /completion top_logprobs entry lacks an integer id or a numeric logprob"
	msgOutside   = "llama.cpp /completion top_logprobs holds more than 65536 token ids outside 0..67108863; no vocabulary has them"
)

// completion is a decoded /completion answer.
type completion struct {
	// cands are the requested candidates found, in request order.
	cands []judgment.ScoredCandidate
	// entries is the number of top_logprobs entries.
	entries int
	// massOK reports whether the total mass of the entries, the
	// compensated sum of exp(logprob) over every entry (Python's
	// math.fsum), is within 1e-2 of 1 (the off-option mass rule).
	massOK bool
	// usage holds tokens_evaluated and tokens_predicted.
	usage judgment.Usage
}

// readError is a failed read of the body: a transport failure, not a
// malformed body.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// decoder is the state of one decode; pooled, since its read buffer and
// id bitset are the only sizeable allocations.
type decoder struct {
	s stream

	// want maps a candidate token id to its request index; lo and hi
	// bound the ids so most entries skip the map.
	want   map[int]int
	lo, hi int

	// The state of the current (last-seen) top_logprobs list.
	shape   shape
	badItem bool // an entry of the wrong type or with a wrong-typed field
	lacks   bool // an entry without id or logprob
	dup     bool // a repeated id, the first in dupID
	dupID   int
	outside bool // more than maxOutsideIDs ids outside the bitset
	count   int
	found   []bool
	lps     []float64
	seen    []uint64 // ids below len(seen)*64
	seenMap map[int]struct{}
	mass    massSum

	evaluated, predicted *int
}

var decoders = sync.Pool{New: func() any { return &decoder{s: stream{buf: make([]byte, 64<<10)}} }}

// decodeCompletion reads a /completion body from r for the
// candidates of req. nBits sizes the id bitset (the n_probs sent); larger
// ids go to a map. Failures, in order of precedence: a read error
// (*readError), a body that is not JSON, a value of the wrong type on the
// path or in an entry, a missing top_logprobs, an entry lacking id or
// logprob ([judgment.GenerationError] each), a repeated id
// ([judgment.ScoringValidationError]).
func decodeCompletion(r io.Reader, req judgment.ScoringRequest, nBits int) (completion, error) {
	d := decoders.Get().(*decoder)
	defer func() {
		d.s.r, d.want = nil, nil
		decoders.Put(d)
	}()
	d.s.reset(r)
	d.want = make(map[int]int, len(req.Candidates))
	d.lo, d.hi = math.MaxInt, -1
	for i, c := range req.Candidates {
		d.want[c.TokenID] = i
		d.lo, d.hi = min(d.lo, c.TokenID), max(d.hi, c.TokenID)
	}
	words := (min(max(nBits, 0), maxBitsetIDs) + 63) / 64
	if cap(d.seen) < words {
		d.seen = make([]uint64, words)
	}
	d.seen = d.seen[:words]
	// Room for the logprobs' text of a full answer of nBits entries (about
	// 20 bytes each), so the replay text does not grow by copies.
	if want := min(max(nBits, 0)*24, replayLimit+64); cap(d.mass.replay) < want {
		d.mass.replay = make([]byte, 0, want)
	}
	d.found = make([]bool, len(req.Candidates))
	d.lps = make([]float64, len(req.Candidates))
	d.evaluated, d.predicted = nil, nil
	d.resetList(shapeMissing)

	ok := d.root() && !d.s.more()
	if d.s.rerr == nil && !ok {
		d.s.drain()
	}
	if d.s.rerr != nil {
		return completion{}, &readError{d.s.rerr}
	}
	switch {
	case !ok:
		return completion{}, errNonJSON()
	case d.shape == shapeMalformed || d.badItem:
		return completion{}, &judgment.GenerationError{Msg: msgMalformed}
	case d.shape == shapeMissing:
		return completion{}, &judgment.GenerationError{Msg: msgMissing}
	case d.lacks:
		return completion{}, &judgment.GenerationError{Msg: msgLacks}
	case d.outside:
		return completion{}, &judgment.GenerationError{Msg: msgOutside}
	case d.dup:
		return completion{}, &judgment.ScoringValidationError{Msg: "llama.cpp top_logprobs lists token id " + strconv.Itoa(d.dupID) + " more than once"}
	}
	out := completion{entries: d.count, massOK: d.massOK(),
		usage: judgment.Usage{InputTokens: d.evaluated, OutputTokens: d.predicted}}
	for i, c := range req.Candidates {
		if d.found[i] {
			out.cands = append(out.cands, judgment.ScoredCandidate{Label: c.Label, TokenID: c.TokenID, Logprob: d.lps[i]})
		}
	}
	return out, nil
}

// resetList starts a new top_logprobs list (a repeated key replaces the
// earlier value).
func (d *decoder) resetList(sh shape) {
	d.shape, d.badItem, d.lacks, d.dup, d.dupID, d.outside, d.count = sh, false, false, false, 0, false, 0
	d.mass.reset()
	clear(d.found)
	clear(d.seen)
	d.seenMap = nil
}

// root reads the top-level value.
func (d *decoder) root() bool {
	s := &d.s
	if !s.ws() {
		return false
	}
	switch s.buf[s.i] {
	case '{':
		return s.object(d.rootMember)
	case 'n':
		return s.skip() // null: nothing there
	}
	d.shape = shapeMalformed
	return s.skip()
}

func (d *decoder) rootMember(key []byte) bool {
	s := &d.s
	switch string(key) {
	case "completion_probabilities":
		d.resetList(shapeMissing)
		switch s.buf[s.i] {
		case '[':
			first := true
			return s.array(func() bool {
				if !first {
					return s.skip()
				}
				first = false
				switch s.buf[s.i] {
				case '{':
					return s.object(d.positionMember)
				case 'n':
					return s.skip()
				}
				d.shape = shapeMalformed
				return s.skip()
			})
		case 'n':
			return s.skip()
		}
		d.shape = shapeMalformed
		return s.skip()
	case "tokens_evaluated":
		return s.count(&d.evaluated)
	case "tokens_predicted":
		return s.count(&d.predicted)
	}
	return s.skip()
}

func (d *decoder) positionMember(key []byte) bool {
	s := &d.s
	if string(key) != "top_logprobs" {
		return s.skip()
	}
	switch s.buf[s.i] {
	case '[':
		d.resetList(shapeList)
		return d.list()
	case 'n':
		d.resetList(shapeMissing)
		return s.skip()
	}
	d.resetList(shapeMalformed)
	return s.skip()
}
