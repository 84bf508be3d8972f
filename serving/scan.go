package serving

import (
	"math"
	"strconv"
	"strings"
)

// scanSamples reads a /metrics page in the plain layout prometheus_client
// writes, without expfmt: one sample per line, name{label="value",…}
// value, "# HELP" and "# TYPE" lines before a family's samples, families
// contiguous. It returns the samples in text order, as expfmtSamples would
// give them for each key, and true; or false, having decided nothing, for
// any text it is not sure expfmt reads alike (expfmt then reads it, and
// its errors stay the errors). It gives up on: an empty text, "\r", a byte
// outside printable ASCII, an empty line, white space other than the one
// space before the value, a timestamp, more than 16 labels, a value that is not a plain decimal
// number (or +Inf, -Inf, NaN), a label value with a quote or a backslash,
// a repeated label name or one starting "__", a HELP with a backslash or
// without text, a second HELP or TYPE for a name, a TYPE after samples it
// would cover, a TYPE other than counter, gauge, untyped or histogram,
// TYPE names that overlap through a histogram suffix, a negative counter; and, in a typed histogram,
// a sample named as the family, a bucket without le or with an le that is
// not a plain number, a bucket or count that is not a whole number from 0
// to 2^53, labels besides le out of name order, an le on a count or sum,
// and a label set that reappears after another or repeats a count or sum
// (a repeated bucket is summed, by expfmt too).
func scanSamples(text string) ([]sample, bool) {
	if text == "" || strings.IndexByte(text, '\r') >= 0 {
		return nil, false
	}
	sc := scanner{types: map[string]string{}, help: map[string]bool{}, seen: map[string]bool{},
		sigs: map[sigKey]bool{}, parts: map[sigKey]bool{}, edges: map[string]edge{}}
	out := make([]sample, 0, strings.Count(text, "\n")+1)
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if line == "" {
			return nil, false
		}
		for i := 0; i < len(line); i++ {
			if line[i] < 0x20 || line[i] > 0x7e {
				return nil, false
			}
		}
		if line[0] == '#' {
			if !sc.comment(line) {
				return nil, false
			}
			continue
		}
		s, ok := sc.sample(line)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// scanner is the state of one scanSamples.
type scanner struct {
	types map[string]string // TYPE by name
	help  map[string]bool   // names with a HELP line
	seen  map[string]bool   // sample names read
	cur   string            // the current family
	sigs  map[sigKey]bool   // typed-histogram label sets left behind
	sig   labelSet          // the current typed-histogram label set
	parts map[sigKey]bool   // counts and sums read, by label set
	edges map[string]edge   // le spellings, by le as written
}

// labelSet is a typed histogram's label set (le excluded) as written: the
// text a+b of a family's sample line.
type labelSet struct{ fam, a, b string }

func (l labelSet) same(m labelSet) bool {
	return l.fam == m.fam && len(l.a)+len(l.b) == len(m.a)+len(m.b) &&
		catEqual(l.a, l.b, m.a, m.b)
}

// catEqual reports whether a1+b1 == a2+b2 (of equal lengths).
func catEqual(a1, b1, a2, b2 string) bool {
	if len(a1) > len(a2) {
		a1, b1, a2, b2 = a2, b2, a1, b1
	}
	// a1 is a prefix of a2; the rest of a2 starts b1.
	return a2[:len(a1)] == a1 && b1[:len(a2)-len(a1)] == a2[len(a1):] && b1[len(a2)-len(a1):] == b2
}

// sigKey is a hash of a labelSet (and a part), for sets of them: equal
// sets have equal keys, so a set never misses one; a collision only makes
// scanSamples give up.
type sigKey struct {
	fam, part string
	h         uint64
}

func (l labelSet) key(part string) sigKey {
	h := uint64(14695981039346656037)
	for _, s := range [2]string{l.a, l.b} {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * 1099511628211
		}
	}
	return sigKey{fam: l.fam, part: part, h: h}
}

// edge is a typed histogram's le: its value and prometheus_client's
// spelling (leString), or not a plain number.
type edge struct {
	spelled string
	ok      bool
}

// histogramSuffixes are the sample names of a typed histogram family.
var histogramSuffixes = [...]string{"_bucket", "_count", "_sum"}

// family makes name the current family. A family may come back after
// another (prometheus_client writes a histogram's _created samples, their
// own family, between its label sets; expfmt finds the family again by
// name), but a typed histogram's label set may not.
func (sc *scanner) family(name string) bool {
	if name != sc.cur {
		if sc.sig.fam != "" {
			sc.sigs[sc.sig.key("")] = true
		}
		sc.cur, sc.sig = name, labelSet{}
	}
	return true
}

// comment reads a # line.
func (sc *scanner) comment(line string) bool {
	rest := strings.TrimLeft(line[1:], " \t")
	word := rest
	if i := strings.IndexAny(rest, " \t"); i >= 0 {
		word = rest[:i]
	}
	if word != "HELP" && word != "TYPE" {
		return true // a comment expfmt skips
	}
	rest, ok := strings.CutPrefix(line, "# "+word+" ")
	if !ok {
		return false
	}
	name, arg, ok := strings.Cut(rest, " ")
	if !ok || !metricName(name) || arg == "" {
		return false
	}
	if word == "HELP" {
		if sc.help[name] || strings.IndexByte(arg, '\\') >= 0 {
			return false
		}
		sc.help[name] = true
		return sc.family(name)
	}
	switch arg {
	case "counter", "gauge", "untyped", "histogram":
	default:
		return false
	}
	if sc.types[name] != "" || sc.seen[name] {
		return false
	}
	for _, suf := range [...]string{"_bucket", "_count", "_sum", "_total", "_created"} {
		if sc.seen[name+suf] || arg == "histogram" && sc.types[name+suf] != "" {
			return false
		}
	}
	for _, suf := range histogramSuffixes {
		if base, ok := strings.CutSuffix(name, suf); ok && sc.types[base] == "histogram" {
			return false
		}
	}
	sc.types[name] = arg
	return sc.family(name)
}

// sample reads a sample line.
func (sc *scanner) sample(line string) (sample, bool) {
	n := 0
	for n < len(line) && line[n] != '{' && line[n] != ' ' {
		n++
	}
	name := line[:n]
	if !metricName(name) || n == len(line) {
		return sample{}, false
	}
	var s sample
	rest := line[n:]
	var labels string // the label text, braces excluded
	var set labelSet  // labels without the le pair and its comma
	if rest[0] == '{' {
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return sample{}, false
		}
		labels, rest = rest[1:end], rest[end+1:]
	}
	value, ok := strings.CutPrefix(rest, " ")
	if !ok || !plainNumber(value) {
		return sample{}, false
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil {
		return sample{}, false
	}
	s.value = v

	// The family and the part of it the sample is.
	fam, typ, part := name, sc.types[name], ""
	if typ == "" {
		for _, suf := range histogramSuffixes {
			if base, ok := strings.CutSuffix(name, suf); ok && sc.types[base] == "histogram" {
				fam, typ, part = base, "histogram", suf
				break
			}
		}
	}
	if typ == "histogram" && part == "" {
		return sample{}, false
	}
	if !sc.seen[name] {
		sc.seen[name] = true
	}
	if !sc.family(fam) {
		return sample{}, false
	}

	// Labels: name="value" pairs, comma-separated.
	var le string
	var hasLE bool
	set = labelSet{fam: fam, a: labels}
	raw := labels
	prev := ""
	var names [16]string
	count := 0
	for labels != "" {
		start := len(raw) - len(labels)
		eq := strings.IndexByte(labels, '=')
		if eq < 0 || eq+1 >= len(labels) || labels[eq+1] != '"' {
			return sample{}, false
		}
		lname := labels[:eq]
		q := strings.IndexByte(labels[eq+2:], '"')
		if q < 0 || !labelName(lname) {
			return sample{}, false
		}
		lvalue := labels[eq+2 : eq+2+q]
		if strings.IndexByte(lvalue, '\\') >= 0 {
			return sample{}, false
		}
		labels = labels[eq+3+q:]
		if labels != "" {
			if labels[0] != ',' || len(labels) == 1 {
				return sample{}, false
			}
			labels = labels[1:]
		}
		if count == len(names) {
			return sample{}, false
		}
		for _, seen := range names[:count] {
			if seen == lname {
				return sample{}, false
			}
		}
		names[count] = lname
		count++
		switch lname {
		case "le":
			le, hasLE = lvalue, true
			if typ == "histogram" {
				// Drop `le="…",` (or `,le="…"` at the end) from the set.
				end := len(raw) - len(labels)
				if labels == "" && start > 0 {
					start--
				}
				set.a, set.b = raw[:start], raw[end:]
				continue
			}
		case "engine":
			s.engine, s.hasEngine = lvalue, true
		}
		if typ == "histogram" {
			if lname <= prev {
				return sample{}, false
			}
			prev = lname
		}
	}

	switch typ {
	case "histogram":
		if !set.same(sc.sig) {
			if sc.sigs[set.key("")] {
				return sample{}, false
			}
			if sc.sig.fam != "" {
				sc.sigs[sc.sig.key("")] = true
			}
			sc.sig = set
		}
		if part == "_bucket" {
			if !hasLE {
				return sample{}, false
			}
			e, ok := sc.edges[le]
			if !ok {
				if e.ok = plainNumber(le); e.ok {
					f, err := strconv.ParseFloat(le, 64)
					e.spelled, e.ok = leString(f), err == nil
				}
				sc.edges[le] = e
			}
			if !e.ok {
				return sample{}, false
			}
			s.key = Key{Name: name, LE: e.spelled, HasLE: true}
		} else {
			if hasLE || sc.parts[set.key(part)] {
				return sample{}, false
			}
			sc.parts[set.key(part)] = true
			s.key = Key{Name: name}
		}
		if part != "_sum" && !(v >= 0 && v <= 1<<53 && v == math.Trunc(v)) {
			return sample{}, false
		}
	default:
		if typ == "counter" && !(v >= 0) {
			return sample{}, false
		}
		s.key = Key{Name: name, LE: le, HasLE: hasLE}
	}
	return s, true
}

// metricName reports whether s is a metric name of the classic charset.
func metricName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// labelName reports whether s is a label name of the classic charset not
// reserved (starting "__").
func labelName(s string) bool {
	return metricName(s) && strings.IndexByte(s, ':') < 0 && !strings.HasPrefix(s, "__")
}

// plainNumber reports whether s is -?digits[.digits][e[+-]digits], +Inf,
// -Inf or NaN.
func plainNumber(s string) bool {
	switch s {
	case "+Inf", "-Inf", "NaN":
		return true
	}
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i - j
	}
	if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
