package llamacpp

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/typevet/typevet-go/internal/backendhttp"
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

// list reads a top_logprobs array (s.buf[s.i] is its '['). Each entry is
// tried by fastEntry first, with at least fastWindow bytes of the body in
// the buffer where the body has them; the general path (entry) reads what
// fastEntry gives up on.
func (d *decoder) list() bool {
	s := &d.s
	if empty, ok := s.enter(']'); !ok || empty {
		return ok
	}
	for {
		if s.n-s.i < fastWindow {
			s.refill()
		}
		if n := d.llamaEntry(s.buf[s.i:s.n]); n > 0 {
			s.i += n
		} else if n := d.fastEntry(s.buf[s.i:s.n]); n > 0 {
			s.i += n
		} else if !s.ws() || !d.entry() {
			return false
		}
		if !s.ws() {
			return false
		}
		switch s.buf[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// fastEntry reads one top_logprobs entry at the start of b in the layout
// llama-server writes, {"id":…,"token":"…","bytes":[…],"logprob":…} (keys
// in any order, each optional but id and logprob), records it and returns
// its length. It returns 0, having recorded nothing, for anything else:
// white space, another key, a number that is not plain (a literal, a
// leading zero, an id of more than 18 digits or with a fraction), a control
// byte or a bad escape in the token, an entry not whole in b, an entry
// lacking id or logprob. The general path then reads the entry and
// accepts or refuses it as the decoder always has. Only the logprob is
// parsed; the token's text and bytes are checked, not decoded.
func (d *decoder) fastEntry(b []byte) int {
	if len(b) < 2 || b[0] != '{' || b[1] != '"' || d.s.depth+1 >= maxDepth {
		return 0
	}
	const (
		hasID = 1 << iota
		hasLogprob
	)
	var (
		id         int
		lp0, lp1   int
		approx     float64
		kind       numKind
		have, i, j int
	)
	i = 1
	for {
		// b[i] is a key's opening quote.
		rest := b[i+1:]
		if len(rest) < 10 {
			return 0
		}
		switch w := binary.LittleEndian.Uint64(rest); {
		case uint32(w) == keyID:
			if id, j = plainInt(b, i+5); j < 0 {
				return 0
			}
			have |= hasID
		case w == keyLogprob && rest[8] == ':':
			lp0 = i + 10
			if lp1, approx, kind = scanNumber(b, lp0); lp1 < 0 {
				return 0
			}
			j = lp1
			have |= hasLogprob
		case w == keyToken:
			if j = plainString(b, i+9); j < 0 {
				return 0
			}
		case w == keyBytes:
			if j = plainInts(b, i+9); j < 0 {
				return 0
			}
		default:
			return 0
		}
		if j >= len(b) {
			return 0
		}
		switch b[j] {
		case ',':
			if j+1 >= len(b) || b[j+1] != '"' {
				return 0
			}
			i = j + 1
			continue
		case '}':
		default:
			return 0
		}
		break
	}
	if have != hasID|hasLogprob {
		return 0
	}
	if !d.fastAdd(id, b[lp0:lp1], approx, kind) {
		return 0
	}
	return j + 1
}

// fastAdd records an entry fastEntry read: id, its logprob's text and what
// scanNumber learnt of it. False (nothing recorded) when the text is not a
// logprob.
func (d *decoder) fastAdd(id int, text []byte, approx float64, kind numKind) bool {
	switch {
	case d.wanted(id) || kind == numExact:
		lp, ok := parseLogprob(text)
		if !ok {
			return false
		}
		d.record(id)
		if d.wanted(id) {
			d.take(id, lp)
		}
		d.mass.addExact(lp, text)
	case kind == numFar:
		d.record(id)
		d.mass.addFar(int(approx), text)
	default:
		d.record(id)
		d.mass.addNear(approx, text)
	}
	return true
}

// llamaEntry reads an entry in llama-server's own key order,
// {"id":…,"token":"…","bytes":[…],"logprob":…}, in one straight pass, as
// fastEntry would; 0 (nothing recorded) for anything else, which
// fastEntry then reads.
func (d *decoder) llamaEntry(b []byte) int {
	if len(b) < 48 || binary.LittleEndian.Uint64(b)&0xffffffffffff != prefixID || d.s.depth+1 >= maxDepth {
		return 0
	}
	id, i := plainInt(b, 6)
	if i < 0 || i+10 > len(b) || binary.LittleEndian.Uint64(b[i:]) != prefixToken || b[i+8] != ':' || b[i+9] != '"' {
		return 0
	}
	// The token: plain bytes and escapes (plainString, inlined for the
	// common case).
	for i += 10; i < len(b) && plainByte[b[i]]; i++ {
	}
	if i < len(b) && b[i] == '\\' {
		if i = plainString(b, i); i < 0 {
			return 0
		}
	} else if i++; i > len(b) || b[i-1] != '"' {
		return 0
	}
	if i+10 > len(b) || binary.LittleEndian.Uint64(b[i:]) != prefixBytes || b[i+8] != ':' || b[i+9] != '[' {
		return 0
	}
	if i = plainInts(b, i+10); i < 0 || i+11 > len(b) || binary.LittleEndian.Uint64(b[i:]) != prefixLogprob || b[i+8] != 'b' || b[i+9] != '"' || b[i+10] != ':' {
		return 0
	}
	lp0 := i + 11
	lp1, approx, kind := scanNumber(b, lp0)
	if lp1 < 0 || b[lp1] != '}' || !d.fastAdd(id, b[lp0:lp1], approx, kind) {
		return 0
	}
	return lp1 + 1
}

// The keys fastEntry reads, as little-endian words of their first bytes
// after the opening quote.
var (
	keyID      = binary.LittleEndian.Uint32([]byte(`id":`))
	keyLogprob = binary.LittleEndian.Uint64([]byte(`logprob"`))
	keyToken   = binary.LittleEndian.Uint64([]byte(`token":"`))
	keyBytes   = binary.LittleEndian.Uint64([]byte(`bytes":[`))
)

// The fixed runs of llamaEntry, as little-endian words.
var (
	prefixID      = binary.LittleEndian.Uint64([]byte(`{"id":\x00\x00`)) & 0xffffffffffff
	prefixToken   = binary.LittleEndian.Uint64([]byte(`,"token"`))
	prefixBytes   = binary.LittleEndian.Uint64([]byte(`,"bytes"`))
	prefixLogprob = binary.LittleEndian.Uint64([]byte(`,"logpro`))
)

// plainInt reads an integer of at most 18 digits, with no leading zero,
// at b[i:]; it returns the value and the index after it, or -1.
func plainInt(b []byte, i int) (int, int) {
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	start := i
	n := 0
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		n = n*10 + int(b[i]-'0')
		i++
	}
	switch l := i - start; {
	case l == 0 || l > 18 || l > 1 && b[start] == '0':
		return 0, -1
	case i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E'):
		return 0, -1
	}
	if neg {
		n = -n
	}
	return n, i
}

// numKind is what scanNumber learnt of a number's value.
type numKind int

const (
	numExact numKind = iota // nothing: parse it
	numNear                 // v is within nearRelErr of it, relative
	numFar                  // v is k: it lies in [−(k+1)/10, −k/10] (farExp)
)

// scanNumber checks a JSON number at b[i:] and returns the index after it
// (-1 for a literal, or a number not followed by a byte in b) and what it
// learnt of its value: for a logprob below −farLogprob its tenth
// (scanFar); otherwise, mostly, an approximation from its first 15
// significant digits, scaled by one or two exact powers of ten.
func scanNumber(b []byte, i int) (end int, v float64, kind numKind) {
	start := i
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	if neg {
		if end, k, ok := scanFar(b, i); ok {
			return end, float64(k), numFar
		}
	}
	i = start + btoi(neg)
	var m uint64
	nd, e10 := 0, 0 // significant digits in m; the power of ten of m's last
	switch {
	case i >= len(b):
		return -1, 0, numExact
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			if nd < 15 {
				m, nd = m*10+uint64(b[i]-'0'), nd+1
			} else {
				e10++
			}
		}
	default:
		return -1, 0, numExact
	}
	if i < len(b) && b[i] == '.' {
		i++
		j := i
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			switch {
			case m == 0 && b[i] == '0':
				e10--
			case nd < 15:
				m, nd, e10 = m*10+uint64(b[i]-'0'), nd+1, e10-1
			}
		}
		if i == j {
			return -1, 0, numExact
		}
	}
	kind = numNear
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := i < len(b) && b[i] == '-'
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j, x := i, 0
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			if x < 10000 {
				x = x*10 + int(b[i]-'0')
			}
		}
		if i == j {
			return -1, 0, numExact
		}
		if eneg {
			x = -x
		}
		e10 += x
	}
	if i >= len(b) {
		return -1, 0, numExact
	}
	v = float64(m)
	switch {
	case m == 0:
	case e10 >= 0 && e10 <= 22:
		v *= pow10[e10]
	case e10 < 0 && e10 >= -22:
		v /= pow10[-e10]
	case e10 < -22 && e10 >= -44:
		v = v / 1e22 / pow10[-e10-22]
	default:
		kind = numExact
	}
	if neg {
		v = -v
	}
	return i, v, kind
}

// farLogprob is the logprob below which an entry's share of the mass is
// bounded from a table (farExp) instead of computed: e^-16 ≈ 1.1e-7, so a
// full vocabulary of such entries holds at most 0.03 of the mass, and the
// table's tenths bound it to within 10% of that.
const farLogprob = 16

// scanFar reads a number −I.F… at b[i:] (the '-' consumed) with an
// integer part I of at least farLogprob and no exponent, and returns the
// index after it and 10·I + the first digit of F, at most farMax.
// Anything else: ok false.
func scanFar(b []byte, i int) (end int, k int, ok bool) {
	if i >= len(b) || b[i] < '1' || b[i] > '9' {
		return 0, 0, false
	}
	n := 0
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		if n < farMax {
			n = n*10 + int(b[i]-'0')
		}
	}
	if n < farLogprob {
		return 0, 0, false
	}
	tenth := 0
	if i < len(b) && b[i] == '.' {
		j := i + 1
		if j < len(b) && '0' <= b[j] && b[j] <= '9' {
			tenth = int(b[j] - '0')
		}
		i = longDigitsEnd(b, j)
		if i == j {
			return 0, 0, false
		}
	}
	if i >= len(b) || b[i] == 'e' || b[i] == 'E' {
		return 0, 0, false
	}
	return i, min(10*n+tenth, farMax), true
}

// farMax is the last tenth farMid holds (e^-745 is about the smallest
// float64); past it the bounds are [0, e^-745].
const farMax = 7450

// farMid[k] and farHalf[k] are the middle and half the width of an
// interval holding e^v for every v in [−(k+1)/10, −k/10], widened by
// 1e-12 each way for the roundings of its computation and of k.
var farMid, farHalf = func() (mid, half [farMax + 1]float64) {
	for k := range farMax + 1 {
		hi := math.Exp(-float64(k)/10) * (1 + 1e-12)
		lo := math.Exp(-float64(k+1)/10) * (1 - 1e-12)
		if k == farMax {
			lo = 0
		}
		mid[k], half[k] = (hi+lo)/2, (hi-lo)/2
	}
	return mid, half
}()

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// pow10 holds the powers of ten a float64 holds exactly.
var pow10 = [23]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// longDigitsEnd is digitsEnd for long runs (a logprob's 15 or so
// fraction digits): eight bytes at a time while all eight are digits (a
// byte is one when its high nibble is 3 and adding 6 keeps it there).
func longDigitsEnd(b []byte, i int) int {
	for i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		if x&0xF0F0F0F0F0F0F0F0|(x+0x0606060606060606)&0xF0F0F0F0F0F0F0F0>>4 != 0x3333333333333333 {
			break
		}
		i += 8
	}
	return digitsEnd(b, i)
}

// digitsEnd returns the index after the decimal digits at b[i:].
func digitsEnd(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// plainString checks the rest of a string whose opening quote is b[i-1]
// and returns the index after its closing quote, or -1 (a control byte, a
// bad escape, or no closing quote in b).
func plainString(b []byte, i int) int {
	for i < len(b) {
		c := b[i]
		if plainByte[c] {
			i++
			continue
		}
		switch {
		case c == '"':
			return i + 1
		case c != '\\' || i+1 >= len(b):
			return -1
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(b) {
				return -1
			}
			for _, h := range b[i+2 : i+6] {
				if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
					return -1
				}
			}
			i += 6
		default:
			return -1
		}
	}
	return -1
}

// plainByte marks the bytes a string holds as they are: not a quote, a
// backslash or a control byte.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainInts checks the rest of a list of plain non-negative integers whose
// '[' is b[i-1] and returns the index after its ']', or -1.
func plainInts(b []byte, i int) int {
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for i < len(b) {
		switch {
		case b[i] == '0':
			i++
		case '1' <= b[i] && b[i] <= '9':
			i = digitsEnd(b, i+1)
		default:
			return -1
		}
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i++
		case ']':
			return i + 1
		default:
			return -1
		}
	}
	return -1
}

// field states of an entry's id or logprob.
const (
	fieldAbsent = iota
	fieldOK
	fieldBad
)

// entry reads one top_logprobs element: {id, logprob, ...} or null.
func (d *decoder) entry() bool {
	s := &d.s
	switch s.buf[s.i] {
	case '{':
	case 'n':
		d.lacks = true
		return s.skip()
	default:
		d.badItem = true
		return s.skip()
	}
	idState, lpState := fieldAbsent, fieldAbsent
	var id int
	var lp float64
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			if !s.isNumber() {
				idState = fieldBad
				return s.skip()
			}
			if !s.number() {
				return false
			}
			var good bool
			if id, good = atoi(s.num); good {
				idState = fieldOK
			} else {
				idState = fieldBad
			}
			return true
		case "logprob":
			if !s.isNumber() {
				lpState = fieldBad
				return s.skip()
			}
			if !s.number() {
				return false
			}
			var good bool
			if lp, good = parseLogprob(s.num); good {
				lpState = fieldOK
			} else {
				lpState = fieldBad
			}
			return true
		}
		return s.skip()
	})
	switch {
	case !ok:
		return false
	case idState == fieldBad || lpState == fieldBad:
		d.badItem = true
	case idState == fieldAbsent || lpState == fieldAbsent:
		d.lacks = true
	default:
		d.add(id, lp)
	}
	return true
}

// massOK reports whether the current list's total mass is within 1e-2 of
// 1 (massSum).
func (d *decoder) massOK() bool { return d.mass.ok() }

// add records one well-formed entry.
func (d *decoder) add(id int, lp float64) {
	d.record(id)
	if d.wanted(id) {
		d.take(id, lp)
	}
	d.mass.addExact(lp, nil)
}

// record counts one entry and checks its id for a repeat.
func (d *decoder) record(id int) {
	d.count++
	if uint(id) >= uint(len(d.seen))*64 && id >= 0 && id < maxBitsetIDs {
		d.growSeen(id)
	}
	if uint(id) < uint(len(d.seen))*64 {
		w, bit := id/64, uint64(1)<<(id%64)
		if d.seen[w]&bit != 0 {
			d.repeated(id)
		}
		d.seen[w] |= bit
	} else if !d.outside {
		if d.seenMap == nil {
			d.seenMap = make(map[int]struct{})
		}
		if _, ok := d.seenMap[id]; ok {
			d.repeated(id)
		} else if len(d.seenMap) == maxOutsideIDs {
			d.outside, d.seenMap = true, nil
		} else {
			d.seenMap[id] = struct{}{}
		}
	}
}

// wanted reports whether id is a candidate's.
func (d *decoder) wanted(id int) bool {
	if id < d.lo || id > d.hi {
		return false
	}
	_, ok := d.want[id]
	return ok
}

// take records the logprob of a candidate's id.
func (d *decoder) take(id int, lp float64) {
	i := d.want[id]
	d.found[i], d.lps[i] = true, lp
}

// growSeen extends the bitset (zeroed) to cover id, doubling it, at most
// to maxBitsetIDs.
func (d *decoder) growSeen(id int) {
	words := min(max(2*len(d.seen), id/64+1, 1024), maxBitsetIDs/64)
	d.seen = append(d.seen, make([]uint64, words-len(d.seen))...)
}

func (d *decoder) repeated(id int) {
	if !d.dup {
		d.dup, d.dupID = true, id
	}
}

// atoi parses a JSON integer as strconv.Atoi does.
func atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 18 {
		n, err := strconv.Atoi(string(b))
		return n, err == nil
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// parseLogprob parses a number or one of Python's literals; a value out of
// float64 range is ±Inf or 0, as Python reads it.
func parseLogprob(b []byte) (float64, bool) {
	switch string(b) {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		err = nil
	}
	return f, err == nil
}

// nearRelErr bounds the relative error of scanNumber's approximation:
// 1e-14 from dropping digits after the fifteenth, three roundings of
// 2^-53 each from the conversion and the scaling.
const nearRelErr = 1.1e-14

// maxReplayBytes bounds the logprob text a massSum keeps for its replay;
// a list with more is summed exactly as it is read from then on. A
// 262144-entry answer needs about 5 MB.
const maxReplayBytes = 8 << 20

// replayLimit is maxReplayBytes; tests lower it.
var replayLimit = maxReplayBytes

// massSum decides whether a top_logprobs list's total mass, the
// compensated sum of exp(logprob) over its entries in order (kahan, as
// typevet's math.fsum), is within 1e-2 of 1, without parsing every
// logprob exactly. Each logprob is summed either exactly parsed
// (addExact) or as scanNumber's approximation (addNear), with a bound on
// the error that adds; the logprobs are kept as text. When the bounds put
// every sum they allow on one side of the rule, that is the answer;
// otherwise (a total within about 1e-9 of 0.99 or 1.01, a non-finite
// value) replay sums the kept text exactly, in order, as the decoder
// before issue 18 did. Either way the answer is the exact sum's.
type massSum struct {
	x, e   float64 // Σ exp of the values summed; Σ of their error bounds
	n      int     // values summed into x
	exact  bool    // every value so far is in total (the replay ran)
	total  kahan   // the exact sum, once exact
	replay []byte  // the logprobs' text, each followed by ','
}

func (m *massSum) reset() {
	m.x, m.e, m.n, m.exact, m.total, m.replay = 0, 0, 0, false, kahan{}, m.replay[:0]
}

// addExact adds exp(lp); text is lp as the body wrote it (nil: lp itself
// is kept).
func (m *massSum) addExact(lp float64, text []byte) {
	if m.exact {
		m.total.add(math.Exp(lp))
		return
	}
	m.x += math.Exp(lp)
	m.n++
	if text == nil {
		m.keep(strconv.AppendFloat(m.replay, lp, 'g', -1, 64))
	} else {
		m.keep(append(m.replay, text...))
	}
}

// addFar adds exp of the number text, a far logprob in the tenth k
// (scanFar).
func (m *massSum) addFar(k int, text []byte) {
	if m.exact {
		lp, _ := parseLogprob(text)
		m.total.add(math.Exp(lp))
		return
	}
	m.x += farMid[k]
	m.e += farHalf[k]
	m.n++
	m.keep(append(m.replay, text...))
}

// addNear adds exp(v), v being the approximation of the number text.
func (m *massSum) addNear(v float64, text []byte) {
	if m.exact {
		lp, _ := parseLogprob(text)
		m.total.add(math.Exp(lp))
		return
	}
	x := math.Exp(v)
	m.x += x
	// exp(v(1+r)) = exp(v)·exp(v·r), |r| ≤ nearRelErr; plus an ulp of Exp.
	m.e += x * (1.01*nearRelErr*math.Abs(v) + 4.5e-16)
	m.n++
	m.keep(append(m.replay, text...))
}

// keep stores the grown replay text, or, past maxReplayBytes, replays it
// and goes exact.
func (m *massSum) keep(b []byte) {
	m.replay = append(b, ',')
	if len(m.replay) > replayLimit {
		m.sumReplay()
	}
}

// sumReplay sums the kept text exactly, in order, and goes exact.
func (m *massSum) sumReplay() {
	m.total = kahan{}
	for t := range bytes.SplitSeq(m.replay, []byte{','}) {
		if len(t) > 0 {
			lp, _ := parseLogprob(t)
			m.total.add(math.Exp(lp))
		}
	}
	m.exact, m.replay = true, m.replay[:0]
}

// ok reports whether the exact total is within 1e-2 of 1.
func (m *massSum) ok() bool {
	if !m.exact {
		// Recursive summation of n non-negative terms errs by at most
		// (n−1)·2^-53 of their sum; the compensated sum by less. The
		// tiny absolute term covers results near underflow.
		n := float64(m.n)
		slack := m.e + (n+10)*2.3e-16*(m.x+m.e) + n*1e-300
		lo, hi := m.x-slack, m.x+slack
		if !math.IsInf(hi, 0) && !math.IsNaN(hi) {
			// On [0.5, 2] t−1 is exact, so these hold for every t in
			// [lo, hi] exactly when they hold at the ends.
			switch {
			case lo-1 >= -1e-2 && hi-1 <= 1e-2:
				return true
			case hi-1 < -1e-2 || lo-1 > 1e-2:
				return false
			}
		}
		m.sumReplay()
	}
	return math.Abs(m.total.sum()-1) <= 1e-2
}

// kahan is a Neumaier compensated sum, standing in for Python's math.fsum.
type kahan struct{ s, c float64 }

func (k *kahan) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

func (k *kahan) sum() float64 { return k.s + k.c }

// stream is a validating JSON scanner over a reader. Methods that read a
// value expect s.buf[s.i] to be its first byte (after [stream.ws]) and
// return false on a syntax error, the end of input or a read error
// (recorded in rerr).
//
// It is kept apart from internal/pyjson's scanner on purpose: that one
// needs the whole body and allocates per key, and only validating a
// real-vocabulary answer with it costs about 7× New's whole decode in CPU
// time (BenchmarkDecodeCompletionRealVocab/PyjsonScanFloor).
type stream struct {
	r      io.Reader
	buf    []byte
	i, n   int
	eof    bool
	rerr   error
	depth  int
	tok    []byte // the last key read (owned)
	num    []byte // the last number read: in buf, or in numBuf
	numBuf []byte
}

func (s *stream) reset(r io.Reader) {
	s.r, s.i, s.n, s.eof, s.rerr, s.depth, s.tok, s.num = r, 0, 0, false, nil, 0, s.tok[:0], nil
}

// fill reads more input; false at the end of input or on a read error.
func (s *stream) fill() bool {
	for !s.eof && s.rerr == nil {
		n, err := s.r.Read(s.buf)
		s.i, s.n = 0, n
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			s.rerr = err
		}
		if n > 0 {
			return true
		}
	}
	return false
}

// refill moves the unread bytes to the front of buf and reads after them
// until fastWindow bytes are unread, the input ends or a read fails (both
// recorded, as fill records them; the bytes read are kept).
func (s *stream) refill() {
	if s.eof || s.rerr != nil {
		return
	}
	s.n = copy(s.buf, s.buf[s.i:s.n])
	s.i = 0
	for s.n < fastWindow && !s.eof && s.rerr == nil {
		n, err := s.r.Read(s.buf[s.n:])
		s.n += n
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			s.rerr = err
		}
	}
}

// more reports whether a non-space byte follows.
func (s *stream) more() bool { return s.ws() }

// drain reads the rest of the input, to tell a read error from a syntax
// error.
func (s *stream) drain() {
	for s.fill() {
		s.i = s.n
	}
}

// ws skips white space and reports whether a byte follows.
func (s *stream) ws() bool {
	if s.i < s.n && s.buf[s.i] > ' ' {
		return true
	}
	return s.wsSlow()
}

func (s *stream) wsSlow() bool {
	for {
		for s.i < s.n {
			switch s.buf[s.i] {
			case ' ', '\t', '\n', '\r':
				s.i++
			default:
				return true
			}
		}
		if !s.fill() {
			return false
		}
	}
}

// next returns the next byte and advances; false at the end of input.
func (s *stream) next() (byte, bool) {
	if s.i >= s.n && !s.fill() {
		return 0, false
	}
	c := s.buf[s.i]
	s.i++
	return c, true
}

// enter steps into the container whose opening byte is at s.buf[s.i]:
// past it and any white space, one level deeper (refused past maxDepth).
// empty reports a container closed at once by closer, which it consumes,
// leaving the depth as it was.
func (s *stream) enter(closer byte) (empty, ok bool) {
	if s.depth >= maxDepth {
		return false, false
	}
	s.depth++
	s.i++
	if !s.ws() {
		return false, false
	}
	if s.buf[s.i] == closer {
		s.i++
		s.depth--
		return true, true
	}
	return false, true
}

// object reads an object, calling member with each key (unescaped) once
// s.buf[s.i] is the first byte of the value; member must consume it.
func (s *stream) object(member func(key []byte) bool) bool {
	if empty, ok := s.enter('}'); !ok || empty {
		return ok
	}
	for {
		if !s.ws() || s.buf[s.i] != '"' || !s.str(true) {
			return false
		}
		key := s.tok
		if !s.ws() || s.buf[s.i] != ':' {
			return false
		}
		s.i++
		if !s.ws() || !member(key) || !s.ws() {
			return false
		}
		switch s.buf[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// array reads an array, calling elem once s.buf[s.i] is the first byte of
// each element; elem must consume it.
func (s *stream) array(elem func() bool) bool {
	if empty, ok := s.enter(']'); !ok || empty {
		return ok
	}
	for {
		if !s.ws() || !elem() || !s.ws() {
			return false
		}
		switch s.buf[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// skip checks and consumes one value.
func (s *stream) skip() bool {
	if !s.ws() {
		return false
	}
	switch c := s.buf[s.i]; c {
	case '{':
		return s.object(func([]byte) bool { return s.skip() })
	case '[':
		return s.array(s.skip)
	case '"':
		return s.str(false)
	case 't':
		return s.word("true")
	case 'f':
		return s.word("false")
	case 'n':
		return s.word("null")
	}
	return s.isNumber() && s.number()
}

// count reads a token count: a JSON integer that is not negative, else
// nil ([backendhttp.Count]).
func (s *stream) count(dst **int) bool {
	if !s.isNumber() {
		*dst = nil
		return s.skip()
	}
	if !s.number() {
		return false
	}
	*dst = backendhttp.Count(s.num)
	return true
}

// word consumes the literal w.
func (s *stream) word(w string) bool {
	for k := 0; k < len(w); k++ {
		c, ok := s.next()
		if !ok || c != w[k] {
			return false
		}
	}
	return true
}

// isNumber reports whether the value at s.i starts a number or a Python
// literal.
func (s *stream) isNumber() bool {
	c := s.buf[s.i]
	return c == '-' || ('0' <= c && c <= '9') || c == 'N' || c == 'I'
}

// number consumes a JSON number, or NaN, Infinity or -Infinity, into num.
func (s *stream) number() bool {
	// Fast path: the token ends inside the buffer. A run of number bytes
	// that is not a number is a syntax error either way: no byte of the
	// set may follow a number.
	j := s.i
	for j < s.n && isNumByte(s.buf[j]) {
		j++
	}
	if j < s.n && j > s.i && s.buf[j] != 'I' {
		if !validNumber(s.buf[s.i:j]) {
			return false
		}
		s.num = s.buf[s.i:j]
		s.i = j
		return true
	}
	s.numBuf = s.numBuf[:0]
	c, _ := s.next()
	s.numBuf = append(s.numBuf, c)
	switch c {
	case 'N':
		return s.word("aN") && s.lit("NaN")
	case 'I':
		return s.word("nfinity") && s.lit("Infinity")
	case '-':
		if !s.ws0() {
			return false
		}
		if s.buf[s.i] == 'I' {
			s.i++
			return s.word("nfinity") && s.lit("-Infinity")
		}
		c, _ = s.next()
		s.numBuf = append(s.numBuf, c)
	}
	switch {
	case c == '0':
	case '1' <= c && c <= '9':
		s.digits()
	default:
		return false
	}
	if s.peek() == '.' {
		s.i++
		s.numBuf = append(s.numBuf, '.')
		if s.digits() == 0 {
			return false
		}
	}
	if p := s.peek(); p == 'e' || p == 'E' {
		s.i++
		s.numBuf = append(s.numBuf, p)
		if p := s.peek(); p == '+' || p == '-' {
			s.i++
			s.numBuf = append(s.numBuf, p)
		}
		if s.digits() == 0 {
			return false
		}
	}
	s.num = s.numBuf
	return true
}

// isNumByte reports whether c may occur in a JSON number.
func isNumByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '.' || c == 'e' || c == 'E' || c == '+'
}

// validNumber reports whether b is exactly one JSON number.
func validNumber(b []byte) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// ws0 reports whether a byte follows, without skipping anything.
func (s *stream) ws0() bool { return s.i < s.n || s.fill() }

// peek returns the next byte without consuming it; 0 at the end of input.
func (s *stream) peek() byte {
	if !s.ws0() {
		return 0
	}
	return s.buf[s.i]
}

// lit sets num to a Python literal.
func (s *stream) lit(w string) bool {
	s.num = append(s.numBuf[:0], w...)
	s.numBuf = s.num
	return true
}

// digits consumes decimal digits into numBuf and returns how many.
func (s *stream) digits() int {
	n := 0
	for s.ws0() {
		start := s.i
		for s.i < s.n && '0' <= s.buf[s.i] && s.buf[s.i] <= '9' {
			s.i++
		}
		s.numBuf = append(s.numBuf, s.buf[start:s.i]...)
		n += s.i - start
		if s.i < s.n {
			break
		}
	}
	return n
}

// str consumes a string (s.buf[s.i] is its opening quote) as
// encoding/json's scanner accepts it. With keep, tok is set to its
// unescaped text.
func (s *stream) str(keep bool) bool {
	s.i++ // '"'
	s.tok = s.tok[:0]
	escaped := false
	for {
		if !s.ws0() {
			return false
		}
		start := s.i
		for s.i < s.n {
			c := s.buf[s.i]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			s.i++
		}
		if keep {
			if len(s.tok)+s.i-start > maxKeyBytes {
				// Too long to be a key the decoder reads: keep a
				// marker no key equals (a raw NUL cannot be in one).
				keep, s.tok = false, append(s.tok[:0], 0)
			} else {
				s.tok = append(s.tok, s.buf[start:s.i]...)
			}
		}
		if s.i >= s.n {
			continue
		}
		c := s.buf[s.i]
		s.i++
		switch {
		case c == '"':
			if keep && escaped {
				return s.unescapeTok()
			}
			return true
		case c < 0x20:
			return false
		}
		// backslash
		e, ok := s.next()
		if !ok {
			return false
		}
		escaped = true
		if keep {
			s.tok = append(s.tok, '\\', e)
		}
		switch e {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			for range 4 {
				h, ok := s.next()
				if !ok || !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
					return false
				}
				if keep {
					s.tok = append(s.tok, h)
				}
			}
		default:
			return false
		}
	}
}

// unescapeTok replaces the escaped string text in tok by its value, as
// encoding/json decodes it (invalid surrogates become U+FFFD).
func (s *stream) unescapeTok() bool {
	quoted := make([]byte, 0, len(s.tok)+2)
	quoted = append(append(append(quoted, '"'), s.tok...), '"')
	var v string
	if json.Unmarshal(quoted, &v) != nil {
		return false
	}
	s.tok = append(s.tok[:0], v...)
	return true
}
