package calibration

import (
	"fmt"
	"strings"

	"github.com/typevet/typevet-go/judgment"
)

// Spec names one map a run applies: the question it calibrates, the map
// file and the SHA-256 of its bytes the caller pins.
type Spec struct {
	// Question is the name of the question the map calibrates.
	Question string
	// Path is the map file.
	Path string
	// SHA256 is the pinned digest of the file's bytes.
	SHA256 string
}

// SpecError is a -calibration value that cannot be parsed; it quotes the
// offending item, which holds a path and a digest, never a secret.
type SpecError struct {
	// Item is the comma-separated item at fault.
	Item string
	// Msg says what is wrong and what to write instead.
	Msg string
}

// Error returns the message with its item.
func (e *SpecError) Error() string { return fmt.Sprintf("calibration map %q: %s", e.Item, e.Msg) }

// ParseSpecs parses a list of maps, QUESTION=PATH@SHA256 items separated
// by commas, as a command's -calibration flag takes them:
//
//	payee_matches=maps/payee_matches_platt.json@79ab…,amounts_match=maps/amounts_match_platt.json@0c51…
//
// The digest is the one examples/calibrate printed when it wrote the map;
// a map is never used unpinned. A question named twice is refused.
func ParseSpecs(list string) ([]Spec, error) {
	var out []Spec
	seen := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		question, rest, ok := strings.Cut(item, "=")
		if !ok || question == "" {
			return nil, &SpecError{Item: item, Msg: "want QUESTION=PATH@SHA256, e.g. payee_matches=maps/payee_matches_platt.json@<the digest calibrate printed>"}
		}
		at := strings.LastIndex(rest, "@")
		if at <= 0 {
			return nil, &SpecError{Item: item, Msg: "the map is not pinned: add @SHA256, the digest calibrate printed for it"}
		}
		digest, err := NormalizeSHA256(rest[at+1:])
		if err != nil {
			return nil, &SpecError{Item: item, Msg: "the digest after @ is not 64 hex characters"}
		}
		if seen[question] {
			return nil, &SpecError{Item: item, Msg: "a second map for the same question"}
		}
		seen[question] = true
		out = append(out, Spec{Question: question, Path: rest[:at], SHA256: digest})
	}
	if len(out) == 0 {
		return nil, &SpecError{Msg: "no map given"}
	}
	return out, nil
}

// RunSettings are what a run declares before its first request.
type RunSettings struct {
	// TaskID is the task the run's maps must be fitted for ("check_match"
	// for a check-match run, the default examples/calibrate writes).
	TaskID string
	// Backend is the serving backend ("llama_cpp", "vllm", "fake",
	// "reader"), as the receipt records it.
	Backend string
	// Model is the model id the run sends.
	Model string
	// Questions are the questions every request asks.
	Questions []judgment.NamedQuestion
}

// ForRun loads the maps of specs and wraps inner with them for one run.
// Everything that can be checked before the first request is: each map's
// digest and document ([Load]), its task and backend ([New]), its model
// against the run's (a *[ModelMismatchError]; the wrapper checks each
// response again), that the run asks its question (a *[MapError]), and
// that the question is a Noul or Score of the map's kind and level count
// (a *[TargetError]). Errors name the question and the path.
func ForRun(inner judgment.Port, specs []Spec, run RunSettings) (*Judgment, error) {
	maps := make(map[string]*Map, len(specs))
	for _, s := range specs {
		m, err := Load(s.Path, s.SHA256)
		if err != nil {
			return nil, fmt.Errorf("calibration map %s for %q: %w", s.Path, s.Question, err)
		}
		var asked *judgment.NamedQuestion
		for i := range run.Questions {
			if run.Questions[i].Name == s.Question {
				asked = &run.Questions[i]
			}
		}
		if asked == nil {
			return nil, fmt.Errorf("calibration map %s: %w", s.Path, &MapError{Msg: fmt.Sprintf("the run asks no question %q", s.Question)})
		}
		if err := checkQuestion(m, *asked); err != nil {
			return nil, fmt.Errorf("calibration map %s: %w", s.Path, err)
		}
		if m.FittedOn.TaskID == run.TaskID && m.FittedOn.Backend == run.Backend && m.FittedOn.Model != run.Model {
			return nil, fmt.Errorf("calibration map %s: %w", s.Path, &ModelMismatchError{Field: "model", Question: s.Question})
		}
		maps[s.Question] = m
	}
	j, err := New(inner, maps, run.TaskID, run.Backend)
	if err != nil {
		return nil, fmt.Errorf("calibration maps: %w", err)
	}
	return j, nil
}
