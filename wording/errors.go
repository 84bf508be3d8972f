package wording

import "fmt"

// ValueError is a refusal of a wording value: an unknown or missing part, a
// bad selection, a changed frozen part, an empty proposal, mismatched texts.
// It is Python's ValueError in typevet. Msg names a part, label, level, field
// or type, never a text.
type ValueError struct {
	Msg string // the whole message, naming what was refused but never a text
}

// Error returns Msg.
func (e *ValueError) Error() string { return e.Msg }

// TypeError is a refusal of a value of the wrong type: a part or criterion
// that is not text, an artifact field of the wrong JSON type. It is Python's
// TypeError in typevet. Msg never holds the offending value.
type TypeError struct {
	Msg string // the whole message, naming the part or field and the type it needs
}

// Error returns Msg.
func (e *TypeError) Error() string { return e.Msg }

// SettingsError is a bad TYPEVET_* setting. It names the variable and never
// holds its value.
type SettingsError struct {
	Variable string // the environment variable, e.g. "TYPEVET_OLLAMA_TIMEOUT"
	Msg      string // the full message, starting with the variable name
}

// Error returns Msg.
func (e *SettingsError) Error() string { return e.Msg }

// OllamaError is a failed Ollama identity read. It names the endpoint and,
// for a non-2xx answer, the status; it never holds a response body, a model
// name or a digest.
type OllamaError struct {
	Endpoint   string // "/api/version" or "/api/tags"
	StatusCode int    // HTTP status of a non-2xx answer; 0 otherwise
	Msg        string // the whole message, starting "Ollama GET <endpoint>: " or naming /api/tags
	Err        error  // the transport error, if any
}

// Error returns Msg.
func (e *OllamaError) Error() string { return e.Msg }

// Unwrap returns the transport error, if any.
func (e *OllamaError) Unwrap() error { return e.Err }

func valueErr(format string, args ...any) error {
	return &ValueError{Msg: fmt.Sprintf(format, args...)}
}

func typeErr(format string, args ...any) error {
	return &TypeError{Msg: fmt.Sprintf(format, args...)}
}
