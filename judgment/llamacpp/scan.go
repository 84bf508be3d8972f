package llamacpp

import (
	"github.com/typevet/typevet-go/judgment/backend/backendhttp"
)

// A full-vocabulary /completion answer holds 262144 top_logprobs entries
// (about 20 MB), one per question. encoding/json needs about a second of
// CPU for it, more than the GPU needs to answer. scanCompletion is a
// validating single-pass scanner for the common, well-formed answer; it
// reads only the fields the client uses and skips the rest (token text,
// bytes, timings) while still checking their syntax. Whenever anything is
// unusual (a duplicate or escaped key, a key differing only in case, a
// non-number where a number belongs, Python's NaN literal, a missing
// field) it gives up and decodeCompletion falls back to encoding/json,
// which then classifies the body exactly. FuzzScanCompletion checks that
// both paths agree.

// maxScanDepth bounds nesting before the scanner gives up.
const maxScanDepth = 512

// scanner reads JSON from b at i.
type scanner struct {
	b     []byte
	i     int
	depth int
}

// scanCompletion decodes body on the fast path; ok is false when the slow
// path must decide.
func scanCompletion(body []byte) (completion, bool) {
	s := scanner{b: body}
	var out completion
	var evaluated, predicted []byte
	var seenProbs, seenEval, seenPred bool
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "completion_probabilities":
			if seenProbs {
				return false
			}
			seenProbs = true
			entries, ok := s.probabilities()
			out.entries = entries
			return ok
		case "tokens_evaluated":
			if seenEval {
				return false
			}
			seenEval = true
			evaluated = s.raw()
			return evaluated != nil
		case "tokens_predicted":
			if seenPred {
				return false
			}
			seenPred = true
			predicted = s.raw()
			return predicted != nil
		}
		return s.skip()
	})
	s.ws()
	if !ok || s.i != len(s.b) || !seenProbs || out.entries == nil {
		return completion{}, false
	}
	out.usage.InputTokens = backendhttp.Count(evaluated)
	out.usage.OutputTokens = backendhttp.Count(predicted)
	return out, true
}

// probabilities reads completion_probabilities and returns the
// top_logprobs entries of its first element.
func (s *scanner) probabilities() ([]TopLogprob, bool) {
	var entries []TopLogprob
	first := true
	ok := s.array(func() bool {
		if !first {
			return s.skip()
		}
		first = false
		seen := false
		return s.object(func(key []byte) bool {
			if string(key) != "top_logprobs" {
				return s.skip()
			}
			if seen {
				return false
			}
			seen = true
			entries = make([]TopLogprob, 0, 1024)
			return s.array(func() bool {
				e, ok := s.entry()
				entries = append(entries, e)
				return ok
			})
		})
	})
	return entries, ok && entries != nil
}

// entry reads one {id, logprob, ...} object.
func (s *scanner) entry() (TopLogprob, bool) {
	var e TopLogprob
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			if e.ID.Valid {
				return false
			}
			n, ok := atoi(s.number())
			e.ID.Value, e.ID.Valid = n, ok
			return ok
		case "logprob":
			if e.Logprob.Valid {
				return false
			}
			raw := s.number()
			if raw == nil {
				return false
			}
			return e.Logprob.UnmarshalJSON(raw) == nil
		}
		return s.skip()
	})
	return e, ok && e.ID.Valid && e.Logprob.Valid
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// object reads an object, calling member with each key with s positioned
// at the value; member must consume the value. Keys with escapes, and keys
// that encoding/json would match case-insensitively to a field the
// scanner reads, end the fast path.
func (s *scanner) object(member func(key []byte) bool) bool {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' || s.depth >= maxScanDepth {
		return false
	}
	s.depth++
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		s.depth--
		return true
	}
	for {
		s.ws()
		start := s.i
		if !s.str() {
			return false
		}
		key := s.b[start+1 : s.i-1]
		for _, c := range key {
			if c == '\\' {
				return false
			}
		}
		if isFoldedField(key) {
			return false
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
		if !member(key) {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
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

// readFields are the keys the scanner reads.
var readFields = []string{"completion_probabilities", "tokens_evaluated", "tokens_predicted", "top_logprobs", "id", "logprob"}

// isFoldedField reports whether key equals a read field case-insensitively
// but not exactly (encoding/json would use it; the fast path gives up).
func isFoldedField(key []byte) bool {
	for _, f := range readFields {
		if len(f) != len(key) || f == string(key) {
			continue
		}
		same := true
		for i := range key {
			a, b := key[i], f[i]
			if 'A' <= a && a <= 'Z' {
				a += 'a' - 'A'
			}
			if a != b {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	return false
}

// array reads an array, calling elem with s positioned at each element.
func (s *scanner) array(elem func() bool) bool {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '[' || s.depth >= maxScanDepth {
		return false
	}
	s.depth++
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		s.ws()
		if !elem() {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
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

// raw skips a value and returns its bytes.
func (s *scanner) raw() []byte {
	s.ws()
	start := s.i
	if !s.skip() {
		return nil
	}
	return s.b[start:s.i]
}

// skip checks and skips one value.
func (s *scanner) skip() bool {
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(func([]byte) bool { return s.skip() })
	case c == '[':
		return s.array(s.skip)
	case c == '"':
		return s.str()
	case c == '-' || ('0' <= c && c <= '9'):
		return s.number() != nil
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
				s.i += len(lit)
				return true
			}
		}
		return false
	}
}

// str checks and skips a string, as encoding/json's scanner accepts it.
func (s *scanner) str() bool {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return false
	}
	s.i++
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return false
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				s.i += 6
			default:
				return false
			}
		default:
			s.i++
		}
	}
	return false
}

// atoi parses a JSON integer as strconv.Atoi does (sign, digits, no
// overflow); a fraction or exponent is not an integer.
func atoi(b []byte) (int, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
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

// number checks and skips a JSON number and returns its bytes, nil when
// the value is not a number.
func (s *scanner) number() []byte {
	start := s.i
	b := s.b
	digits := func() int {
		n := 0
		for s.i < len(b) && '0' <= b[s.i] && b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.i < len(b) && b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(b) && b[s.i] == '0':
		s.i++
	case digits() == 0:
		return nil
	}
	if s.i < len(b) && b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return nil
		}
	}
	if s.i < len(b) && (b[s.i] == 'e' || b[s.i] == 'E') {
		s.i++
		if s.i < len(b) && (b[s.i] == '+' || b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return nil
		}
	}
	return b[start:s.i]
}
