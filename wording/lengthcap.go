package wording

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/typevet/typevet-go/internal/pyjson"

	"github.com/typevet/typevet-go/internal/pytext"
)

// LengthRatio is LENGTH_RATIO: an evolved part may be at most 1.5 times as
// long as its seed part.
const LengthRatio = 1.5

// Cap is the length cap of one evolvable part, in Unicode code points.
type Cap struct {
	Part string // the part name
	Max  int    // the most code points a proposal may have
}

// Caps is the length_cap block of an evolution artifact (since #363): each
// selected part to its cap, in selection order, e.g.
//
//	{"criteria_true": 126, "criteria_false": 105}
//
// Its Check method is typevet's proposal validator (length_cap).
type Caps []Cap

// PartCaps returns the cap of each selected part (part_caps): floor(ratio ×
// the code-point length of the seed text), in selection order. components
// nil means every seed part in seed order, as typevet's components=None
// does; an empty non-nil selection is refused with "select at least one
// wording part", as typevet refuses an empty one. ratio 0 means
// [LengthRatio]. The selection passes [CheckSelection]; a selected seed
// part that is empty after Python's str.strip is refused with "empty seed
// part '<name>'".
//
// Lengths count code points, not bytes: "Café" is 4. "Empty" uses Python's
// whitespace, which is Go's unicode.IsSpace plus U+001C–U+001F (a text of
// only U+001F is empty for typevet but not for strings.TrimSpace).
func PartCaps(seed Mapping, components []string, ratio float64) (Caps, error) {
	if ratio == 0 {
		ratio = LengthRatio
	}
	if components == nil {
		components = seed.Names()
	}
	sel, err := CheckSelection(components, seed)
	if err != nil {
		return nil, err
	}
	caps := make(Caps, len(sel))
	for i, name := range sel {
		text, _ := seed.Get(name)
		if pytext.Strip(text) == "" {
			return nil, valueErr("empty seed part %s", pytext.Repr(name))
		}
		caps[i] = Cap{name, int(math.Floor(ratio * float64(utf8.RuneCountInString(text))))}
	}
	return caps, nil
}

// Get returns the cap of the named part.
func (c Caps) Get(part string) (int, bool) {
	for _, x := range c {
		if x.Part == part {
			return x.Max, true
		}
	}
	return 0, false
}

// Check is the proposal validator: nil accepts the proposed text for the
// component; otherwise the error's message is the rejection reason:
// "'<component>' is not an evolvable part", "empty proposal" (empty after
// str.strip) or "proposal has <n> characters; the cap is <cap>" (n in code
// points). The messages never hold the proposed text.
func (c Caps) Check(component, text string) error {
	limit, ok := c.Get(component)
	if !ok {
		return valueErr("%s is not an evolvable part", pytext.Repr(component))
	}
	if pytext.Strip(text) == "" {
		return valueErr("empty proposal")
	}
	if n := utf8.RuneCountInString(text); n > limit {
		return valueErr("proposal has %d characters; the cap is %d", n, limit)
	}
	return nil
}

// MarshalJSON writes the caps as a JSON object in selection order.
func (c Caps) MarshalJSON() ([]byte, error) {
	obj := make(pyjson.Object, len(c))
	for i, x := range c {
		obj[i] = pyjson.Member{Key: x.Part, Value: x.Max}
	}
	return pyjson.Marshal(obj, pyjson.Options{})
}

// UnmarshalJSON reads a length_cap object in order. A value that is not a
// non-negative integer is refused naming the part. (Artifacts before #363
// hold one number instead of an object; they are refused as not an object.)
func (c *Caps) UnmarshalJSON(b []byte) error {
	var raw orderedRaw
	if err := raw.UnmarshalJSON(b); err != nil {
		return typeErr("the length_cap must be a mapping of part to cap")
	}
	out := Caps{}
	for _, m := range raw {
		var n int
		if err := json.Unmarshal(m.value, &n); err != nil || n < 0 {
			return typeErr("the length_cap of %s must be a whole number", pytext.Repr(m.name))
		}
		out = append(out, Cap{m.name, n})
	}
	*c = out
	return nil
}

// The sentences around the reflection prompt lines.
const (
	reflectionHead = "The component text is one part of a yes/no question that a judge answers about a message. The parts that evolve are:"
	reflectionTail = "The component text is one of these parts. Keep its role, and keep it within the limit of that part."
)

// ReflectionLines returns one line per capped part, in cap order:
// "- <name> (<role>): at most <cap> characters." roles is [PartRoles] of
// the seed; a part without a role is refused as "'<name>' is not a part of
// the seed".
func ReflectionLines(roles Mapping, caps Caps) ([]string, error) {
	lines := make([]string, len(caps))
	for i, c := range caps {
		role, ok := roles.Get(c.Part)
		if !ok {
			return nil, valueErr("%s is not a part of the seed", pytext.Repr(c.Part))
		}
		lines[i] = "- " + c.Part + " (" + role + "): at most " + strconv.Itoa(c.Max) + " characters."
	}
	return lines, nil
}

// ReflectionPrompt returns the reflection instruction of a wording run:
// base (gepa-adk's default reflection instruction, which this package does
// not ship; pass it in), then "The component text is one part of a yes/no
// question that a judge answers about a message. The parts that evolve
// are:", the [ReflectionLines], then "The component text is one of these
// parts. Keep its role, and keep it within the limit of that part.",
// joined by "\n". The prompt states roles and caps, never the seed texts.
func ReflectionPrompt(base string, roles Mapping, caps Caps) (string, error) {
	lines, err := ReflectionLines(roles, caps)
	if err != nil {
		return "", err
	}
	all := append([]string{base, reflectionHead}, lines...)
	return strings.Join(append(all, reflectionTail), "\n"), nil
}
