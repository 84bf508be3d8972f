package calibration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// Series is one binary probability column: row ids, the probability of the
// positive label and the label, in row order.
type Series struct {
	// Name names the series: a question ("payee_matches"), "verdict" for a
	// check-match receipt's verdict column, or the file's name.
	Name string
	// IDs are the row ids the split hashes.
	IDs []string
	// P is the probability of the positive label of each row, in [0, 1].
	P []float64
	// Truth is the label of each row.
	Truth []bool
	// Levels is the level count when the series pools a Score question's
	// levels ([ScoreLevelSeries]); 0 for a Noul series.
	Levels int
}

func (s Series) halves() (cp []float64, cy []bool, ep []float64, ey []bool) {
	cal, ev := Split(s.IDs)
	for _, i := range cal {
		cp, cy = append(cp, s.P[i]), append(cy, s.Truth[i])
	}
	for _, i := range ev {
		ep, ey = append(ep, s.P[i]), append(ey, s.Truth[i])
	}
	return cp, cy, ep, ey
}

// Source is what a receipt says about the run its series come from; empty
// for a plain series file.
type Source struct {
	// CheckMatch is true when the input was a check-match receipt.
	CheckMatch bool
	// Model is the receipt's model id.
	Model string
	// Backend is the receipt's serving backend ("llama_cpp", "vllm").
	Backend string
}

// SeriesError is a series input that cannot be read; Line is 1-based for a
// series file, 0 for a receipt.
type SeriesError struct {
	// Line is the series file's line, or 0.
	Line int
	// Msg says what is wrong and names the key.
	Msg string
}

// Error returns the message with its line.
func (e *SeriesError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("calibration series line %d: %s", e.Line, e.Msg)
	}
	return "calibration series: " + e.Msg
}

// ReadSeries reads the series of a check-match receipt or of a plain
// series file.
//
// A check-match receipt (a JSON object with "cases") gives the series
// typevet's study reads from it (load_series in
// evals/tests/unit/test_calibration_receipt.py) and the per-question
// series a calibrated run can apply, each row's id its case_id:
//
//   - "verdict": p the largest verdict probability, truth "correct";
//   - "payee_matches": p "payee_confidence", truth "payee_truth";
//   - "amounts_match": p "amounts_confidence", truth "amounts_truth".
//
// The legibility Score question has no gold level in the receipt, so no
// legibility series comes from it; a caller with gold levels builds one
// with [ScoreLevelSeries].
//
// A series file holds one JSON object per line, {"id": "...", "p": 0.93,
// "truth": true}; blank lines are skipped and the one series it gives is
// named name.
func ReadSeries(data []byte, name string) ([]Series, Source, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, Source{}, &SeriesError{Msg: "the input is empty"}
	}
	var probe struct {
		Cases json.RawMessage `json:"cases"`
	}
	if trimmed[0] == '{' && json.Valid(trimmed) && json.Unmarshal(trimmed, &probe) == nil && probe.Cases != nil {
		return readCheckReceipt(trimmed)
	}
	s, err := readSeriesLines(data, name)
	if err != nil {
		return nil, Source{}, err
	}
	return []Series{s}, Source{}, nil
}

func probability(v *float64, key string) (float64, error) {
	if v == nil {
		return 0, fmt.Errorf("%q is missing", key)
	}
	if math.IsNaN(*v) || *v < 0 || *v > 1 {
		return 0, fmt.Errorf("%q is not a probability in [0, 1]", key)
	}
	return *v, nil
}

func readSeriesLines(data []byte, name string) (Series, error) {
	s := Series{Name: name}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var row struct {
			ID    *string  `json:"id"`
			P     *float64 `json:"p"`
			Truth *bool    `json:"truth"`
		}
		if err := json.Unmarshal(text, &row); err != nil {
			return s, &SeriesError{Line: line, Msg: `want a JSON object {"id": string, "p": number, "truth": bool}`}
		}
		if row.ID == nil {
			return s, &SeriesError{Line: line, Msg: `"id" is missing`}
		}
		p, err := probability(row.P, "p")
		if err != nil {
			return s, &SeriesError{Line: line, Msg: err.Error()}
		}
		if row.Truth == nil {
			return s, &SeriesError{Line: line, Msg: `"truth" is missing`}
		}
		s.IDs, s.P, s.Truth = append(s.IDs, *row.ID), append(s.P, p), append(s.Truth, *row.Truth)
	}
	if err := sc.Err(); err != nil {
		return s, &SeriesError{Line: line + 1, Msg: err.Error()}
	}
	if len(s.IDs) == 0 {
		return s, &SeriesError{Msg: "the series file has no rows"}
	}
	return s, nil
}

type checkCase struct {
	CaseID               *string             `json:"case_id"`
	Correct              *bool               `json:"correct"`
	VerdictProbabilities map[string]*float64 `json:"verdict_probabilities"`
	PayeeConfidence      *float64            `json:"payee_confidence"`
	PayeeTruth           *bool               `json:"payee_truth"`
	AmountsConfidence    *float64            `json:"amounts_confidence"`
	AmountsTruth         *bool               `json:"amounts_truth"`
}

func readCheckReceipt(data []byte) ([]Series, Source, error) {
	var r struct {
		Model   string      `json:"model"`
		Backend string      `json:"backend"`
		Cases   []checkCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, Source{}, &SeriesError{Msg: "the receipt's cases are not check-match case records"}
	}
	if len(r.Cases) == 0 {
		return nil, Source{}, &SeriesError{Msg: "the receipt has no cases"}
	}
	out := []Series{{Name: "verdict"}, {Name: "payee_matches"}, {Name: "amounts_match"}}
	for i, c := range r.Cases {
		fail := func(msg string) error { return &SeriesError{Msg: fmt.Sprintf("case %d: %s", i, msg)} }
		if c.CaseID == nil || c.Correct == nil || c.PayeeTruth == nil || c.AmountsTruth == nil {
			return nil, Source{}, fail(`"case_id", "correct", "payee_truth" and "amounts_truth" must all be set`)
		}
		if len(c.VerdictProbabilities) == 0 {
			return nil, Source{}, fail(`"verdict_probabilities" is missing or empty`)
		}
		top := math.Inf(-1)
		for label, v := range c.VerdictProbabilities {
			p, err := probability(v, "verdict_probabilities."+label)
			if err != nil {
				return nil, Source{}, fail(err.Error())
			}
			top = max(top, p)
		}
		payee, err := probability(c.PayeeConfidence, "payee_confidence")
		if err != nil {
			return nil, Source{}, fail(err.Error())
		}
		amounts, err := probability(c.AmountsConfidence, "amounts_confidence")
		if err != nil {
			return nil, Source{}, fail(err.Error())
		}
		for j, row := range []struct {
			p     float64
			truth bool
		}{{top, *c.Correct}, {payee, *c.PayeeTruth}, {amounts, *c.AmountsTruth}} {
			s := &out[j]
			s.IDs, s.P, s.Truth = append(s.IDs, *c.CaseID), append(s.P, row.p), append(s.Truth, row.truth)
		}
	}
	return out, Source{CheckMatch: true, Model: r.Model, Backend: r.Backend}, nil
}

// ScoreLevelSeries pools a Score question's rows into one binary series,
// as typevet's score_level_series does: each row gives one entry per
// level, in level order, with the level's probability and the label
// gold == level, and its id repeated so that all levels of a row fall in
// the same half. Every row needs the same level count (at least 2) and a
// gold level in range.
func ScoreLevelSeries(name string, ids []string, levels [][]float64, gold []int) (Series, error) {
	if len(ids) != len(levels) || len(ids) != len(gold) {
		return Series{}, &SeriesError{Msg: "score rows need one level list and one gold level each"}
	}
	if len(levels) == 0 || len(levels[0]) < 2 {
		return Series{}, &SeriesError{Msg: "score rows need at least two levels"}
	}
	n := len(levels[0])
	s := Series{Name: name, Levels: n}
	for i, row := range levels {
		if len(row) != n {
			return Series{}, &SeriesError{Msg: "every score row needs the same level set"}
		}
		if gold[i] < 0 || gold[i] >= n {
			return Series{}, &SeriesError{Msg: "every gold level must be one of the score levels"}
		}
		for k, p := range row {
			if _, err := probability(&p, "levels"); err != nil {
				return Series{}, &SeriesError{Msg: fmt.Sprintf("row %d level %d is not a probability in [0, 1]", i, k)}
			}
			s.IDs, s.P, s.Truth = append(s.IDs, ids[i]), append(s.P, p), append(s.Truth, gold[i] == k)
		}
	}
	return s, nil
}
