package judgment_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/judgment"
)

func sampleResponse() judgment.Response {
	in, mass, thr := 12, 0.01, 0.2
	return judgment.Response{
		Model: "m",
		Usage: judgment.Usage{InputTokens: &in},
		Answers: []judgment.NamedAnswer{
			{Name: "signed", Answer: judgment.NoulAnswer{Noul: 0.9}},
			{Name: "color", Answer: judgment.ChoiceAnswer{Choice: "red", Confidence: 0.8,
				Probabilities: judgment.Probabilities{{Label: "red", P: 0.8}, {Label: "blue", P: 0.2}}, OffOptionFlag: true}},
			{Name: "legibility", Answer: judgment.ScoreAnswer{Score: 1.25, Confidence: 0.5, Legend: []string{"bad", "ok", "good"},
				Probabilities: []float64{0.25, 0.25, 0.5}}},
		},
		OffOption:  []judgment.NamedOffOption{{Name: "color", OffOption: judgment.OffOption{Mass: &mass, Threshold: &thr, Flag: false}}},
		TextParts:  judgment.TextPartsReceipt{OptionBlock: "default", ContextTemplate: "default"},
		RequestIDs: []judgment.NamedRequestID{{Name: "signed", ID: "r1"}},
	}
}

// TestResponseJSONRoundTrip: the JSON form gives back the same typed
// answers, and encoding again gives the same bytes.
func TestResponseJSONRoundTrip(t *testing.T) {
	for name, r := range map[string]judgment.Response{"full": sampleResponse(), "empty": {}} {
		b, err := json.Marshal(r)
		require.NoError(t, err, name)
		var back judgment.Response
		require.NoError(t, json.Unmarshal(b, &back), name)
		assert.Equal(t, r, back, name)
		again, err := json.Marshal(back)
		require.NoError(t, err)
		assert.Equal(t, string(b), string(again), name)
	}
}

// TestResponseJSONRefuses: unknown keys and kinds are refused, not
// dropped.
func TestResponseJSONRefuses(t *testing.T) {
	for name, text := range map[string]string{
		"unknown key":    `{"model":"m","usage":{"input_tokens":null,"output_tokens":null},"answers":[],"off_option":[],"text_parts":{"option_block":"","context_template":""},"request_ids":[],"x":1}`,
		"unknown kind":   `{"model":"m","answers":[{"name":"a","kind":"rank"}]}`,
		"answer key":     `{"model":"m","answers":[{"name":"a","kind":"noul","noul":0.5,"off_option_flag":false,"extra":1}]}`,
		"not an object":  `[1]`,
		"trailing value": `{"model":"m"} {}`,
	} {
		var r judgment.Response
		assert.Error(t, json.Unmarshal([]byte(text), &r), name)
	}
}

// FuzzResponseJSON: what the decoder accepts encodes and decodes back to
// the same response.
func FuzzResponseJSON(f *testing.F) {
	b, _ := json.Marshal(sampleResponse())
	f.Add(b)
	f.Add([]byte(`{"model":"m","answers":[{"name":"a","kind":"noul","noul":0.5,"off_option_flag":false}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r judgment.Response
		if json.Unmarshal(data, &r) != nil {
			return
		}
		b, err := json.Marshal(r)
		if err != nil {
			return // a NaN cannot come from JSON; other failures are refusals
		}
		var back judgment.Response
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
		again, _ := json.Marshal(back)
		if string(again) != string(b) {
			t.Fatalf("not stable:\n%s\n%s", b, again)
		}
	})
}
