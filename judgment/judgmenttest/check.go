package judgmenttest

import (
	_ "embed"
	"slices"

	"github.com/typevet/typevet-go/judgment"
)

// checkPNG is testdata/check.png; see [CheckPNG].
//
//go:embed testdata/check.png
var checkPNG []byte

// CheckQuestions returns the question set of a four-question check
// judgment as the backend tests and benchmarks ask it about one check
// image: two Nouls, a three-option Choice and a three-level Score. It is
// a new slice each call.
func CheckQuestions() []judgment.NamedQuestion {
	return []judgment.NamedQuestion{
		{Name: "amounts_match", Question: judgment.Noul{Instructions: "Do the numeric and written amounts agree?"}},
		{Name: "signature_present", Question: judgment.Noul{Instructions: "Is the check signed?"}},
		{Name: "payee_legible", Question: judgment.Choice{Instructions: "Can the payee be read?", Criteria: []judgment.Criterion{
			{Label: "legible"}, {Label: "partly"}, {Label: "illegible"}}}},
		{Name: "image_quality", Question: judgment.Score{Instructions: "Rate the image quality.", Criteria: []string{"bad", "fair", "good"}}},
	}
}

// CheckPNG returns a copy of a 1000×440 grayscale PNG of about 66 KB:
// seeded noise strokes on white, so it compresses like a rendered check
// (it is not one). It is built into the package, so tests and benchmarks
// pay no rendering time.
func CheckPNG() []byte { return slices.Clone(checkPNG) }

// CheckRequest returns one check judgment of [CheckQuestions] for
// [DefaultModelID] with png as its one image; nil png asks on the text
// path.
func CheckRequest(png []byte) judgment.Request {
	r := judgment.Request{
		State:     `{"case_id": "c-001"}`,
		Questions: CheckQuestions(),
		Model:     DefaultModelID,
	}
	if png != nil {
		r.Media = []judgment.Image{{Data: png, MIMEType: "image/png"}}
	}
	return r
}

// CheckModel returns a scripted model with a 64-token vocabulary (so the
// full llama.cpp distribution is cheap) that answers [CheckQuestions] with
// fixed distributions over their first controls.
func CheckModel() *Model {
	return &Model{
		NVocab: 64,
		Logprobs: Script{Text: map[string]map[string]float64{
			"amounts_match":     Probs(0.2, 0.7),
			"signature_present": Probs(0.6, 0.3),
			"payee_legible":     Probs(0.5, 0.3, 0.1),
			"image_quality":     Probs(0.1, 0.2, 0.6),
		}}.Logprobs,
	}
}
