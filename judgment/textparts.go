package judgment

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// DefaultOptionBlock is the option-block template used when
// [TextParts.OptionBlock] is empty. Its option line is repeated once per
// option.
const DefaultOptionBlock = "{name}: {question}\n\nOptions:\n{control} → {label}{description}\n\n{answer_rule}"

// DefaultContextTemplate is the context template used when
// [TextParts.ContextTemplate] is empty.
const DefaultContextTemplate = "{context}\n\n{field_block}"

// TextParts holds caller-substitutable prompt templates (typevet
// #364/#373). The zero value means the defaults. Templates use Python
// str.format syntax ("{{" and "}}" are literal braces) with bare
// placeholders only.
//
// OptionBlock needs {question}, {control}, {label}, {description} and
// {answer_rule}, and may hold {name}. The one line holding {control} is the
// option line, repeated once per option; {label} and {description} must sit
// on it, right after "{control} → {label}", and the other placeholders off
// it. ContextTemplate needs {context} and {field_block}.
//
// A refused template gives a [JudgmentValidationError] with the message
// "<part> template refused: <rule>[ ({placeholder})]", where part is
// "option_block" or "context_template" and rule is one of: malformed
// template; format spec or conversion in a placeholder; unknown
// placeholder; repeated placeholder; missing placeholder; misplaced
// placeholder; drops a control line; gold-reference marker ("gold answer",
// "reference answer", "correct answer", "expected answer", any case);
// media marker; turn marker (<|im_start|>, <|im_end|>, <start_of_turn>,
// <end_of_turn>, <|turn>, <turn|>); control token (the Gemma 4 tokens
// <|channel>, <channel|>, <|think|>, <|tool_response>). The message never
// holds template text.
type TextParts struct {
	OptionBlock     string // "" = [DefaultOptionBlock]
	ContextTemplate string // "" = [DefaultContextTemplate]
}

// Validate reports whether both templates are accepted, with the refusal
// of the first one that is not.
func (t TextParts) Validate() error {
	_, err := t.compile()
	return err
}

// Receipt returns the text_parts receipt: "default" for an unset part,
// else the SHA-256 hex of its UTF-8 bytes.
func (t TextParts) Receipt() TextPartsReceipt {
	return TextPartsReceipt{OptionBlock: partDigest(t.OptionBlock), ContextTemplate: partDigest(t.ContextTemplate)}
}

func partDigest(s string) string {
	if s == "" {
		return "default"
	}
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// placeholder names a template field; 0 marks a literal segment.
type placeholder int

const (
	phNone placeholder = iota
	phName
	phQuestion
	phControl
	phLabel
	phDescription
	phAnswerRule
	phContext
	phFieldBlock
)

// placeholderText holds each placeholder's name, indexed by placeholder.
var placeholderText = [...]string{
	phName: "name", phQuestion: "question", phControl: "control", phLabel: "label",
	phDescription: "description", phAnswerRule: "answer_rule",
	phContext: "context", phFieldBlock: "field_block",
}

// placeholderNames maps a name back to its placeholder.
var placeholderNames = func() map[string]placeholder {
	m := make(map[string]placeholder, len(placeholderText))
	for p, name := range placeholderText {
		if name != "" {
			m[name] = placeholder(p)
		}
	}
	return m
}()

// String returns the placeholder as written in a template: "{label}".
func (p placeholder) String() string { return "{" + placeholderText[p] + "}" }

// segment is a literal (ph == phNone) or a placeholder.
type segment struct {
	lit string
	ph  placeholder
}

// compiledParts holds both templates ready to render.
type compiledParts struct {
	head, line, tail []segment // option block split around the option line
	context          []segment
}

func (t TextParts) compile() (compiledParts, error) {
	ob, ct := t.OptionBlock, t.ContextTemplate
	if ob == "" {
		ob = DefaultOptionBlock
	}
	if ct == "" {
		ct = DefaultContextTemplate
	}
	var c compiledParts
	var err error
	if c.head, c.line, c.tail, err = compileOptionBlock(ob); err != nil {
		return c, err
	}
	if c.context, err = compileTemplate("context_template", ct,
		[]placeholder{phContext, phFieldBlock}); err != nil {
		return c, err
	}
	return c, nil
}

func refused(part, rule string, p placeholder) error {
	msg := part + " template refused: " + rule
	if p != phNone {
		msg += " (" + p.String() + ")"
	}
	return judgmentErr(msg)
}

// parseFormat splits a Python str.format template into segments. It
// refuses what str.format refuses (a lone "}", an unclosed "{"), any
// conversion or format spec, and names outside known.
func parseFormat(part, s string, known []placeholder) ([]segment, error) {
	var segs []segment
	var lit strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '}':
			if i+1 < len(s) && s[i+1] == '}' {
				lit.WriteByte('}')
				i++
				continue
			}
			return nil, refused(part, "malformed template", phNone)
		case '{':
			if i+1 < len(s) && s[i+1] == '{' {
				lit.WriteByte('{')
				i++
				continue
			}
			end := strings.IndexByte(s[i+1:], '}')
			if end < 0 {
				return nil, refused(part, "malformed template", phNone)
			}
			field := s[i+1 : i+1+end]
			if k := strings.IndexByte(field, '{'); k >= 0 {
				// A nested field only exists inside a format spec;
				// anywhere else "{" cannot appear in a field.
				if c := strings.IndexByte(field, ':'); c >= 0 && c < k {
					return nil, refused(part, "format spec or conversion in a placeholder", phNone)
				}
				return nil, refused(part, "malformed template", phNone)
			}
			name, spec := field, false
			if j := strings.IndexAny(field, "!:"); j >= 0 {
				name, spec = field[:j], true
			}
			p, ok := placeholderNames[name]
			if ok && !containsPH(known, p) {
				ok = false
			}
			if spec {
				if !ok {
					p = phNone
				}
				return nil, refused(part, "format spec or conversion in a placeholder", p)
			}
			if !ok {
				return nil, refused(part, "unknown placeholder", phNone)
			}
			if lit.Len() > 0 {
				segs = append(segs, segment{lit: lit.String()})
				lit.Reset()
			}
			segs = append(segs, segment{ph: p})
			i += end + 1
		default:
			lit.WriteByte(c)
		}
	}
	if lit.Len() > 0 {
		segs = append(segs, segment{lit: lit.String()})
	}
	return segs, nil
}

func containsPH(list []placeholder, p placeholder) bool {
	for _, q := range list {
		if q == p {
			return true
		}
	}
	return false
}

var goldMarkers = []string{"gold answer", "reference answer", "correct answer", "expected answer"}

var turnMarkers = []string{chatMLStart, chatMLEnd, gemma3Open, gemma3Close, gemma4Open, gemma4Close}

// controlTokens are Gemma 4 control tokens a template may not hold.
var controlTokens = []string{"<|channel>", "<channel|>", "<|think|>", "<|tool_response>"}

// compileTemplate parses a template whose placeholders are exactly the
// required ones, each once, and checks its literal text for markers.
func compileTemplate(part, s string, required []placeholder) ([]segment, error) {
	return compileWith(part, s, required, nil)
}

func compileWith(part, s string, required, optional []placeholder) ([]segment, error) {
	known := append(append([]placeholder(nil), required...), optional...)
	segs, err := parseFormat(part, s, known)
	if err != nil {
		return nil, err
	}
	count := map[placeholder]int{}
	for _, sg := range segs {
		if sg.ph != phNone {
			if count[sg.ph]++; count[sg.ph] > 1 {
				return nil, refused(part, "repeated placeholder", sg.ph)
			}
		}
	}
	for _, p := range required {
		if count[p] == 0 {
			return nil, refused(part, "missing placeholder", p)
		}
	}
	return segs, checkLiterals(part, segs)
}

// checkLiterals refuses gold-reference, media and turn markers in the
// literal text of a template.
func checkLiterals(part string, segs []segment) error {
	for _, sg := range segs {
		low := strings.ToLower(sg.lit)
		for _, m := range goldMarkers {
			if strings.Contains(low, m) {
				return refused(part, "gold-reference marker", phNone)
			}
		}
	}
	for _, sg := range segs {
		if strings.Contains(sg.lit, MediaMarker) {
			return refused(part, "media marker", phNone)
		}
	}
	for _, sg := range segs {
		for _, m := range turnMarkers {
			if strings.Contains(sg.lit, m) {
				return refused(part, "turn marker", phNone)
			}
		}
	}
	for _, sg := range segs {
		for _, m := range controlTokens {
			if strings.Contains(sg.lit, m) {
				return refused(part, "control token", phNone)
			}
		}
	}
	return nil
}

// compileOptionBlock compiles an option-block template and splits it into
// the text before the option line (ending with its newline), the option
// line, and the text after it (starting with its newline).
func compileOptionBlock(s string) (head, line, tail []segment, err error) {
	const part = "option_block"
	segs, err := compileWith(part, s,
		[]placeholder{phQuestion, phControl, phLabel, phDescription, phAnswerRule}, []placeholder{phName})
	if err != nil {
		return nil, nil, nil, err
	}
	// Split literals at newlines, then cut at the lines around {control}.
	ln, ctlLine := 0, 0
	type lineSeg struct {
		segment
		line int
		nl   bool
	}
	var flat []lineSeg
	for _, sg := range segs {
		if sg.ph != phNone {
			if sg.ph == phControl {
				ctlLine = ln
			}
			flat = append(flat, lineSeg{sg, ln, false})
			continue
		}
		rest := sg.lit
		for rest != "" {
			j := strings.IndexByte(rest, '\n')
			if j < 0 {
				flat = append(flat, lineSeg{segment{lit: rest}, ln, false})
				break
			}
			if j > 0 {
				flat = append(flat, lineSeg{segment{lit: rest[:j]}, ln, false})
			}
			flat = append(flat, lineSeg{segment{lit: "\n"}, ln, true})
			ln++
			rest = rest[j+1:]
		}
	}
	for _, f := range flat {
		switch {
		case f.line < ctlLine:
			head = append(head, f.segment)
		case f.line == ctlLine && !f.nl:
			line = append(line, f.segment)
		default:
			tail = append(tail, f.segment)
		}
	}
	for _, sg := range line {
		switch sg.ph {
		case phName, phQuestion, phAnswerRule:
			return nil, nil, nil, refused(part, "misplaced placeholder", sg.ph)
		}
	}
	onLine := map[placeholder]bool{}
	for _, sg := range line {
		onLine[sg.ph] = true
	}
	for _, p := range []placeholder{phLabel, phDescription} {
		if !onLine[p] {
			return nil, nil, nil, refused(part, "misplaced placeholder", p)
		}
	}
	paired := false
	for i := 0; i+2 < len(line); i++ {
		if line[i].ph == phControl && line[i+1].ph == phNone && line[i+1].lit == " → " && line[i+2].ph == phLabel {
			paired = true
		}
	}
	if !paired {
		return nil, nil, nil, refused(part, "drops a control line", phNone)
	}
	return head, line, tail, nil
}

// fieldValues holds the values of one option block's placeholders.
type fieldValues struct {
	name, question, answerRule string
}

func (v fieldValues) get(p placeholder) string {
	switch p {
	case phName:
		return v.name
	case phQuestion:
		return v.question
	case phAnswerRule:
		return v.answerRule
	}
	return ""
}

// option is one rendered option: control (with its prefix), label and
// description (with its ": " prefix, or "").
type option struct{ control, label, description string }

func (c compiledParts) renderOptionBlock(b *strings.Builder, v fieldValues, opts []option) {
	for _, sg := range c.head {
		writeSeg(b, sg, v.get(sg.ph))
	}
	for i, o := range opts {
		if i > 0 {
			b.WriteByte('\n')
		}
		for _, sg := range c.line {
			var val string
			switch sg.ph {
			case phControl:
				val = o.control
			case phLabel:
				val = o.label
			case phDescription:
				val = o.description
			}
			writeSeg(b, sg, val)
		}
	}
	for _, sg := range c.tail {
		writeSeg(b, sg, v.get(sg.ph))
	}
}

func (c compiledParts) renderContext(context, fieldBlock string) string {
	var b strings.Builder
	b.Grow(len(context) + len(fieldBlock) + 16)
	for _, sg := range c.context {
		switch sg.ph {
		case phContext:
			b.WriteString(context)
		case phFieldBlock:
			b.WriteString(fieldBlock)
		default:
			b.WriteString(sg.lit)
		}
	}
	return b.String()
}

func writeSeg(b *strings.Builder, sg segment, val string) {
	if sg.ph == phNone {
		b.WriteString(sg.lit)
		return
	}
	b.WriteString(val)
}

// answerRule returns the closing instruction of the option block.
func answerRule(letters bool) string {
	if letters {
		return "Answer with exactly one control string (the digit or letter shown), not the original label text."
	}
	return "Answer with exactly one control string (the digit shown), not the original label text."
}
