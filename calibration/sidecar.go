package calibration

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/typevet/typevet-go/internal/pyjson"
)

// SidecarSchema is the schema of the calibration records document a
// calibrated run writes beside its receipt. typevet keeps its records only
// on the in-memory response (JudgmentResponse.calibration) and no typevet
// receipt has a place for them, so they go to a document of their own and
// the receipt keeps typevet's keys unchanged.
const SidecarSchema = "typevet-go.calibration_records"

// SidecarVersion is the version of the document [Sidecar.Encode] writes.
const SidecarVersion = 1

// SidecarMap names one map a run applied.
type SidecarMap struct {
	// Question is the calibrated question.
	Question string `json:"question"`
	// Path is the map file as the run was given it.
	Path string `json:"path"`
	// SHA256 is the pinned digest of the map file.
	SHA256 string `json:"sha256"`
	// Method is the map's method.
	Method Method `json:"method"`
}

// SidecarCase holds the records of one judged case, in question order.
type SidecarCase struct {
	// CaseID is the receipt's case id.
	CaseID string
	// Records are the case's calibration records.
	Records []Record
}

// Sidecar collects the calibration records of one run, case by case, and
// writes them as one document ([SidecarSchema]). It is safe for
// concurrent use; cases are written in the order they were added, so a
// runner adds them in case order.
type Sidecar struct {
	// TaskID, Backend and Model are the run's, as the maps were checked
	// against them.
	TaskID, Backend, Model string
	// Maps are the maps the run applied.
	Maps []SidecarMap

	mu    sync.Mutex
	cases []SidecarCase
}

// Add records the calibration records of one case.
func (s *Sidecar) Add(caseID string, records []Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cases = append(s.cases, SidecarCase{CaseID: caseID, Records: append([]Record(nil), records...)})
}

// Cases returns the cases added so far.
func (s *Sidecar) Cases() []SidecarCase {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SidecarCase(nil), s.cases...)
}

func levelObject(levels []float64) any {
	if levels == nil {
		return nil
	}
	obj := make(pyjson.Object, len(levels))
	for i, p := range levels {
		obj[i] = pyjson.Member{Key: strconv.Itoa(i), Value: p}
	}
	return obj
}

// Encode writes the document, indented by two spaces, floats in Python's
// repr, each record with typevet's CalibrationRecord fields (raw,
// calibrated, method, map_sha256, raw_levels, calibrated_levels; the level
// maps keyed "0".."n-1", null for a Noul):
//
//	{"schema": "typevet-go.calibration_records", "version": 1,
//	 "task_id": ..., "backend": ..., "model": ..., "maps": [...],
//	 "cases": [{"case_id": "r00:clean", "records": {"payee_matches": {...}}}]}
func (s *Sidecar) Encode() ([]byte, error) {
	cases := s.Cases()
	caseList := make([]any, len(cases))
	for i, c := range cases {
		recs := make(pyjson.Object, len(c.Records))
		for j, r := range c.Records {
			recs[j] = pyjson.Member{Key: r.Question, Value: pyjson.Object{
				{Key: "raw", Value: r.Raw},
				{Key: "calibrated", Value: r.Calibrated},
				{Key: "method", Value: string(r.Method)},
				{Key: "map_sha256", Value: r.MapSHA256},
				{Key: "raw_levels", Value: levelObject(r.RawLevels)},
				{Key: "calibrated_levels", Value: levelObject(r.CalibratedLevels)},
			}}
		}
		caseList[i] = pyjson.Object{{Key: "case_id", Value: c.CaseID}, {Key: "records", Value: recs}}
	}
	maps := make([]any, len(s.Maps))
	for i, m := range s.Maps {
		maps[i] = pyjson.Object{{Key: "question", Value: m.Question}, {Key: "path", Value: m.Path}, {Key: "sha256", Value: m.SHA256}, {Key: "method", Value: string(m.Method)}}
	}
	doc := pyjson.Object{
		{Key: "schema", Value: SidecarSchema},
		{Key: "version", Value: SidecarVersion},
		{Key: "task_id", Value: s.TaskID},
		{Key: "backend", Value: s.Backend},
		{Key: "model", Value: s.Model},
		{Key: "maps", Value: maps},
		{Key: "cases", Value: caseList},
	}
	out, err := pyjson.Marshal(doc, pyjson.Options{EnsureASCII: true, Indent: 2})
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// ErrNotSidecar is returned by [ReadSidecar] for a document of another
// schema or version.
var ErrNotSidecar = errors.New("calibration: not a " + SidecarSchema + " document of version 1")

// ReadSidecar reads a document [Sidecar.Encode] wrote, for a viewer or a
// report that shows raw and calibrated values side by side.
func ReadSidecar(data []byte) (*Sidecar, error) {
	var doc struct {
		Schema  string       `json:"schema"`
		Version int          `json:"version"`
		TaskID  string       `json:"task_id"`
		Backend string       `json:"backend"`
		Model   string       `json:"model"`
		Maps    []SidecarMap `json:"maps"`
		Cases   []struct {
			CaseID  string          `json:"case_id"`
			Records json.RawMessage `json:"records"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("calibration records: %w", err)
	}
	if doc.Schema != SidecarSchema || doc.Version != SidecarVersion {
		return nil, ErrNotSidecar
	}
	s := &Sidecar{TaskID: doc.TaskID, Backend: doc.Backend, Model: doc.Model, Maps: doc.Maps}
	for _, c := range doc.Cases {
		var recs []Record
		err := pyjson.DecodeObject(c.Records, func(question string, raw json.RawMessage) error {
			var r struct {
				Raw              *float64           `json:"raw"`
				Calibrated       *float64           `json:"calibrated"`
				Method           Method             `json:"method"`
				MapSHA256        string             `json:"map_sha256"`
				RawLevels        map[string]float64 `json:"raw_levels"`
				CalibratedLevels map[string]float64 `json:"calibrated_levels"`
			}
			dec := json.NewDecoder(bytes.NewReader(raw))
			if err := dec.Decode(&r); err != nil || r.Raw == nil || r.Calibrated == nil || !r.Method.valid() {
				return fmt.Errorf("calibration records: case %q question %q: want raw, calibrated and a method", c.CaseID, question)
			}
			rec := Record{Question: question, Raw: *r.Raw, Calibrated: *r.Calibrated, Method: r.Method, MapSHA256: r.MapSHA256}
			var err error
			if rec.RawLevels, err = levels(r.RawLevels); err != nil {
				return err
			}
			if rec.CalibratedLevels, err = levels(r.CalibratedLevels); err != nil {
				return err
			}
			recs = append(recs, rec)
			return nil
		})
		if err != nil {
			return nil, err
		}
		s.cases = append(s.cases, SidecarCase{CaseID: c.CaseID, Records: recs})
	}
	return s, nil
}

func levels(m map[string]float64) ([]float64, error) {
	if m == nil {
		return nil, nil
	}
	out := make([]float64, len(m))
	for i := range out {
		v, ok := m[strconv.Itoa(i)]
		if !ok {
			return nil, errors.New("calibration records: level keys must run from \"0\" to \"n-1\"")
		}
		out[i] = v
	}
	return out, nil
}

// SortCases puts the cases in the order of caseIDs (the receipt's case
// order), whatever order a concurrent run added them in; cases not named
// keep their order after the named ones.
func (s *Sidecar) SortCases(caseIDs []string) {
	rank := make(map[string]int, len(caseIDs))
	for i, id := range caseIDs {
		rank[id] = i
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sort.SliceStable(s.cases, func(a, b int) bool {
		ra, oka := rank[s.cases[a].CaseID]
		rb, okb := rank[s.cases[b].CaseID]
		switch {
		case oka && okb:
			return ra < rb
		default:
			return oka && !okb
		}
	})
}
