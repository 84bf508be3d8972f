package cli

import (
	"errors"
	"fmt"
	"io"
)

// UsageError is a refused setting or command line: exit status 2, nothing
// sent, nothing written.
type UsageError struct {
	// Msg is the message; it names the setting, never a secret.
	Msg string
}

// Error returns Msg.
func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a *UsageError with a formatted message.
func Usagef(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

// Usage returns err as a *UsageError with its message (nil for nil).
func Usage(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{Msg: err.Error()}
}

// ExitCode prints run's error to stderr and returns the exit status: 0 for
// nil; 2 for a [*UsageError], printed after usageLine as
// "<prog>: error: <msg>"; 1 for any other error, printed as
// "<prog>: <err>".
func ExitCode(err error, stderr io.Writer, prog, usageLine string) int {
	var ue *UsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, new(*CompleteError)):
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s\n%s: error: %s\n", usageLine, prog, ue.Msg)
		return 2
	default:
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return 1
	}
}
