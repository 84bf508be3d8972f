package calibration

import (
	"context"
	"fmt"
	"sort"

	"github.com/typevet/typevet-go/internal/pymath"
	"github.com/typevet/typevet-go/judgment"
)

// Record is the raw and calibrated value of one mapped answer, typevet's
// CalibrationRecord.
type Record struct {
	// Question is the mapped question's name.
	Question string
	// Raw is the Noul probability, or the Score score, the inner port
	// returned; Calibrated is the value after the map.
	Raw, Calibrated float64
	// Method is the map's method.
	Method Method
	// MapSHA256 is the SHA-256 of the map file's bytes.
	MapSHA256 string
	// RawLevels and CalibratedLevels are a Score answer's level
	// probabilities before and after the map and the rescale; nil for a
	// Noul answer.
	RawLevels, CalibratedLevels []float64
}

// Judgment is a [judgment.Port] that calibrates the mapped answers of an
// inner Port, typevet's CalibratedJudgment. The answers it returns carry
// the calibrated values; [Judgment.JudgeRecords] also returns the raw
// value, the calibrated value, the method and the map digest of each.
// Unmapped questions stay raw. It is safe for concurrent use when the inner
// Port is.
type Judgment struct {
	inner   judgment.Port
	maps    map[string]*Map
	names   []string
	taskID  string
	backend string
}

// New wraps inner with maps keyed by question name. taskID is the task
// every map must be fitted for and backend the serving backend of inner
// ("llama_cpp", "vllm") every map must be fitted on: a map for another
// task is a *[TaskMismatchError], for another backend a
// *[ModelMismatchError], and an empty collection, an empty name, a nil
// map or a question that inner, itself a Judgment, already maps a
// *[MapError] (typevet refuses an answer that already carries a record);
// all before any request.
func New(inner judgment.Port, maps map[string]*Map, taskID, backend string) (*Judgment, error) {
	if len(maps) == 0 {
		return nil, &MapError{Msg: "calibration maps must name at least one question"}
	}
	j := &Judgment{inner: inner, maps: make(map[string]*Map, len(maps)), taskID: taskID, backend: backend}
	wrapped, _ := inner.(*Judgment)
	for name := range maps {
		j.names = append(j.names, name)
	}
	sort.Strings(j.names)
	for _, name := range j.names {
		m := maps[name]
		if name == "" {
			return nil, &MapError{Msg: "calibration map keys must be question names"}
		}
		if m == nil {
			return nil, &MapError{Msg: "calibration map values must be maps"}
		}
		if wrapped != nil && wrapped.maps[name] != nil {
			return nil, &MapError{Msg: fmt.Sprintf("judgment answer already carries a calibration record (question %q is mapped twice)", name)}
		}
		if m.FittedOn.TaskID != taskID {
			return nil, &TaskMismatchError{Question: name}
		}
		if m.FittedOn.Backend != backend {
			return nil, &ModelMismatchError{Field: "backend", Question: name}
		}
		j.maps[name] = m
	}
	return j, nil
}

// Judge judges req with the inner Port and returns the calibrated answers
// ([Judgment.JudgeRecords] without the records).
func (j *Judgment) Judge(ctx context.Context, req judgment.Request) (judgment.Response, error) {
	resp, _, err := j.JudgeRecords(ctx, req)
	return resp, err
}

// JudgeRecords refuses, before the inner call, a mapped question that is a
// Choice or whose kind or level count does not match its map (a
// *[TargetError]); judges req with the inner Port; refuses a response
// whose model differs from any map's (a *[ModelMismatchError], checked for
// every map on every response as typevet does); then maps each mapped
// answer. A Noul map changes the Noul probability. A Score map maps each
// level probability, rescales the levels to sum to 1, and sets the score
// to the expected level (clamped to the level range) and the confidence to
// the largest level probability. The records are in question order.
func (j *Judgment) JudgeRecords(ctx context.Context, req judgment.Request) (judgment.Response, []Record, error) {
	for _, q := range req.Questions {
		m, ok := j.maps[q.Name]
		if !ok {
			continue
		}
		if err := checkQuestion(m, q); err != nil {
			return judgment.Response{}, nil, err
		}
	}
	resp, err := j.inner.Judge(ctx, req)
	if err != nil {
		return resp, nil, err
	}
	for _, name := range j.names {
		if j.maps[name].FittedOn.Model != resp.Model {
			return judgment.Response{}, nil, &ModelMismatchError{Field: "model", Question: name}
		}
	}
	answers := make([]judgment.NamedAnswer, len(resp.Answers))
	copy(answers, resp.Answers)
	var records []Record
	for i, a := range answers {
		m, ok := j.maps[a.Name]
		if !ok {
			continue
		}
		calibrated, rec, err := calibrate(a, m)
		if err != nil {
			return judgment.Response{}, nil, err
		}
		answers[i].Answer = calibrated
		records = append(records, rec)
	}
	resp.Answers = answers
	return resp, records, nil
}

func checkQuestion(m *Map, q judgment.NamedQuestion) error {
	switch qq := q.Question.(type) {
	case judgment.Noul:
		if m.Levels == 0 {
			return nil
		}
	case judgment.Score:
		if m.Levels != 0 && len(qq.Criteria) == m.Levels {
			return nil
		}
	}
	return &TargetError{Question: q.Name}
}

func calibrate(a judgment.NamedAnswer, m *Map) (judgment.Answer, Record, error) {
	rec := Record{Question: a.Name, Method: m.Method, MapSHA256: m.SHA256}
	if m.Levels == 0 {
		n, ok := a.Answer.(judgment.NoulAnswer)
		if !ok {
			return nil, rec, &TargetError{Question: a.Name}
		}
		v, err := m.Apply(n.Noul)
		if err != nil {
			return nil, rec, err
		}
		rec.Raw, rec.Calibrated = n.Noul, v
		n.Noul = v
		return n, rec, nil
	}
	s, ok := a.Answer.(judgment.ScoreAnswer)
	if !ok || len(s.Probabilities) != m.Levels {
		return nil, rec, &TargetError{Question: a.Name}
	}
	levels, err := m.ApplyLevels(s.Probabilities)
	if err != nil {
		return nil, rec, err
	}
	terms := make([]float64, len(levels))
	confidence := levels[0]
	for k, p := range levels {
		terms[k] = float64(float64(k) * p)
		confidence = max(confidence, p)
	}
	score := min(max(pymath.Sum(terms), 0), float64(len(levels)-1))
	out := judgment.ScoreAnswer{
		Score: score, Confidence: confidence,
		Legend:        append([]string(nil), s.Legend...),
		Probabilities: levels, OffOptionFlag: s.OffOptionFlag,
	}
	rec.Raw, rec.Calibrated = s.Score, score
	rec.RawLevels = append([]float64(nil), s.Probabilities...)
	rec.CalibratedLevels = append([]float64(nil), levels...)
	return out, rec, nil
}

// Recording returns j as a plain [judgment.Port] that also hands each
// response's records to record, with the request they answer, before it
// returns the response; a runner that only knows Port.Judge keeps the
// records this way (for example into a [Sidecar], keyed by the case its
// request's image belongs to). record must be safe for concurrent use when
// the Port is used concurrently; it is not called for a refused or failed
// judgment.
func (j *Judgment) Recording(record func(req judgment.Request, records []Record)) judgment.Port {
	return judgment.PortFunc(func(ctx context.Context, req judgment.Request) (judgment.Response, error) {
		resp, recs, err := j.JudgeRecords(ctx, req)
		if err != nil {
			return resp, err
		}
		record(req, recs)
		return resp, nil
	})
}
