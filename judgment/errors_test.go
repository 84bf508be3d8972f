package judgment_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

func TestErrorClasses(t *testing.T) {
	// Python subclassing: every class is a GenerationError; the scoring and
	// judgment classes also match their intermediate umbrella.
	tests := []struct {
		name     string
		err      error
		class    string
		scoring  bool
		judgment bool
	}{
		{name: "generation", err: &judgment.GenerationError{Msg: "m"}, class: "GenerationError"},
		{name: "transport", err: &judgment.TransportError{Msg: "m", Err: io.ErrUnexpectedEOF}, class: "TransportError"},
		{name: "http", err: &judgment.BackendHTTPError{Msg: "m", StatusCode: 500}, class: "BackendHttpError"},
		{name: "schema", err: &judgment.SchemaValidationError{Msg: "m"}, class: "SchemaValidationError"},
		{name: "generation capability", err: &judgment.GenerationUnsupportedCapabilityError{Msg: "m"}, class: "GenerationUnsupportedCapabilityError"},
		{name: "decision", err: &judgment.DecisionExecutionError{Msg: "m"}, class: "DecisionExecutionError"},
		{name: "scoring", err: &judgment.ScoringError{Msg: "m"}, class: "ScoringError", scoring: true},
		{name: "scoring validation", err: &judgment.ScoringValidationError{Msg: "m"}, class: "ScoringValidationError", scoring: true},
		{name: "scoring capability", err: &judgment.ScoringUnsupportedCapabilityError{Msg: "m"}, class: "ScoringUnsupportedCapabilityError", scoring: true},
		{name: "judgment", err: &judgment.JudgmentError{Msg: "m"}, class: "JudgmentError", judgment: true},
		{name: "judgment validation", err: &judgment.JudgmentValidationError{Msg: "m"}, class: "JudgmentValidationError", judgment: true},
		{name: "gemma template", err: &judgment.GemmaTemplateError{Msg: "m"}, class: "GemmaTemplateError", judgment: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, err := range []error{tt.err, fmt.Errorf("wrapped: %w", tt.err)} {
				if !judgment.IsGenerationError(err) {
					t.Errorf("IsGenerationError(%v) = false", err)
				}
				if got := judgment.ErrorClass(err); got != tt.class {
					t.Errorf("ErrorClass = %q, want %q", got, tt.class)
				}
				var ge *judgment.GenerationError
				if !errors.As(err, &ge) || ge.Msg != "m" {
					t.Errorf("errors.As(*GenerationError) = %v", ge)
				}
				var se *judgment.ScoringError
				if errors.As(err, &se) != tt.scoring {
					t.Errorf("errors.As(*ScoringError) = %v, want %v", !tt.scoring, tt.scoring)
				}
				var je *judgment.JudgmentError
				if errors.As(err, &je) != tt.judgment {
					t.Errorf("errors.As(*JudgmentError) = %v, want %v", !tt.judgment, tt.judgment)
				}
			}
		})
	}
}

func TestNotGenerationErrors(t *testing.T) {
	for _, err := range []error{nil, io.EOF, fmt.Errorf("x: %w", io.EOF)} {
		if judgment.IsGenerationError(err) || judgment.ErrorClass(err) != "" {
			t.Errorf("%v classified as a generation error", err)
		}
	}
}

func TestTransportErrorUnwrap(t *testing.T) {
	err := &judgment.TransportError{Msg: "read failed", Err: io.ErrUnexpectedEOF}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Error("TransportError does not unwrap to its cause")
	}
}
