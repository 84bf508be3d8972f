package receipt

import "fmt"

// NotKeyFreeError reports a receipt refused before it was written because
// its text holds a configured secret, "authorization" or "bearer ". The message is typevet's, verbatim, and never quotes the
// offending text.
type NotKeyFreeError struct {
	// Reason names the rule that refused the text: "a configured secret",
	// "authorization" or "bearer ". It never holds the secret itself.
	Reason string
}

// Error returns typevet's fixed message "receipt is not key-free: it holds
// a key or an auth header"; it names neither the rule nor the text.
func (e *NotKeyFreeError) Error() string {
	return "receipt is not key-free: it holds a key or an auth header"
}

// AlreadyExistsError reports that a receipt path already names a file (or
// any directory entry); receipts are never overwritten.
type AlreadyExistsError struct {
	// Path is the receipt path as given.
	Path string
}

// Error returns "receipt already exists: " and the path as given.
func (e *AlreadyExistsError) Error() string {
	return fmt.Sprintf("receipt already exists: %s", e.Path)
}

// WriteError reports a receipt write that failed after its checks passed:
// creating the parent directories, creating, writing, syncing, closing or
// linking the file into place. No partial file is left behind.
type WriteError struct {
	// Path is the receipt path as given.
	Path string
	// Op names the failed step: "mkdir", "probe" ([CheckWritable]),
	// "create", "write", "sync", "close" or "link" (putting the written
	// temporary file in place).
	Op string
	// Err is the underlying error.
	Err error
}

// Error returns "receipt <op> <path>: " followed by the underlying error's
// text.
func (e *WriteError) Error() string {
	return fmt.Sprintf("receipt %s %s: %v", e.Op, e.Path, e.Err)
}

// Unwrap returns the underlying error.
func (e *WriteError) Unwrap() error { return e.Err }
