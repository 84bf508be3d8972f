package backend

import (
	"fmt"

	"github.com/typevet/typevet-go/judgment"
)

// Name is a judgment backend, as TYPEVET_BACKEND and receipts name it.
// The zero value is [LlamaCPP], typevet's default.
type Name int

// The backends.
const (
	// LlamaCPP is llama.cpp's llama-server ("llama_cpp").
	LlamaCPP Name = iota
	// VLLM is an OpenAI-compatible vLLM server ("vllm").
	VLLM
	// Fake is the offline deterministic backend ("fake").
	Fake
	// Reader is the built-in check reader ("reader", package
	// judgment/reader): it answers the check-match questions offline by
	// reading the check image.
	Reader
)

// String returns the receipt name: "llama_cpp", "vllm", "fake" or
// "reader".
func (n Name) String() string {
	switch n {
	case LlamaCPP:
		return "llama_cpp"
	case VLLM:
		return "vllm"
	case Fake:
		return "fake"
	case Reader:
		return "reader"
	}
	return fmt.Sprintf("Name(%d)", int(n))
}

// ParseName parses a TYPEVET_BACKEND value: "llama_cpp", "vllm", "fake"
// or "reader"; "" means llama_cpp. Matching is exact. Any other value is a
// [*judgment.SettingError] naming TYPEVET_BACKEND (not the value).
func ParseName(s string) (Name, error) {
	switch s {
	case "", "llama_cpp":
		return LlamaCPP, nil
	case "vllm":
		return VLLM, nil
	case "fake":
		return Fake, nil
	case "reader":
		return Reader, nil
	}
	return 0, &judgment.SettingError{Variable: "TYPEVET_BACKEND", Rule: "must be one of llama_cpp, vllm, fake, reader"}
}
