package judgment

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"unicode/utf16"
)

// maskText replaces secret occurrences.
const maskText = "***"

// MaskSecrets returns a copy of err with every occurrence of each
// non-empty secret, and of its JSON-escaped and URL-escaped forms
// (url.QueryEscape, url.PathEscape), replaced by "***" (longest needle
// first) in the message and in every string field (including BodySnippet,
// RateLimit names and values and RequestID). Every error is masked, not
// only this package's:
//
//   - An error of this package, or one that wraps an error of this package
//     (fmt.Errorf("...: %w", e)), becomes a copy of the (first wrapped)
//     class whose message is the masked text of the whole of err, so no
//     context is lost and no wrapper survives.
//   - Any other error becomes a [*MaskedError] holding the masked text.
//     It is not a generation error ([IsGenerationError] false, [ErrorClass]
//     ""), just as the original was not.
//
// The copy has no cause chain, since a client error can hold request
// headers, with one exception: a [*TransportError] or [*MaskedError] made
// from an error for which errors.Is(err, context.Canceled) or
// errors.Is(err, context.DeadlineExceeded) held unwraps to that sentinel
// alone, so cancellation checks keep working. nil, and any error when no
// secret is non-empty, pass through unchanged.
func MaskSecrets(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	needles := secretNeedles(secrets)
	if len(needles) == 0 {
		return err
	}
	m := func(s string) string {
		for _, n := range needles {
			s = strings.ReplaceAll(s, n, maskText)
		}
		return s
	}
	var c classed
	if !errors.As(err, &c) {
		return &MaskedError{Class: fmt.Sprintf("%T", err), Msg: m(err.Error()), ctx: contextCause(err)}
	}
	msg := m(err.Error())
	switch e := c.(type) {
	case *TransportError:
		return &TransportError{Msg: msg, RequestID: m(e.RequestID), Err: contextCause(err)}
	case *BackendHTTPError:
		out := &BackendHTTPError{
			Backend:           m(e.Backend),
			StatusCode:        e.StatusCode,
			Msg:               msg,
			BodySnippet:       m(e.BodySnippet),
			RetryAfterSeconds: copyFloat(e.RetryAfterSeconds),
			RequestID:         m(e.RequestID),
		}
		if e.RateLimit != nil {
			out.RateLimit = make([][2]string, len(e.RateLimit))
			for i, kv := range e.RateLimit {
				out.RateLimit[i] = [2]string{m(kv[0]), m(kv[1])}
			}
		}
		return out
	case *GenerationError:
		return &GenerationError{Msg: msg}
	case *SchemaValidationError:
		return &SchemaValidationError{Msg: msg}
	case *GenerationUnsupportedCapabilityError:
		return &GenerationUnsupportedCapabilityError{Msg: msg}
	case *DecisionExecutionError:
		return &DecisionExecutionError{Msg: msg}
	case *ScoringError:
		return &ScoringError{Msg: msg}
	case *ScoringValidationError:
		return &ScoringValidationError{Msg: msg}
	case *ScoringUnsupportedCapabilityError:
		return &ScoringUnsupportedCapabilityError{Msg: msg}
	case *JudgmentError:
		return &JudgmentError{Msg: msg}
	case *JudgmentValidationError:
		return &JudgmentValidationError{Msg: msg}
	case *GemmaTemplateError:
		return &GemmaTemplateError{Msg: msg}
	}
	// Every class of this package is listed above.
	panic(fmt.Sprintf("judgment: MaskSecrets: unhandled class %T", c))
}

// MaskedError is what [MaskSecrets] makes of an error that is not of this
// package: the masked message and nothing else of the original. It is not
// a generation error: [IsGenerationError] reports false and [ErrorClass]
// "" for it, as they did for the original, so a runner still treats it as
// a bug or bad input rather than a backend failure.
type MaskedError struct {
	// Class is the Go type of the original error, as %T prints it
	// ("*errors.errorString", "*fmt.wrapError"); a type name holds no
	// secret.
	Class string
	// Msg is the original error's message with every secret masked.
	Msg string
	// ctx is context.Canceled, context.DeadlineExceeded, both joined, or
	// nil: the sentinels the original matched under errors.Is.
	ctx error
}

// Error returns the masked message.
func (e *MaskedError) Error() string { return e.Msg }

// Unwrap returns the context sentinel the original error matched
// (context.Canceled or context.DeadlineExceeded), or nil: nothing else of
// the original chain is kept.
func (e *MaskedError) Unwrap() error { return e.ctx }

// contextCause returns the context sentinels err matches under errors.Is:
// context.Canceled, context.DeadlineExceeded, both joined, or nil.
func contextCause(err error) error {
	canceled := errors.Is(err, context.Canceled)
	deadline := errors.Is(err, context.DeadlineExceeded)
	switch {
	case canceled && deadline:
		return errors.Join(context.Canceled, context.DeadlineExceeded)
	case canceled:
		return context.Canceled
	case deadline:
		return context.DeadlineExceeded
	}
	return nil
}

// secretNeedles returns every non-empty secret with its JSON-escaped forms
// (Python's json.dumps with ensure_ascii, and Go's encoding/json with HTML
// escaping) and its URL-escaped forms (query and path escaping, as a key
// in a request URL appears in a *url.Error), deduplicated, longest first.
func secretNeedles(secrets []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, s := range secrets {
		add(s)
		add(jsonEscape(s, false))
		add(jsonEscape(s, true))
		add(url.QueryEscape(s))
		add(url.PathEscape(s))
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// jsonEscape returns the body of s as a JSON string literal, without the
// quotes: as Python's json.dumps writes it (non-ASCII as \uXXXX), or, with
// goStyle, as Go's encoding/json writes it (<, >, & and U+2028/U+2029
// escaped, other non-ASCII kept).
func jsonEscape(s string, goStyle bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		case goStyle && (r == '<' || r == '>' || r == '&' || r == 0x2028 || r == 0x2029):
			fmt.Fprintf(&b, `\u%04x`, r)
		case !goStyle && r > 0x7f:
			if r >= 0x10000 {
				hi, lo := utf16.EncodeRune(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// MaskPort wraps p so that every error it returns passes through
// [MaskSecrets] with secrets. Successful responses are never altered.
// With no non-empty secret it returns p itself.
func MaskPort(p Port, secrets []string) Port {
	if len(secretNeedles(secrets)) == 0 {
		return p
	}
	secrets = append([]string(nil), secrets...)
	return PortFunc(func(ctx context.Context, req Request) (Response, error) {
		resp, err := p.Judge(ctx, req)
		if err != nil {
			return resp, MaskSecrets(err, secrets)
		}
		return resp, nil
	})
}
