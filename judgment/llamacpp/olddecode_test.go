package llamacpp

// This file keeps the /completion decoder as it was before the fast
// full-vocabulary path (issue 18): the oracle FuzzDecodeCompletionFast and
// the decode benchmarks compare the current decoder against. Only the
// types and helpers the two share (completion, kahan, atoi, parseLogprob,
// validNumber) live in stream.go.

import (
	"encoding/json"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/judgment"
)

// oldDecoder is the state of one decode; pooled, since its read buffer and
// id bitset are the only sizeable allocations.
type oldDecoder struct {
	s oldStream

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
	count   int
	total   kahan
	found   []bool
	lps     []float64
	seen    []uint64 // ids below len(seen)*64
	seenMap map[int]struct{}

	evaluated, predicted *int
}

var oldDecoders = sync.Pool{New: func() any { return &oldDecoder{s: oldStream{buf: make([]byte, 64<<10)}} }}

// oldDecodeCompletion reads a /completion body from r for the
// candidates of req. nBits sizes the id bitset (the n_probs sent); larger
// ids go to a map. Failures, in order of precedence: a read error
// (*readError), a body that is not JSON, a value of the wrong type on the
// path or in an entry, a missing top_logprobs, an entry lacking id or
// logprob ([judgment.GenerationError] each), a repeated id
// ([judgment.ScoringValidationError]).
func oldDecodeCompletion(r io.Reader, req judgment.ScoringRequest, nBits int) (completion, error) {
	d := oldDecoders.Get().(*oldDecoder)
	defer func() {
		d.s.r, d.want = nil, nil
		oldDecoders.Put(d)
	}()
	d.s.reset(r)
	d.want = make(map[int]int, len(req.Candidates))
	d.lo, d.hi = math.MaxInt, -1
	for i, c := range req.Candidates {
		d.want[c.TokenID] = i
		d.lo, d.hi = min(d.lo, c.TokenID), max(d.hi, c.TokenID)
	}
	words := (max(nBits, 0) + 63) / 64
	if cap(d.seen) < words {
		d.seen = make([]uint64, words)
	}
	d.seen = d.seen[:words]
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
	case d.dup:
		return completion{}, &judgment.ScoringValidationError{Msg: "llama.cpp top_logprobs lists token id " + strconv.Itoa(d.dupID) + " more than once"}
	}
	out := completion{entries: d.count, massOK: math.Abs(d.total.sum()-1) <= 1e-2,
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
func (d *oldDecoder) resetList(sh shape) {
	d.shape, d.badItem, d.lacks, d.dup, d.dupID, d.count = sh, false, false, false, 0, 0
	d.total = kahan{}
	clear(d.found)
	clear(d.seen)
	d.seenMap = nil
}

// root reads the top-level value.
func (d *oldDecoder) root() bool {
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

func (d *oldDecoder) rootMember(key []byte) bool {
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

func (d *oldDecoder) positionMember(key []byte) bool {
	s := &d.s
	if string(key) != "top_logprobs" {
		return s.skip()
	}
	switch s.buf[s.i] {
	case '[':
		d.resetList(shapeList)
		return s.array(d.entry)
	case 'n':
		d.resetList(shapeMissing)
		return s.skip()
	}
	d.resetList(shapeMalformed)
	return s.skip()
}

// entry reads one top_logprobs element: {id, logprob, ...} or null.
func (d *oldDecoder) entry() bool {
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

// add records one well-formed entry.
func (d *oldDecoder) add(id int, lp float64) {
	d.count++
	d.total.add(math.Exp(lp))
	if id >= 0 && id < len(d.seen)*64 {
		w, bit := id/64, uint64(1)<<(id%64)
		if d.seen[w]&bit != 0 {
			d.repeated(id)
		}
		d.seen[w] |= bit
	} else {
		if d.seenMap == nil {
			d.seenMap = make(map[int]struct{})
		}
		if _, ok := d.seenMap[id]; ok {
			d.repeated(id)
		}
		d.seenMap[id] = struct{}{}
	}
	if id >= d.lo && id <= d.hi {
		if i, ok := d.want[id]; ok {
			d.found[i], d.lps[i] = true, lp
		}
	}
}

func (d *oldDecoder) repeated(id int) {
	if !d.dup {
		d.dup, d.dupID = true, id
	}
}

// oldStream is a validating JSON scanner over a reader. Methods that read a
// value expect s.buf[s.i] to be its first byte (after [oldStream.ws]) and
// return false on a syntax error, the end of input or a read error
// (recorded in rerr).
type oldStream struct {
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

func (s *oldStream) reset(r io.Reader) {
	s.r, s.i, s.n, s.eof, s.rerr, s.depth, s.tok, s.num = r, 0, 0, false, nil, 0, s.tok[:0], nil
}

// fill reads more input; false at the end of input or on a read error.
func (s *oldStream) fill() bool {
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

// more reports whether a non-space byte follows.
func (s *oldStream) more() bool { return s.ws() }

// drain reads the rest of the input, to tell a read error from a syntax
// error.
func (s *oldStream) drain() {
	for s.fill() {
		s.i = s.n
	}
}

// ws skips white space and reports whether a byte follows.
func (s *oldStream) ws() bool {
	if s.i < s.n && s.buf[s.i] > ' ' {
		return true
	}
	return s.wsSlow()
}

func (s *oldStream) wsSlow() bool {
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
func (s *oldStream) next() (byte, bool) {
	if s.i >= s.n && !s.fill() {
		return 0, false
	}
	c := s.buf[s.i]
	s.i++
	return c, true
}

// object reads an object, calling member with each key (unescaped) once
// s.buf[s.i] is the first byte of the value; member must consume it.
func (s *oldStream) object(member func(key []byte) bool) bool {
	if s.depth >= maxDepth {
		return false
	}
	s.depth++
	s.i++ // '{'
	if !s.ws() {
		return false
	}
	if s.buf[s.i] == '}' {
		s.i++
		s.depth--
		return true
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
func (s *oldStream) array(elem func() bool) bool {
	if s.depth >= maxDepth {
		return false
	}
	s.depth++
	s.i++ // '['
	if !s.ws() {
		return false
	}
	if s.buf[s.i] == ']' {
		s.i++
		s.depth--
		return true
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
func (s *oldStream) skip() bool {
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
func (s *oldStream) count(dst **int) bool {
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
func (s *oldStream) word(w string) bool {
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
func (s *oldStream) isNumber() bool {
	c := s.buf[s.i]
	return c == '-' || ('0' <= c && c <= '9') || c == 'N' || c == 'I'
}

// number consumes a JSON number, or NaN, Infinity or -Infinity, into num.
func (s *oldStream) number() bool {
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

// ws0 reports whether a byte follows, without skipping anything.
func (s *oldStream) ws0() bool { return s.i < s.n || s.fill() }

// peek returns the next byte without consuming it; 0 at the end of input.
func (s *oldStream) peek() byte {
	if !s.ws0() {
		return 0
	}
	return s.buf[s.i]
}

// lit sets num to a Python literal.
func (s *oldStream) lit(w string) bool {
	s.num = append(s.numBuf[:0], w...)
	s.numBuf = s.num
	return true
}

// digits consumes decimal digits into numBuf and returns how many.
func (s *oldStream) digits() int {
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
func (s *oldStream) str(keep bool) bool {
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
			s.tok = append(s.tok, s.buf[start:s.i]...)
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
func (s *oldStream) unescapeTok() bool {
	quoted := make([]byte, 0, len(s.tok)+2)
	quoted = append(append(append(quoted, '"'), s.tok...), '"')
	var v string
	if json.Unmarshal(quoted, &v) != nil {
		return false
	}
	s.tok = append(s.tok[:0], v...)
	return true
}
