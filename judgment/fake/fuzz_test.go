package fake_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/fake"
)

// FuzzParseDistributions checks that any accepted distributions file
// yields answers whose probabilities are finite, in [0, 1] and sum to 1
// within 1e-9, for every question shape the file can describe.
func FuzzParseDistributions(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"a": 1e-320, "b": {"x": 5e-324, "y": 0}}`))
	f.Add([]byte(`{"s": {"0": 1.7976931348623157e308, "1": 0}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := fake.ParseDistributions(bytes.NewReader(data))
		if err != nil {
			return
		}
		p := fake.New(d)
		for name, dist := range d {
			for _, q := range questionsFor(dist) {
				resp, err := p.Judge(context.Background(), judgment.Request{Model: "m",
					Questions: []judgment.NamedQuestion{{Name: name, Question: q}}})
				if err != nil {
					t.Fatalf("accepted distribution %q refused: %v", name, err)
				}
				checkProbabilities(t, name, answerProbabilities(resp.Answers[0].Answer))
			}
		}
	})
}

// questionsFor returns the questions a distribution can answer: a Noul
// for a number; a Choice over its labels (padded to two) and, when the
// labels are "0".."k", a Score.
func questionsFor(d fake.Distribution) []judgment.Question {
	if d.True != nil {
		return []judgment.Question{judgment.Noul{}}
	}
	labels := make([]string, 0, len(d.Weights))
	maxLevel := -1
	levels := true
	for l := range d.Weights {
		if strings.TrimSpace(l) == "" || strings.ContainsAny(l, "\x1c\x1d\x1e\x1f") {
			return nil // a blank label cannot be a Choice label
		}
		labels = append(labels, l)
		n, err := strconv.Atoi(l)
		if err != nil || n < 0 || strconv.Itoa(n) != l {
			levels = false
		} else {
			maxLevel = max(maxLevel, n)
		}
	}
	slices.Sort(labels)
	if len(labels) == 1 {
		// A Choice needs two options; the padding label is one the
		// distribution does not name, so it weighs 0.
		labels = append(labels, labels[0]+"~pad")
	}
	var qs []judgment.Question
	if len(labels) <= 24 {
		c := judgment.Choice{}
		for _, l := range labels {
			c.Criteria = append(c.Criteria, judgment.Criterion{Label: l})
		}
		qs = append(qs, c)
	}
	if levels && maxLevel >= 1 && maxLevel < 24 {
		qs = append(qs, judgment.Score{Criteria: make([]string, maxLevel+1)})
	}
	return qs
}

func answerProbabilities(a judgment.Answer) []float64 {
	switch a := a.(type) {
	case judgment.NoulAnswer:
		return []float64{1 - a.Noul, a.Noul}
	case judgment.ChoiceAnswer:
		var out []float64
		for _, p := range a.Probabilities {
			out = append(out, p.P)
		}
		return append(out, a.Confidence-a.Confidence) // confidence must be finite too
	case judgment.ScoreAnswer:
		return append(slices.Clone(a.Probabilities), a.Score-a.Score)
	}
	return nil
}

func checkProbabilities(t *testing.T, name string, ps []float64) {
	t.Helper()
	sum := 0.0
	for _, p := range ps {
		if math.IsNaN(p) || math.IsInf(p, 0) || p < 0 || p > 1 {
			t.Fatalf("%q: probability %v", name, p)
		}
		sum += p
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Fatalf("%q: probabilities %v sum to %v", name, ps, sum)
	}
}
