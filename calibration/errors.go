package calibration

import (
	"fmt"

	"github.com/typevet/typevet-go/judgment"
)

// MapError is typevet's CalibrationMapError: a map file or document that
// fails validation, or a map collection the wrapper cannot take. Field
// names the offending field ("parameters.knots", "fitted_on.task_id") when
// one field is at fault; the message names fields and rules only, never a
// value.
type MapError struct {
	// Field is the dotted name of the invalid field; "" when the error is
	// about the whole document or collection.
	Field string
	// Msg is the message when Field is "".
	Msg string
}

// Error returns typevet's message: "calibration map field 'F' is invalid"
// for a field, else Msg.
func (e *MapError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("calibration map field '%s' is invalid", e.Field)
	}
	return e.Msg
}

// DigestError is typevet's CalibrationDigestError: the SHA-256 a caller
// pins is missing or malformed, or the file bytes have another digest.
type DigestError struct {
	// Msg is typevet's message.
	Msg string
}

// Error returns Msg.
func (e *DigestError) Error() string { return e.Msg }

// TargetError is typevet's CalibrationTargetError: a mapped question is a
// Choice, or its kind or level count does not match the map, before the
// inner call; or a mapped answer does not match the map after it.
type TargetError struct {
	// Question is the name of the mapped question.
	Question string
}

// Error returns typevet's message and the question's name.
func (e *TargetError) Error() string {
	return fmt.Sprintf("calibration map kind does not match the question %q", e.Question)
}

// Unwrap reports the refusal as a [judgment.JudgmentValidationError], so a
// runner stops the run on it and keeps what it has, as on any refused
// request shape.
func (e *TargetError) Unwrap() error { return &judgment.JudgmentValidationError{Msg: e.Error()} }

// TaskMismatchError is typevet's CalibrationTaskMismatchError: a map was
// fitted for another task than the wrapper's.
type TaskMismatchError struct {
	// Question is the name the map was given for.
	Question string
}

// Error returns typevet's message and the question's name.
func (e *TaskMismatchError) Error() string {
	return fmt.Sprintf("calibration map task does not match the wrapper task_id (question %q)", e.Question)
}

// ModelMismatchError is typevet's CalibrationModelMismatchError: a map was
// fitted on another backend than the wrapper declares (at construction),
// or a response comes from another model than a map's (per response).
type ModelMismatchError struct {
	// Field is "backend" or "model".
	Field string
	// Question is the name of the map that does not match.
	Question string
}

// Error returns typevet's message for Field.
func (e *ModelMismatchError) Error() string {
	if e.Field == "backend" {
		return fmt.Sprintf("calibration map backend does not match the wrapper backend (question %q)", e.Question)
	}
	return fmt.Sprintf("calibration map model does not match the judgment model (question %q)", e.Question)
}

// Unwrap reports a per-response model mismatch as a
// [judgment.JudgmentValidationError] (a contract-breaking response), so a
// runner stops the run on it and keeps what it has.
func (e *ModelMismatchError) Unwrap() error {
	return &judgment.JudgmentValidationError{Msg: e.Error()}
}
