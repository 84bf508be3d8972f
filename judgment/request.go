package judgment

import (
	"fmt"
	"math"
	"strings"

	"github.com/typevet/typevet-go/internal/pyjson"
	"github.com/typevet/typevet-go/internal/pytext"
)

// MediaMarker is the placeholder a prefix holds once per image, one per
// line before the state (the llama.cpp mtmd default marker).
const MediaMarker = "<__media__>"

// NeutralizedMediaMarker replaces [MediaMarker] wherever it appears in
// caller text, so only real images produce markers (typevet #433).
const NeutralizedMediaMarker = `<\_\_media\_\_>`

// Image is one image input.
type Image struct {
	// Data holds the encoded image bytes; it must be non-empty. No size or
	// pixel cap applies.
	Data []byte
	// MIMEType is "image/png", "image/jpeg" or "image/webp", matched
	// exactly (case-sensitive, no trimming).
	MIMEType string
}

// StateJSON returns the state text typevet renders for a non-string state:
// Python's json.dumps(v, ensure_ascii=False) with the default separators
// ", " and ": ", no HTML escaping, non-ASCII text raw and floats as Python
// prints them (1.0, 1e-07). Put the result in [Request.State].
//
// v may be nil, a bool, a string, an int, int64, uint64 or float64, a
// []string, []int, []float64 or []any of these, or a map[string]any or
// map[string]string. A Go map has no order, so its keys are written
// sorted; a Python dict keeps insertion order, so a state dict built in
// another order renders differently in typevet. A string is quoted as
// json.dumps quotes it (typevet puts a string state in the prompt as it
// is: set State directly). Any other type, and a string that is not valid
// UTF-8, is an error.
func StateJSON(v any) (string, error) {
	b, err := pyjson.Marshal(v, pyjson.Options{})
	if err != nil {
		return "", fmt.Errorf("judgment: state: %w", err)
	}
	return string(b), nil
}

// Request is one judgment: named questions about a state, optionally
// conditioned on images.
type Request struct {
	// State is the text under evaluation. typevet also accepts a
	// non-string state (a dict, a list, a number) and renders it with
	// json.dumps(state, ensure_ascii=False); [StateJSON] gives that text.
	State string
	// Questions are scored in this order, one scoring request each. Names
	// must be unique.
	Questions []NamedQuestion
	// Model is the model id; non-blank, and equal to the session pin when
	// one is set.
	Model string
	// Media holds the images; nil or empty is the text path. The order is
	// the marker order.
	Media []Image
	// OffOptionThreshold turns the off-option guard on when non-nil; it must
	// then be in [0, 1]. A pointer because "off" and 0 differ.
	OffOptionThreshold *float64
}

// Validate checks everything about r that needs no backend, in the order a
// judgment does (model, threshold, media, questions). It returns nil or a
// [GenerationError] subclass: [JudgmentValidationError] for the request and
// question shapes, [ScoringValidationError] for images. Backends that do
// not use [NewJudge] (such as the offline fake) call it to refuse the same
// requests.
func (r Request) Validate() error {
	if err := r.validateHead(); err != nil {
		return err
	}
	return r.validateBody()
}

// validateHead checks the model and the threshold.
func (r Request) validateHead() error {
	if pytext.Strip(r.Model) == "" {
		return judgmentErr("model must be non-empty")
	}
	if t := r.OffOptionThreshold; t != nil && (math.IsNaN(*t) || *t < 0 || *t > 1) {
		return judgmentErr("off_option_threshold must be None or in [0, 1], got " + pyjson.FormatFloat(*t))
	}
	return nil
}

// validateBody checks the images and the question shapes.
func (r Request) validateBody() error {
	for _, im := range r.Media {
		if err := im.validate(); err != nil {
			return err
		}
	}
	if len(r.Questions) == 0 {
		return judgmentErr("questions must be non-empty")
	}
	seen := make(map[string]bool, len(r.Questions))
	for _, nq := range r.Questions {
		if seen[nq.Name] {
			return judgmentErr(fmt.Sprintf("duplicate question name %s", pytext.Repr(nq.Name)))
		}
		seen[nq.Name] = true
		if err := validateQuestion(nq.Name, nq.Question); err != nil {
			return err
		}
	}
	return nil
}

// validate applies typevet's ImageInput rules.
func (im Image) validate() error {
	if len(im.Data) == 0 {
		return scoringErr("image data must be non-empty")
	}
	switch im.MIMEType {
	case "image/png", "image/jpeg", "image/webp":
		return nil
	}
	return scoringErr(fmt.Sprintf("unsupported image mime type %s; supported: image/jpeg, image/png, image/webp", pytext.Repr(im.MIMEType)))
}

// neutralize replaces every media marker in caller text (typevet #433).
func neutralize(s string) string {
	if !strings.Contains(s, MediaMarker) {
		return s
	}
	return strings.ReplaceAll(s, MediaMarker, NeutralizedMediaMarker)
}

// buildContext returns the prompt context: the neutralised state,
// preceded by one marker line per image.
func buildContext(state string, images int) string {
	state = neutralize(state)
	if images == 0 {
		return state
	}
	var b strings.Builder
	b.Grow(images*(len(MediaMarker)+1) + len(state))
	for range images {
		b.WriteString(MediaMarker)
		b.WriteByte('\n')
	}
	b.WriteString(state)
	return b.String()
}
