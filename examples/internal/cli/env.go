package cli

import (
	"errors"
	"strings"

	"github.com/typevet/typevet-go/receipt"
)

// LiveDefaults are typevet's live-test defaults for a llama.cpp run, set
// only when the variable is absent.
var LiveDefaults = map[string]string{
	EnvLlamaModel: "gemma-4-31b-kv9-q4km-mm",
	EnvLlamaTime:  "900",
}

// Overlay returns the lookup a command reads its settings through: a
// variable in set (the flags given, by the variable each overrides) wins,
// then lookup (the environment), then defaults.
func Overlay(set map[string]string, lookup func(string) (string, bool), defaults map[string]string) func(string) (string, bool) {
	return func(key string) (string, bool) {
		if v, ok := set[key]; ok {
			return v, true
		}
		if v, ok := lookup(key); ok {
			return v, true
		}
		v, ok := defaults[key]
		return v, ok
	}
}

// NewReceiptPath reads the receipt path from the variable name (stripped)
// and refuses, as a [*UsageError], a blank one ("<name> not set") and one
// that names an existing file ("<name> must name a new file: <path>
// exists"), as typevet's live runs do, and one where no file can be
// written (a parent that is a file, a read-only directory), probed with
// [receipt.CheckWritable] before any network call.
func NewReceiptPath(env func(string) (string, bool), name string) (string, error) {
	path, _ := env(name)
	path = strings.TrimSpace(path)
	if path == "" {
		return "", Usagef("%s not set", name)
	}
	if err := receipt.CheckNew(path); err != nil {
		var ae *receipt.AlreadyExistsError
		if errors.As(err, &ae) {
			return "", Usagef("%s must name a new file: %s exists", name, path)
		}
		return "", Usagef("%s: %v", name, err)
	}
	if err := receipt.CheckWritable(path); err != nil {
		return "", Usagef("%s: no receipt can be written at %s: %v", name, path, errors.Unwrap(err))
	}
	return path, nil
}
