package judgmenttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A request body is checked field by field against the exact body
// typevet's clients send, so a client that drifts from it gets a 400 naming the field instead
// of a silently different score. The messages start with "judgmenttest:" so
// no one mistakes them for a real server's words.

// object decodes body as one JSON object with numbers kept as json.Number.
func object(body []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil || m == nil {
		return nil, fmt.Errorf("body is not a JSON object")
	}
	if d.More() {
		return nil, fmt.Errorf("body holds more than one JSON value")
	}
	return m, nil
}

// rule is a check of one field; want describes the accepted values.
type rule struct {
	key  string
	want string
	ok   func(any) bool
}

// checkFields applies rules to m: every rule's key must be present and
// accepted; optional keys may be present; any other key is refused.
func checkFields(path string, m map[string]any, rules []rule, optional ...string) error {
	for _, r := range rules {
		v, ok := m[r.key]
		if !ok {
			return fmt.Errorf("judgmenttest: %s: missing field %q", path, r.key)
		}
		if !r.ok(v) {
			return fmt.Errorf("judgmenttest: %s: field %q must be %s", path, r.key, r.want)
		}
	}
	var extra []string
	for k := range m {
		if !slices.ContainsFunc(rules, func(r rule) bool { return r.key == k }) && !slices.Contains(optional, k) {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		return fmt.Errorf("judgmenttest: %s: unexpected field %q", path, extra[0])
	}
	return nil
}

func number(want float64) func(any) bool {
	return func(v any) bool {
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && f == want
	}
}

func boolean(want bool) func(any) bool {
	return func(v any) bool { b, ok := v.(bool); return ok && b == want }
}

func isString(v any) bool { _, ok := v.(string); return ok }

// integer returns v as an int when it is a JSON integer literal.
func integer(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok || strings.ContainsAny(string(n), ".eE") {
		return 0, false
	}
	i, err := strconv.Atoi(string(n))
	return i, err == nil
}

func positiveInt(v any) bool { i, ok := integer(v); return ok && i > 0 }

// appendFloat appends f as a JSON number; a non-finite f (only from a
// script) is sent as UnknownLogprob.
func appendFloat(b []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		f = UnknownLogprob
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' { // needs escaping
			var q bytes.Buffer
			e := json.NewEncoder(&q)
			e.SetEscapeHTML(false)
			e.Encode(s)
			return append(b, bytes.TrimSuffix(q.Bytes(), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendBytes appends the UTF-8 bytes of s as a JSON array of numbers.
func appendBytes(b []byte, s string) []byte {
	b = append(b, '[')
	for i := 0; i < len(s); i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(s[i]), 10)
	}
	return append(b, ']')
}

// appendTopLogprobs appends the entries of a top_logprobs list, each
// written by write inside braces and separated by commas, applying tamper
// t to the entry whose id is target (when hasTarget): a missing or
// duplicated candidate drops it or writes it twice, a logprob tamper
// writes [tamperedLogprob]'s literal in place of its value.
func appendTopLogprobs(b []byte, list []entry, target int, hasTarget bool, t Tamper, write func([]byte, entry, string) []byte) []byte {
	n := 0
	for _, e := range list {
		lit, copies := "", 1
		if hasTarget && e.id == target {
			switch t {
			case TamperMissingCandidate:
				copies = 0
			case TamperDuplicateCandidate:
				copies = 2
			default:
				lit = tamperedLogprob(t)
			}
		}
		for range copies {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			b = write(b, e, lit)
			b = append(b, '}')
			n++
		}
	}
	return b
}

// tamperedLogprob is the literal a tamper sends for the first candidate's
// logprob; "" when the tamper does not change the value.
func tamperedLogprob(t Tamper) string {
	switch t {
	case TamperPositiveLogprob:
		return "0.5"
	case TamperNonFiniteLogprob:
		return "-1e400"
	case TamperNaNLogprob:
		return "NaN"
	}
	return ""
}
