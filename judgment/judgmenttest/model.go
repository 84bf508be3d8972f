package judgmenttest

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Model is the scripted model behind a fake server: a served id, a
// vocabulary, and the next-token log-probabilities of the control strings
// for each prompt. The zero value is usable: it serves [DefaultModelID]
// with the [DefaultVocab], [DefaultNVocab] entries and a uniform answer over
// every control. A Model must not be changed after the server starts; its
// functions are called from many goroutines at once.
type Model struct {
	// ID is the served model id ("" = DefaultModelID). vLLM refuses
	// requests naming another id (other than one of Aliases); a
	// single-model llama.cpp fake ignores the name, as llama-server does
	// (see Server.Router for a router).
	ID string

	// Aliases are extra ids vLLM accepts (its served names after ID; it
	// answers under ID) and lists as /v1/models cards of their own;
	// llama.cpp /v1/models lists them in the model's aliases.
	Aliases []string

	// NVocab is the vocabulary size (0 = DefaultNVocab). llama.cpp
	// /completion returns min(n_probs, NVocab) entries, so a small NVocab
	// (for example 64) keeps tests fast while the full distribution stays
	// exercisable. It must be at least len(Vocab)+1.
	NVocab int

	// Vocab maps each control string to its token id (nil = DefaultVocab()).
	// Control strings missing from Vocab are not single tokens.
	Vocab map[string]int

	// Tokenize, when set, replaces the default tokenizer (see
	// Model.Tokens) for /tokenize and for token counts.
	Tokenize func(text string) []int

	// Logprobs returns the next-token log-probability of each control
	// string (for example "0", "1", "A") at the answer position of prompt.
	// images are the decoded image bytes the model saw, in marker order
	// (nil for a text prompt or a dropped image). Controls missing from the
	// map get UnknownLogprob. The remaining probability mass goes to
	// non-control tokens (see OffToken). nil = every control gets
	// UnknownLogprob, which decodes to a uniform answer. Script.Logprobs
	// fits this field.
	Logprobs func(prompt string, images [][]byte) map[string]float64

	// Delay, when set, returns how long the server thinks before answering a
	// scoring request with this prompt. The wait ends early when the request
	// context ends or the server closes.
	Delay func(prompt string) time.Duration

	// TextOnly makes llama.cpp /props report modalities.vision false and
	// refuses media on both servers.
	TextOnly bool

	// ImageTokens is the number of prompt tokens one image costs
	// (0 = DefaultImageTokens).
	ImageTokens int

	// RealShape gives the full-vocabulary answer the shape of a real
	// llama-server's (v0.5.0, Gemma 4 tokenizer): the non-control tokens
	// other than OffToken carry distinct logprobs spread over some 70 nats,
	// so the ids come out in a shuffled order, not ascending; their token
	// strings vary in length and include multi-byte UTF-8; and the whole
	// distribution sums to 1 + 1e-12 (the real float32 logprobs sum to
	// 1.0000000000010), not exactly 1. Every id 0..NVocab-1 still comes
	// once. Off by default, so small tests keep their simple, cheaper
	// answer; see [RealSizeCompletion].
	RealShape bool

	// OffToken is the id of the most likely non-control token (0 =
	// DefaultOffToken). It carries half of the non-control mass (all of it
	// when the vocabulary has no other token); on vLLM it is the sampled
	// token whenever it beats every requested candidate.
	OffToken int
}

// Defaults of the zero Model.
const (
	// DefaultModelID is the served name of the tested vLLM pin.
	DefaultModelID = "gemma-4-31b-it"
	// DefaultNVocab is the Gemma 4 vocabulary size.
	DefaultNVocab = 262144
	// DefaultImageTokens is the prompt-token cost of one image.
	DefaultImageTokens = 256
	// DefaultOffToken is the sampled token of typevet's vLLM example.
	DefaultOffToken = 9366
	// UnknownLogprob is the logprob of a control the script does not name.
	UnknownLogprob = -40.0
)

// Controls is the control alphabet in binding order:
// "0".."9" then "A".."Z".
var Controls = func() []string {
	var c []string
	for r := '0'; r <= '9'; r++ {
		c = append(c, string(r))
	}
	for r := 'A'; r <= 'Z'; r++ {
		c = append(c, string(r))
	}
	return c
}()

// DefaultVocab returns a fresh copy of the default control vocabulary:
// Gemma 4's real token id of each control string "0".."9", "A".."Z" (each
// one token with add_special false, as llama-server v0.5.0 tokenizes them
// with Gemma 4's tokenizer; "0" is 236771, "4" 236812, "A" 236776).
func DefaultVocab() map[string]int { return maps.Clone(gemma4Controls) }

// gemma4Controls is Gemma 4's id of each control string.
var gemma4Controls = map[string]int{
	"0": 236771, "1": 236770, "2": 236778, "3": 236800, "4": 236812, "5": 236810,
	"6": 236825, "7": 236832, "8": 236828, "9": 236819, "A": 236776, "B": 236799,
	"C": 236780, "D": 236796, "E": 236788, "F": 236811, "G": 236823, "H": 236814,
	"I": 236777, "J": 236863, "K": 236855, "L": 236798, "M": 236792, "N": 236797,
	"O": 236806, "P": 236791, "Q": 236935, "R": 236794, "S": 236773, "T": 236774,
	"U": 236836, "V": 236847, "W": 236824, "X": 236917, "Y": 236874, "Z": 236953,
}

// Probs returns a control-string logprob map from probabilities in control
// order: Probs(0.16, 0.04) is {"0": log 0.16, "1": log 0.04}. A zero
// probability is left out (it then gets UnknownLogprob). Handy for
// Model.Logprobs and Script.
func Probs(p ...float64) map[string]float64 {
	if len(p) > len(Controls) {
		panic("judgmenttest: Probs takes at most 36 probabilities")
	}
	m := make(map[string]float64, len(p))
	for i, v := range p {
		if v < 0 || v > 1 || math.IsNaN(v) {
			panic("judgmenttest: Probs needs probabilities in [0, 1]")
		}
		if v > 0 {
			m[Controls[i]] = math.Log(v)
		}
	}
	return m
}

// Script is the common scripted model: answers keyed by question name,
// optionally by whether an image was sent and by its bytes. Use its
// Logprobs method as Model.Logprobs.
//
// The question name is found in the prompt the way typevet renders a field
// block: a line that starts with "<name>: ". When several
// scripted names occur, the one that starts latest in the prompt wins (the
// field block follows the state), and for equal positions the longest name.
// The name "" holds the answer for prompts where no scripted name is found
// (for example with a caller option-block template that drops {name}).
type Script struct {
	// Text holds the answer per question name for prompts without images.
	Text map[string]map[string]float64
	// Image holds the answer per question name for prompts with at least
	// one image; a name missing here falls back to Text.
	Image map[string]map[string]float64
	// ByImage holds answers keyed by ImageKey(first image) and then by
	// question name; it wins over Image.
	ByImage map[string]map[string]map[string]float64
	// Delay holds a thinking time per question name (see Model.Delay).
	Delay map[string]time.Duration
}

// ImageKey is the key of an image in Script.ByImage: the hex SHA-256 of its
// bytes.
func ImageKey(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Logprobs returns the scripted answer for prompt and images; nil when the
// question is not scripted (every control then gets UnknownLogprob, a
// uniform answer).
func (s Script) Logprobs(prompt string, images [][]byte) map[string]float64 {
	if len(images) > 0 && len(s.ByImage) > 0 {
		if byName, ok := s.ByImage[ImageKey(images[0])]; ok {
			if m, ok := byName[QuestionName(prompt, keys(byName))]; ok {
				return m
			}
		}
	}
	if len(images) > 0 {
		if m, ok := s.Image[QuestionName(prompt, keys(s.Image))]; ok {
			return m
		}
	}
	if m, ok := s.Text[QuestionName(prompt, keys(s.Text))]; ok {
		return m
	}
	return nil
}

// ThinkTime returns the scripted delay of the question in prompt; use it as
// Model.Delay.
func (s Script) ThinkTime(prompt string) time.Duration {
	return s.Delay[QuestionName(prompt, keys(s.Delay))]
}

func keys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for name := range m {
		k = append(k, name)
	}
	return k
}

// QuestionName returns the name among names whose field-block line
// "<name>: " starts latest in prompt (at the start of the prompt or of a
// line); "" when none does.
func QuestionName(prompt string, names []string) string {
	best, bestAt := "", -1
	for _, name := range names {
		if name == "" {
			continue
		}
		needle := name + ": "
		at := -1
		if i := strings.LastIndex(prompt, "\n"+needle); i >= 0 {
			at = i + 1
		} else if strings.HasPrefix(prompt, needle) {
			at = 0
		}
		if at > bestAt || (at == bestAt && at >= 0 && len(name) > len(best)) {
			best, bestAt = name, at
		}
	}
	return best
}

// model is a started Model with its defaults filled in and its
// distribution tables built.
type model struct {
	Model
	controls []string       // vocabulary controls, in Controls order
	byID     map[int]string // control id -> control string
	nFillers int            // non-control tokens other than OffToken

	fillerOnceIDs sync.Once
	fillerIDs     []int // the filler ids, ascending; see fillers

	realOnce  sync.Once
	realOrder []int     // RealShape: the filler ids, most likely first
	realLogW  []float64 // RealShape: log share of the filler mass, by rank
	realRank  []int32   // RealShape: rank of each filler id (-1 otherwise)

	fillerOnce sync.Once
	fillerJSON []byte  // the llama.cpp entry prefix of every filler, concatenated
	fillerEnd  []int32 // fillerEnd[i] ends the prefix of fillers[i] in fillerJSON
}

// fillerPrefix returns the encoded llama.cpp entry prefix (up to the
// logprob value) of a filler id; false when id is not a filler. The table
// is built on first use: with a full Gemma vocabulary the fillers are the
// bulk of every answer.
func (m *model) fillerPrefix(id int) ([]byte, bool) {
	fillers := m.fillers()
	i, ok := slices.BinarySearch(fillers, id)
	if !ok {
		return nil, false
	}
	m.fillerOnce.Do(func() {
		m.fillerEnd = make([]int32, len(fillers))
		for j, f := range fillers {
			m.fillerJSON = appendEntryPrefix(m.fillerJSON, f, m.tokenString(f))
			m.fillerEnd[j] = int32(len(m.fillerJSON))
		}
	})
	start := int32(0)
	if i > 0 {
		start = m.fillerEnd[i-1]
	}
	return m.fillerJSON[start:m.fillerEnd[i]], true
}

func newModel(m *Model) *model {
	if m == nil {
		m = &Model{}
	}
	mm := &model{Model: *m}
	if mm.ID == "" {
		mm.ID = DefaultModelID
	}
	if mm.NVocab == 0 {
		mm.NVocab = DefaultNVocab
	}
	if mm.Vocab == nil {
		mm.Vocab = DefaultVocab()
	}
	if mm.ImageTokens == 0 {
		mm.ImageTokens = DefaultImageTokens
	}
	if mm.OffToken == 0 {
		mm.OffToken = DefaultOffToken
	}
	if mm.NVocab < len(mm.Vocab)+1 {
		panic("judgmenttest: Model.NVocab must be at least len(Vocab)+1")
	}
	mm.byID = make(map[int]string, len(mm.Vocab))
	for _, c := range Controls {
		if id, ok := mm.Vocab[c]; ok {
			mm.controls = append(mm.controls, c)
			mm.byID[id] = c
		}
	}
	// Entries outside the alphabet follow in string order, so sums over
	// the controls do not depend on map order.
	for _, c := range slices.Sorted(maps.Keys(mm.Vocab)) {
		id := mm.Vocab[c]
		if other, ok := mm.byID[id]; ok && other != c {
			panic("judgmenttest: Model.Vocab maps two strings to one id")
		}
		if _, ok := mm.byID[id]; !ok {
			mm.controls = append(mm.controls, c)
			mm.byID[id] = c
		}
	}
	if _, ok := mm.byID[mm.OffToken]; ok {
		panic("judgmenttest: Model.OffToken is a control token id")
	}
	mm.nFillers = mm.NVocab - len(mm.controls) - 1
	return mm
}

// fillers returns the filler ids: 0, 1, 2, … skipping the control ids and
// OffToken. Built on first use, so a server that never scores pays nothing
// for a Gemma-size vocabulary.
func (m *model) fillers() []int {
	m.fillerOnceIDs.Do(func() {
		m.fillerIDs = make([]int, 0, m.nFillers)
		for id := 0; len(m.fillerIDs) < m.nFillers; id++ {
			if _, ok := m.byID[id]; ok || id == m.OffToken {
				continue
			}
			m.fillerIDs = append(m.fillerIDs, id)
		}
	})
	return m.fillerIDs
}

func (m *model) accepts(id string) bool {
	if id == m.ID {
		return true
	}
	for _, a := range m.Aliases {
		if id == a {
			return true
		}
	}
	return false
}

// textTokenBase offsets the ids of text outside the vocabulary so they stay
// below the Gemma control ids.
const textTokenBase = 1000

// tokens tokenizes text without special tokens: each vocabulary entry that
// matches at the current position (longest first) is one token, every other
// rune is one token with id textTokenBase + rune%200000.
func (m *model) tokens(text string) []int {
	if m.Tokenize != nil {
		return m.Tokenize(text)
	}
	out := make([]int, 0, utf8.RuneCountInString(text))
	for len(text) > 0 {
		best := ""
		for s := range m.Vocab {
			if len(s) > len(best) && strings.HasPrefix(text, s) {
				best = s
			}
		}
		if best != "" {
			out = append(out, m.Vocab[best])
			text = text[len(best):]
			continue
		}
		r, size := utf8.DecodeRuneInString(text)
		out = append(out, textTokenBase+int(r)%200000)
		text = text[size:]
	}
	return out
}

// countTokens is the prompt-token count of text plus images: the tokens of
// text (media markers included as text) and ImageTokens per image.
func (m *model) countTokens(text string, images int) int {
	if m.Tokenize != nil {
		return len(m.Tokenize(text)) + images*m.ImageTokens
	}
	return utf8.RuneCountInString(text) + images*m.ImageTokens
}

// tokenString is the text of a token id in responses.
func (m *model) tokenString(id int) string {
	if c, ok := m.byID[id]; ok {
		return c
	}
	if id == m.OffToken {
		return " The"
	}
	if m.RealShape {
		return realToken(id)
	}
	return "<unused" + strconv.Itoa(id) + ">"
}

// realExcess is how far a RealShape distribution sums above 1, as the
// real server's float32 logprobs do.
const realExcess = 1e-12

// realSpread is the logprob range, in nats, of a RealShape answer's
// fillers (the real one spans about -25 to -95).
const realSpread = 70.0

// realToken is a RealShape filler's text: a word-like piece of one to
// eleven letters after a space, every seventh a run of Devanagari (three
// UTF-8 bytes a letter), as a real vocabulary mixes them.
func realToken(id int) string {
	n := 1 + id%11
	b := make([]byte, 0, 1+3*n)
	b = append(b, ' ')
	for i := range n {
		k := (id/11 + i*7) % 26
		if id%7 == 0 {
			b = utf8.AppendRune(b, rune(0x915+k))
		} else {
			b = append(b, byte('a'+k))
		}
	}
	return string(b)
}

// realTables builds the RealShape filler order (a fixed shuffle of the
// fillers) and their log shares: exp(-realSpread·r/n), normalised.
func (m *model) realTables() {
	m.realOnce.Do(func() {
		fillers := m.fillers()
		m.realOrder = slices.Clone(fillers)
		r := rand.New(rand.NewPCG(262144, 1))
		r.Shuffle(len(m.realOrder), func(i, j int) { m.realOrder[i], m.realOrder[j] = m.realOrder[j], m.realOrder[i] })
		n := float64(len(fillers))
		m.realLogW = make([]float64, len(fillers))
		z := 0.0
		for i := range m.realLogW {
			m.realLogW[i] = -realSpread * float64(i) / n
			z += math.Exp(m.realLogW[i])
		}
		logZ := math.Log(z)
		m.realRank = make([]int32, m.NVocab)
		for i := range m.realRank {
			m.realRank[i] = -1
		}
		for i, id := range m.realOrder {
			m.realLogW[i] -= logZ
			m.realRank[id] = int32(i)
		}
	})
}

// entry is one token of a next-token distribution.
type entry struct {
	id      int
	logprob float64
}

// dist is the scripted next-token distribution at one answer position.
type dist struct {
	controls map[int]float64 // control id -> logprob
	off      float64         // logprob of OffToken
	filler   float64         // logprob of each filler token (RealShape: of the filler mass)
}

func (m *model) distribution(prompt string, images [][]byte) dist {
	var script map[string]float64
	if m.Logprobs != nil {
		script = m.Logprobs(prompt, images)
	}
	d := dist{controls: make(map[int]float64, len(m.controls))}
	mass := 0.0
	for _, c := range m.controls {
		lp, ok := script[c]
		if !ok {
			lp = UnknownLogprob
		}
		d.controls[m.Vocab[c]] = lp
		mass += math.Exp(lp)
	}
	rest := max(1-mass, 1e-12)
	if m.RealShape {
		rest += realExcess
	}
	switch {
	case m.nFillers == 0:
		d.off = math.Log(rest)
	case m.RealShape:
		m.realTables()
		d.off = math.Log(rest / 2)
		d.filler = math.Log(rest / 2)
	default:
		d.off = math.Log(rest / 2)
		d.filler = math.Log(rest / 2 / float64(m.nFillers))
	}
	return d
}

// logprob returns the logprob of any token id.
func (d dist) logprob(m *model, id int) float64 {
	if lp, ok := d.controls[id]; ok {
		return lp
	}
	if id == m.OffToken {
		return d.off
	}
	if m.RealShape {
		return d.filler + m.realLogW[m.realRank[id]]
	}
	return d.filler
}

// top returns the n most likely tokens, most likely first (ties by id).
func (d dist) top(m *model, n int) []entry {
	n = min(n, m.NVocab)
	all := make([]entry, 0, len(d.controls)+1)
	for id, lp := range d.controls {
		all = append(all, entry{id, lp})
	}
	all = append(all, entry{m.OffToken, d.off})
	sortEntries(all)
	// The fillers come sorted already (all sharing one logprob, in id
	// order; RealShape: by rank), so merge them in.
	fillers := m.fillers()
	filler := func(i int) entry { return entry{fillers[i], d.filler} }
	if m.RealShape {
		fillers = m.realOrder
		filler = func(i int) entry { return entry{fillers[i], d.filler + m.realLogW[i]} }
	}
	out := make([]entry, 0, n)
	fi := 0
	for _, e := range all {
		for fi < len(fillers) && len(out) < n && less(filler(fi), e) {
			out = append(out, filler(fi))
			fi++
		}
		if len(out) == n {
			return out
		}
		out = append(out, e)
	}
	for ; fi < len(fillers) && len(out) < n; fi++ {
		out = append(out, filler(fi))
	}
	return out
}

func sortEntries(e []entry) {
	// insertion sort: the list holds at most a few dozen control entries.
	for i := 1; i < len(e); i++ {
		for j := i; j > 0 && less(e[j], e[j-1]); j-- {
			e[j], e[j-1] = e[j-1], e[j]
		}
	}
}

func less(a, b entry) bool {
	if a.logprob != b.logprob {
		return a.logprob > b.logprob
	}
	return a.id < b.id
}
