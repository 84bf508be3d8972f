package backend

import (
	"fmt"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/fake"
	"github.com/typevet/typevet-go/judgment/llamacpp"
	"github.com/typevet/typevet-go/judgment/vllm"
)

// Settings selects a backend and holds its settings. Only the selected
// backend's field is used. Settings never print secrets.
type Settings struct {
	// Backend is the selected backend; the zero value is llama_cpp.
	Backend Name
	// LlamaCPP configures the llama.cpp backend.
	LlamaCPP llamacpp.Settings
	// VLLM configures the vLLM backend.
	VLLM vllm.Settings
	// Fake configures the offline backend.
	Fake fake.Settings
}

// SettingsFromEnv builds Settings from environment variables read through
// lookup (pass [os.LookupEnv]): TYPEVET_BACKEND selects the backend (empty
// or unset: llama_cpp; also "vllm", "fake" and "reader"), and only the
// selected backend's variables are read (TYPEVET_LLAMA__*, TYPEVET_VLLM__*
// or TYPEVET_FAKE__DISTRIBUTIONS; the reader reads none), so a llama.cpp
// run needs no vLLM variable. Errors name the variable, never its
// value, and carry no cause.
func SettingsFromEnv(lookup func(string) (string, bool)) (Settings, error) {
	v, _ := lookup("TYPEVET_BACKEND")
	name, err := ParseName(v)
	if err != nil {
		return Settings{}, err
	}
	s := Settings{Backend: name}
	switch name {
	case LlamaCPP:
		s.LlamaCPP, err = llamacpp.SettingsFromEnv(lookup)
	case VLLM:
		s.VLLM, err = vllm.SettingsFromEnv(lookup)
	case Fake:
		s.Fake, err = fake.SettingsFromEnv(lookup)
	}
	if err != nil {
		return Settings{}, err
	}
	return s, nil
}

// Secrets returns the secrets of the selected backend, known before a
// session opens: the API key and extra header values of the llama.cpp or
// vLLM settings ([judgment.Auth.Secrets]); none for the fake and the
// reader. An opened [Session] reports the same ([Session.Secrets]).
func (s Settings) Secrets() judgment.Secrets {
	switch s.Backend {
	case LlamaCPP:
		return s.LlamaCPP.Secrets()
	case VLLM:
		return s.VLLM.Secrets()
	}
	return judgment.Secrets{}
}

// String returns s without secrets.
func (s Settings) String() string { return fmt.Sprint(s) }

// GoString returns a Go-syntax form of s without secrets.
func (s Settings) GoString() string { return fmt.Sprintf("%#v", s) }

// Format prints s for every verb without secrets: the backend settings
// print through their own Format, which masks the key and header values.
func (s Settings) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		fmt.Fprintf(f, "backend.Settings{Backend:%d, LlamaCPP:%#v, VLLM:%#v, Fake:%#v}", int(s.Backend), s.LlamaCPP, s.VLLM, s.Fake)
	case verb == 'v' && f.Flag('+'):
		fmt.Fprintf(f, "{Backend:%s LlamaCPP:%+v VLLM:%+v Fake:%+v}", s.Backend, s.LlamaCPP, s.VLLM, s.Fake)
	default:
		fmt.Fprintf(f, "{%s %v %v %v}", s.Backend, s.LlamaCPP, s.VLLM, s.Fake)
	}
}
