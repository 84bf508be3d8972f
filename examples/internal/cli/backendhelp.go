package cli

import (
	"fmt"
	"strings"

	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/judgment/llamacpp"
	"github.com/typevet/typevet-go/judgment/vllm"
)

// The backend variables that have a flag on the run commands, besides
// [EnvBackend], [EnvLlamaModel], [EnvVLLMModel], [EnvRevision] and
// [EnvServerArgs].
const (
	EnvLlamaURL = "TYPEVET_LLAMA__BASE_URL"
	EnvVLLMURL  = "TYPEVET_VLLM__BASE_URL"
	EnvVLLMTime = "TYPEVET_VLLM__TIMEOUT"
	EnvFakeDist = "TYPEVET_FAKE__DISTRIBUTIONS"
)

// Backends are the -backend names of a command, in -h order.
type Backends []backend.Name

// AllBackends are the backends of checkmatch and throughput.
var AllBackends = Backends{backend.LlamaCPP, backend.VLLM, backend.Fake, backend.Reader}

// names is "llama_cpp (default), vllm, fake or reader".
func (bs Backends) names() string {
	var s []string
	for _, b := range bs {
		n := b.String()
		if b == backend.LlamaCPP {
			n += " (default)"
		}
		s = append(s, n)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// has reports whether b is one of bs.
func (bs Backends) has(b backend.Name) bool {
	for _, x := range bs {
		if x == b {
			return true
		}
	}
	return false
}

// BackendFlags returns the flags of the backend settings a run command
// takes: -backend, -base-url, -model, -timeout, and -revision when bs
// holds vLLM. live says whether the command applies [LiveDefaults] (the
// llama.cpp model and a 900 s timeout).
func BackendFlags(bs Backends, live bool) []Flag {
	llamaModel, llamaTime := llamacpp.DefaultMultimodalModel, fmt.Sprint(llamacpp.DefaultTimeout.Seconds())
	if live {
		llamaModel, llamaTime = LiveDefaults[EnvLlamaModel], LiveDefaults[EnvLlamaTime]
	}
	urls, models, times := []string{EnvLlamaURL}, []string{EnvLlamaModel}, []string{EnvLlamaTime}
	urlDefault := llamacpp.DefaultBaseURL + " on llama_cpp"
	modelDefault := llamaModel + " on llama_cpp"
	timeDefault := llamaTime + " on llama_cpp"
	if bs.has(backend.VLLM) {
		urls, models, times = append(urls, EnvVLLMURL), append(models, EnvVLLMModel), append(times, EnvVLLMTime)
		urlDefault += "; required on vllm"
		modelDefault += "; required on vllm"
		timeDefault += fmt.Sprintf(", %v on vllm", vllm.DefaultTimeout.Seconds())
	}
	fs := []Flag{
		{Name: "backend", Arg: "NAME", Vars: []string{EnvBackend}, Usage: "the judge: " + bs.names()},
		{Name: "base-url", Arg: "URL", Vars: urls, Default: urlDefault, Usage: "the server's root URL, without /v1"},
		{Name: "model", Arg: "ID", Vars: models, Default: modelDefault, Usage: "the served model id"},
		{Name: "timeout", Arg: "SECONDS", Vars: times, Default: timeDefault, Usage: "time limit of each HTTP request"},
	}
	if bs.has(backend.VLLM) {
		fs = append(fs, Flag{Name: "revision", Arg: "REV", Vars: []string{EnvRevision}, Usage: "the served weights revision (required on vllm)"})
	}
	return append(fs, Flag{Name: "server-args", Arg: "TEXT", Vars: []string{EnvServerArgs},
		Usage: "the flags you started the server with, recorded verbatim in server_args"})
}

// BackendVars returns the variables without a flag a run command reads:
// the secrets and headers (never on a command line, where other users of
// the machine can read them), the fake's distributions and the git
// working-tree text.
func BackendVars(bs Backends) []Var {
	var vs []Var
	vs = append(vs, Var{EnvPorcelain, "the text of `git status --porcelain` for the receipt's working tree; unset: the command runs git itself"})
	if bs.has(backend.LlamaCPP) {
		vs = append(vs, Var{"TYPEVET_LLAMA__API_KEY", "the llama.cpp API key (never recorded); also AUTH_HEADER, AUTH_SCHEME, HEADERS, USER_AGENT"})
	}
	if bs.has(backend.VLLM) {
		vs = append(vs, Var{"TYPEVET_VLLM__API_KEY", "the vLLM API key (never recorded); also AUTH_HEADER, AUTH_SCHEME, HEADERS, USER_AGENT, REQUEST_ID_HEADER"})
	}
	if bs.has(backend.Fake) {
		vs = append(vs, Var{EnvFakeDist, "the fake's answer distributions, JSON; unset: uniform"})
	}
	return vs
}

// BackendNote is the -h paragraph that says what each backend of bs is
// and where it looks for its server.
func BackendNote(bs Backends) string {
	var lines []string
	lines = append(lines, "Backends:")
	for _, b := range bs {
		switch b {
		case backend.LlamaCPP:
			lines = append(lines, "  llama_cpp  a llama-server at "+EnvLlamaURL+" (default "+llamacpp.DefaultBaseURL+")")
		case backend.VLLM:
			lines = append(lines, "  vllm       a vLLM server at "+EnvVLLMURL+" serving "+EnvVLLMModel+" (both required)")
		case backend.Fake:
			lines = append(lines, "  fake       offline, answers from "+EnvFakeDist)
		case backend.Reader:
			lines = append(lines, "  reader     offline, the built-in check reader (judgment/reader): no server, no model")
		}
	}
	return strings.Join(lines, "\n")
}

// ExitNote is the -h paragraph on the exit status of a run command.
const ExitNote = `Exit status: 0 on success; 2 on a usage error (nothing sent, nothing
written); 1 when the run fails (a run stopped by a backend failure or
Ctrl-C still writes its receipt; a second Ctrl-C quits at once and writes
nothing). Under "go run" a status of 2 prints "exit status 2" and go run
itself exits 1; build the command (go build) to see the status.`
