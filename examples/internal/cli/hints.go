package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/judgment/backend"
)

// backendPrefixes are the variable prefixes of each backend's own
// settings.
var backendPrefixes = map[backend.Name]string{
	backend.LlamaCPP: "TYPEVET_LLAMA__",
	backend.VLLM:     "TYPEVET_VLLM__",
	backend.Fake:     "TYPEVET_FAKE__",
}

// backendVars are the variables of each backend's settings that a
// warning looks for (the lookup cannot list the environment).
func backendVars(b backend.Name) []string {
	p, ok := backendPrefixes[b]
	if !ok {
		return nil
	}
	if b == backend.Fake {
		return []string{EnvFakeDist}
	}
	names := backendhttp.EnvNames(p)
	vs := []string{p + "BASE_URL", p + "MODEL", p + "TIMEOUT"}
	if b == backend.LlamaCPP {
		vs = []string{p + "BASE_URL", p + "MULTIMODAL_MODEL", p + "DEFAULT_MODEL", p + "TIMEOUT"}
	}
	vs = append(vs, names.APIKey, names.AuthHeader, names.AuthScheme, names.Headers, names.UserAgent)
	if b == backend.VLLM {
		vs = append(vs, p+"REQUEST_ID_HEADER", p+"MAX_CONCURRENCY")
	}
	return vs
}

// Warnings returns the warnings about settings that the run of s will
// not use or that look wrong: another backend's variables set in environ
// (the environment alone, [Env.Environ]; typevet reads only the selected
// backend's), and a base URL ending in /v1 (the client adds /v1 itself).
func Warnings(environ func(string) (string, bool), s backend.Settings) []string {
	var out []string
	for _, other := range []backend.Name{backend.LlamaCPP, backend.VLLM, backend.Fake} {
		if other == s.Backend {
			continue
		}
		var set []string
		for _, v := range backendVars(other) {
			if _, ok := environ(v); ok {
				set = append(set, v)
			}
		}
		if len(set) > 0 {
			out = append(out, fmt.Sprintf("warning: %s set, but the backend is %s: they are ignored (for %s set -backend %s or %s=%s)",
				strings.Join(set, ", "), s.Backend, other, other, EnvBackend, other))
		}
	}
	var base string
	switch s.Backend {
	case backend.LlamaCPP:
		base = s.LlamaCPP.BaseURL
	case backend.VLLM:
		base = s.VLLM.BaseURL
	}
	if strings.HasSuffix(base, "/v1") {
		out = append(out, fmt.Sprintf("warning: the base URL ends in /v1, so requests go to %s/v1/...: give the server's root URL (drop the /v1)",
			base))
	}
	return out
}

// Explain adds what to do to an error of opening or talking to the
// server of settings s: a refused or unreachable connection names the URL
// variable (or flag) and says that -backend reader runs offline; a timeout
// names the timeout setting and its value. Other errors come back as they
// are. detail, when not "", is classified with err (the message of a
// receipt's stopped record, which err does not carry). name is [Env.Name]
// (nil: the variables' names).
func Explain(err error, detail string, s backend.Settings, name func(string) string) error {
	if err == nil || (s.Backend != backend.LlamaCPP && s.Backend != backend.VLLM) {
		return err
	}
	if name == nil {
		name = func(v string) string { return v }
	}
	urlVar, timeVar, timeout := EnvLlamaURL, EnvLlamaTime, s.LlamaCPP.Timeout
	base := s.LlamaCPP.BaseURL
	if s.Backend == backend.VLLM {
		urlVar, timeVar, timeout, base = EnvVLLMURL, EnvVLLMTime, s.VLLM.Timeout, s.VLLM.BaseURL
	}
	cause := err
	if detail != "" {
		cause = errors.Join(err, errors.New(detail))
	}
	switch {
	case unreachable(cause):
		return fmt.Errorf("%w\nno %s server answers at %s: start it, or point %s at it; -backend reader judges offline with no server",
			err, s.Backend, backendhttp.PrintableURL(base), name(urlVar))
	case timedOut(cause):
		how := name(timeVar) + ", in seconds"
		if strings.Contains(how, " or ") {
			how = "the default; set " + how
		}
		return fmt.Errorf("%w\na request took longer than the timeout, %v s (%s); raise it for a slow server",
			err, timeout.Seconds(), how)
	}
	return err
}

// unreachable reports whether err is a refused, unroutable or
// unresolvable connection.
func unreachable(err error) bool {
	var dnsErr *net.DNSError
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) || errors.As(err, &dnsErr) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "connection refused") || strings.Contains(msg, "no such host")
}

// timedOut reports whether err is a deadline or a client timeout.
func timedOut(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "context deadline exceeded") || strings.Contains(msg, "Client.Timeout exceeded")
}
