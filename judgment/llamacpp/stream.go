package llamacpp

import (
	"encoding/json"
	"io"

	"github.com/typevet/typevet-go/internal/backendhttp"
)

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
		if closed, ok := s.sep(); !ok || closed {
			return ok
		}
	}
}

// sep consumes what follows an array element (ws has been skipped): a
// comma (closed false) or the closing bracket (closed true, one level
// up); ok is false for anything else.
func (s *stream) sep() (closed, ok bool) {
	switch s.buf[s.i] {
	case ',':
		s.i++
		return false, true
	case ']':
		s.i++
		s.depth--
		return true, true
	}
	return false, false
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
