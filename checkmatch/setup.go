package checkmatch

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

// Input is one caller-supplied text that a receipt records: the stated
// server arguments, the `git status --porcelain` text, the model name, the
// weights revision, a file name.
type Input struct {
	// Name is how the caller knows the text, such as the environment
	// variable or flag it came from; errors name it.
	Name string
	// Text is the text as the receipt would record it.
	Text string
}

// InputNotKeyFreeError reports a caller-supplied text that would make the
// receipt fail its key-free check ([receipt.CheckKeyFree]). It names the
// input, never its text.
type InputNotKeyFreeError struct {
	// Name is the input's name ([Input].Name).
	Name string
	// Reason is the rule that refused it: "a configured secret",
	// "authorization" or "bearer ".
	Reason string
}

// Error returns "<name> holds a key or an auth header (<reason>); the
// receipt records it, so it would not be key-free: remove it".
func (e *InputNotKeyFreeError) Error() string {
	return fmt.Sprintf("%s holds a key or an auth header (%q); the receipt records it, so it would not be key-free: remove it", e.Name, e.Reason)
}

// CheckInputsKeyFree applies the receipt's key-free rule
// ([receipt.CheckKeyFree]) to each input on its own, in order, with the
// session's secrets (API key and extra header values, known from the
// backend settings before the session opens). Call it before any network
// call: typevet checks only the finished receipt, so a key in the stated
// server arguments cost the whole run; here the run is refused before it
// starts, with an [*InputNotKeyFreeError] naming the first such input.
func CheckInputsKeyFree(secrets []string, inputs ...Input) error {
	for _, in := range inputs {
		b, err := receipt.Marshal(in.Text)
		if err != nil {
			return fmt.Errorf("%s: %w", in.Name, err)
		}
		if err := receipt.CheckKeyFree(b, secrets); err != nil {
			var reason string
			if nk := (*receipt.NotKeyFreeError)(nil); errors.As(err, &nk) {
				reason = nk.Reason
			}
			return &InputNotKeyFreeError{Name: in.Name, Reason: reason}
		}
	}
	return nil
}

// OfflineServerEntry returns the pins.server entry of a backend that judges
// without a server, such as the built-in check reader: no served models,
// build_info = version, and backend_pin = pin as a JSON object
// ([serving.ServerEntry].BackendPin; for the reader pass
// reader.Options{}.Pin() and its Version). It fails when pin does not
// marshal to a JSON object.
func OfflineServerEntry(version string, pin any) (*serving.ServerEntry, error) {
	b, err := json.Marshal(pin)
	if err != nil {
		return nil, fmt.Errorf("backend pin: %w", err)
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("backend pin: not a JSON object")
	}
	return &serving.ServerEntry{Served: []serving.ServedModel{}, BuildInfo: version, BackendPin: b}, nil
}
