package vllm

import (
	"sync"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/judgment"
)

// A scoring answer is a few hundred bytes to a few KB of JSON of which
// the decoder needs five things: the model, whether
// choices[0].logprobs.content[0].top_logprobs is a list, its entries'
// tokens and logprobs, and the two usage counts. encoding/json with
// reflection into ChatResponse cost about as much client CPU as the rest
// of a scoring call; scanChat reads the same answer in one pass.
//
// scanChat is a strict subset of encoding/json's reading of ChatResponse:
// it validates every byte of the body (the values it skips too) and gives
// up, returning false, on anything where encoding/json's own rules would
// need care: an escaped or non-ASCII key, a key that matches a field
// name only after case folding, a repeated field, a second choice or
// content position, a field of an unexpected type, null where an object,
// list or string is read, an escaped or non-ASCII token or model, nesting
// deeper than scanMaxDepth, more than scanMaxEntries entries, or any
// syntax error (Python's NaN and Infinity literals included). decodeChat
// then decodes the body with encoding/json as before, so every answer is
// accepted or refused exactly as before (FuzzDecodeChatOracle checks it
// against the previous decoder, kept in the tests).

// Bounds of the scanner; past them encoding/json reads the body.
const (
	scanMaxDepth   = 64
	scanMaxEntries = 4 * MaxLogprobTokenIDs
)

// topEntry is one top_logprobs entry as the decoder needs it.
type topEntry struct {
	token []byte // the token text, when hasToken
	// logprob is the logprob when num is nil; the scanner keeps the
	// number's text in num instead, read (logprobOf) only for an entry
	// that is a candidate: most entries of a canned answer are not, and
	// any JSON number reads as a [backendhttp.Number].
	logprob    float64
	num        []byte
	hasToken   bool
	hasLogprob bool // present and a number
}

// logprobOf returns the entry's logprob. The scan accepted num as a JSON
// number, which backendhttp.Number reads; should the two ever disagree,
// the answer is refused rather than read as 0.
func (e *topEntry) logprobOf() (float64, error) {
	if e.num == nil {
		return e.logprob, nil
	}
	var n backendhttp.Number
	if err := n.UnmarshalJSON(e.num); err != nil {
		return 0, &judgment.ScoringValidationError{Msg: "vLLM top_logprobs logprob is not a number"}
	}
	return float64(n), nil
}

// chatAnswer is what decodeChat reads of a chat-completion answer.
type chatAnswer struct {
	model string
	// hasTop: choices[0].logprobs.content[0].top_logprobs is a list.
	hasTop             bool
	entries            []topEntry
	prompt, completion []byte // the raw usage values, nil when absent
}

// chatScanner is the state of one scan; pooled (chatScanners) for its
// entries list.
type chatScanner struct {
	b     []byte
	i     int
	depth int
	a     chatAnswer
}

var chatScanners = sync.Pool{New: func() any { return &chatScanner{a: chatAnswer{entries: make([]topEntry, 0, 64)}} }}

// scan reads body into s.a as described above; false means "decode it
// with encoding/json".
func (s *chatScanner) scan(body []byte) bool {
	entries := s.a.entries[:0]
	*s = chatScanner{b: body, a: chatAnswer{entries: entries}}
	if !s.top() {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

// done returns s to chatScanners, keeping no reference to the body.
func (s *chatScanner) done() {
	clear(s.a.entries)
	if cap(s.a.entries) > scanMaxEntries {
		return
	}
	*s = chatScanner{a: chatAnswer{entries: s.a.entries[:0]}}
	chatScanners.Put(s)
}

// ws skips JSON white space.
func (s *chatScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, 0 at the end.
func (s *chatScanner) peek() byte {
	s.ws()
	if s.i == len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// null reads a null literal if one is next.
func (s *chatScanner) null() bool {
	return s.peek() == 'n' && s.literal("null")
}

// object reads an object, calling field for each key with the scanner at
// the value; field reads the value and reports whether to go on.
// Keys must be plain ASCII without escapes.
func (s *chatScanner) object(field func(key []byte) bool) bool {
	if s.peek() != '{' || s.depth == scanMaxDepth {
		return false
	}
	s.i++
	s.depth++
	defer func() { s.depth-- }()
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		key, ok := s.plainBytes()
		if !ok || s.peek() != ':' {
			return false
		}
		s.i++
		if !field(key) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// array reads a list, calling elem with the element index and the
// scanner at the element.
func (s *chatScanner) array(elem func(n int) bool) bool {
	if s.peek() != '[' || s.depth == scanMaxDepth {
		return false
	}
	s.i++
	s.depth++
	defer func() { s.depth-- }()
	if s.peek() == ']' {
		s.i++
		return true
	}
	for n := 0; ; n++ {
		if !elem(n) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// plainBytes reads a string of printable ASCII without escapes and
// returns its bytes (a slice of the body).
func (s *chatScanner) plainBytes() ([]byte, bool) {
	if s.peek() != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

// skip reads and validates any JSON value.
func (s *chatScanner) skip() bool {
	switch c := s.peek(); {
	case c == '{':
		return s.object(func([]byte) bool { return s.skip() })
	case c == '[':
		return s.array(func(int) bool { return s.skip() })
	case c == '"':
		return s.skipString()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		_, ok := s.number()
		return ok
	}
	return false
}

// literal reads lit.
func (s *chatScanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// skipString reads and validates a string (any escapes; bytes from 0x20
// up, as encoding/json accepts them).
func (s *chatScanner) skipString() bool {
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			j++
			if j == len(s.b) {
				return false
			}
			switch s.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(s.b) {
					return false
				}
				for _, h := range s.b[j+1 : j+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				j += 4
			default:
				return false
			}
		}
	}
	return false
}

// number reads a JSON number and returns its text.
func (s *chatScanner) number() ([]byte, bool) {
	b, start := s.b, s.i
	j := start
	digits := func() bool {
		k := j
		for j < len(b) && '0' <= b[j] && b[j] <= '9' {
			j++
		}
		return j > k
	}
	if j < len(b) && b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case !digits():
		return nil, false
	}
	if j < len(b) && b[j] == '.' {
		j++
		if !digits() {
			return nil, false
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if !digits() {
			return nil, false
		}
	}
	s.i = j
	return b[start:j], true
}

// span reads any value and returns its text.
func (s *chatScanner) span() ([]byte, bool) {
	s.ws()
	start := s.i
	if !s.skip() {
		return nil, false
	}
	return s.b[start:s.i], true
}

// fields reads an object of which the keys in names are read by the
// function of the same index and every other key is skipped. A key equal
// to a name only after case folding (encoding/json would match it), or a
// name seen twice (encoding/json would merge or replace), gives up.
func (s *chatScanner) fields(names []string, read []func() bool) bool {
	var seen uint32
	return s.object(func(key []byte) bool {
		for k, name := range names {
			if string(key) == name {
				if seen&(1<<k) != 0 {
					return false
				}
				seen |= 1 << k
				return read[k]()
			}
			if foldASCII(key, name) {
				return false
			}
		}
		return s.skip()
	})
}

// foldASCII reports whether the ASCII key equals name ignoring case.
func foldASCII(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i := range len(key) {
		a, b := key[i], name[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// top reads the answer: model, choices and usage.
func (s *chatScanner) top() bool {
	return s.fields([]string{"model", "choices", "usage"}, []func() bool{
		func() bool {
			m, ok := s.plainBytes()
			s.a.model = string(m)
			return ok
		},
		func() bool {
			return s.array(func(n int) bool { return n == 0 && s.choice() })
		},
		func() bool {
			return s.fields([]string{"prompt_tokens", "completion_tokens"}, []func() bool{
				func() (ok bool) { s.a.prompt, ok = s.span(); return ok },
				func() (ok bool) { s.a.completion, ok = s.span(); return ok },
			})
		},
	})
}

// choice reads choices[0]: its logprobs (null or an object).
func (s *chatScanner) choice() bool {
	return s.fields([]string{"logprobs"}, []func() bool{func() bool {
		return s.null() || s.fields([]string{"content"}, []func() bool{func() bool {
			return s.null() || s.array(func(n int) bool { return n == 0 && s.position() })
		}})
	}})
}

// position reads logprobs.content[0]: its top_logprobs (null or a list).
func (s *chatScanner) position() bool {
	return s.fields([]string{"top_logprobs"}, []func() bool{func() bool {
		if s.null() {
			return true
		}
		s.a.hasTop = true
		s.a.entries = s.a.entries[:0]
		return s.array(func(n int) bool { return n < scanMaxEntries && s.entry() })
	}})
}

// entry reads one top_logprobs entry: its token (a plain string) and
// logprob (a number, kept as text: [topEntry.logprobOf]). It is
// [chatScanner.fields] written out for the two names, without its
// closures: a canned slice answer has 37 entries per call.
func (s *chatScanner) entry() bool {
	var e topEntry
	ok := s.entryFields(&e)
	s.a.entries = append(s.a.entries, e)
	return ok
}

// entryFields reads the object of one entry into e.
func (s *chatScanner) entryFields(e *topEntry) bool {
	if s.peek() != '{' || s.depth == scanMaxDepth {
		return false
	}
	s.i++
	s.depth++
	defer func() { s.depth-- }()
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		key, ok := s.plainBytes()
		if !ok || s.peek() != ':' {
			return false
		}
		s.i++
		switch {
		case string(key) == "token":
			if e.hasToken {
				return false
			}
			e.token, ok = s.plainBytes()
			e.hasToken = true
		case string(key) == "logprob":
			if e.hasLogprob {
				return false
			}
			s.ws()
			e.num, ok = s.number()
			e.hasLogprob = ok
		case foldASCII(key, "token") || foldASCII(key, "logprob"):
			return false
		default:
			ok = s.skip()
		}
		if !ok {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}
