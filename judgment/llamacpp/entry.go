package llamacpp

import (
	"encoding/binary"
)

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
		if closed, ok := s.sep(); !ok || closed {
			return ok
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
