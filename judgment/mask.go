package judgment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/typevet/typevet-go/internal/pyjson"
)

// maskText replaces secret occurrences.
const maskText = "***"

// Secrets are the values kept out of errors: the API key and
// the extra header values of a session. The zero value masks nothing.
//
// A key is masked everywhere it occurs, in its raw, JSON-escaped and
// URL-escaped forms: keys are long and random. An extra header value is
// often a short everyday word ("prod", "1"), so it is masked only as a
// whole token: an occurrence (in any of the same forms) that no letter or
// digit (Unicode) touches on either side. With the header value "prod",
// "team prod-1 over quota" becomes "team ***-1 over quota" while
// "production" is left alone; with the header value "1", "HTTP 501" stays
// "HTTP 501" and "retry 1 of 3" becomes "retry *** of 3".
type Secrets struct {
	// Keys are masked wherever they occur.
	Keys []string
	// HeaderValues are masked as whole tokens.
	HeaderValues []string
}

// needle is one form of one secret.
type needle struct {
	text  string
	token bool // whole-token match only
}

// needles returns every non-empty secret in all its forms, deduplicated
// (a form that is both a key and a header value is a key), longest first.
func (s Secrets) needles() []needle {
	var out []needle
	idx := map[string]int{}
	add := func(text string, token bool) {
		if text == "" {
			return
		}
		if i, ok := idx[text]; ok {
			out[i].token = out[i].token && token
			return
		}
		idx[text] = len(out)
		out = append(out, needle{text, token})
	}
	for _, k := range s.Keys {
		for _, f := range secretForms(k) {
			add(f, false)
		}
	}
	for _, v := range s.HeaderValues {
		for _, f := range secretForms(v) {
			add(f, true)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].text) > len(out[j].text) })
	return out
}

// Redact returns text with every secret replaced by "***" (see [Secrets]).
func (s Secrets) Redact(text string) string { return redact(text, s.needles()) }

func redact(text string, needles []needle) string {
	for _, n := range needles {
		if n.token {
			text = replaceTokens(text, n.text)
		} else {
			text = strings.ReplaceAll(text, n.text, maskText)
		}
	}
	return text
}

// replaceTokens replaces each occurrence of v in text that no letter or
// digit touches on either side.
func replaceTokens(text, v string) string {
	var b strings.Builder
	last, from := 0, 0
	for {
		i := strings.Index(text[from:], v)
		if i < 0 {
			break
		}
		i += from
		j := i + len(v)
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[j:])
		if i > 0 && isAlnum(before) || j < len(text) && isAlnum(after) {
			from = i + 1
			continue
		}
		b.WriteString(text[last:i])
		b.WriteString(maskText)
		last, from = j, j
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Mask returns a copy of err with every occurrence of each secret (see
// [Secrets] for what counts as an occurrence) replaced by "***" (longest
// needle first) in the message and in every string field (including
// BodySnippet, RateLimit names and values and RequestID). Every error is
// masked, not only this package's:
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
func (s Secrets) Mask(err error) error {
	if err == nil {
		return nil
	}
	needles := s.needles()
	if len(needles) == 0 {
		return err
	}
	m := func(s string) string { return redact(s, needles) }
	var c classed
	if !errors.As(err, &c) {
		return &MaskedError{Class: fmt.Sprintf("%T", err), Msg: m(err.Error()), ctx: contextCause(err)}
	}
	return c.masked(m(err.Error()), m, contextCause(err))
}

// masked returns a copy of the class with message msg and every string
// field passed through m; cause is the context sentinel a TransportError
// keeps (see [Secrets.Mask]). Every class implements it as part of
// classed, so a new class cannot be left out of masking.
func (e *TransportError) masked(msg string, m func(string) string, cause error) error {
	return &TransportError{Msg: msg, RequestID: m(e.RequestID), Err: cause}
}

func (e *BackendHTTPError) masked(msg string, m func(string) string, _ error) error {
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
}

func (e *GenerationError) masked(msg string, _ func(string) string, _ error) error {
	return &GenerationError{Msg: msg}
}

func (e *SchemaValidationError) masked(msg string, _ func(string) string, _ error) error {
	return &SchemaValidationError{Msg: msg}
}

func (e *GenerationUnsupportedCapabilityError) masked(msg string, _ func(string) string, _ error) error {
	return &GenerationUnsupportedCapabilityError{Msg: msg}
}

func (e *DecisionExecutionError) masked(msg string, _ func(string) string, _ error) error {
	return &DecisionExecutionError{Msg: msg}
}

func (e *ScoringError) masked(msg string, _ func(string) string, _ error) error {
	return &ScoringError{Msg: msg}
}

func (e *ScoringValidationError) masked(msg string, _ func(string) string, _ error) error {
	return &ScoringValidationError{Msg: msg}
}

func (e *ScoringUnsupportedCapabilityError) masked(msg string, _ func(string) string, _ error) error {
	return &ScoringUnsupportedCapabilityError{Msg: msg}
}

func (e *JudgmentError) masked(msg string, _ func(string) string, _ error) error {
	return &JudgmentError{Msg: msg}
}

func (e *JudgmentValidationError) masked(msg string, _ func(string) string, _ error) error {
	return &JudgmentValidationError{Msg: msg}
}

func (e *GemmaTemplateError) masked(msg string, _ func(string) string, _ error) error {
	return &GemmaTemplateError{Msg: msg}
}

// MaskedError is what [Secrets.Mask] makes of an error that is not of this
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

// secretForms returns a secret with its JSON-escaped forms (as typevet's
// json.dumps writes it with ensure_ascii, and as Go's encoding/json writes
// it, HTML-escaped) and its URL-escaped forms (query and path escaping, as
// a key in a request URL appears in a *url.Error).
func secretForms(s string) []string {
	return []string{s, jsonForm(pyjson.Marshal(s, pyjson.Options{EnsureASCII: true})), jsonForm(json.Marshal(s)),
		url.QueryEscape(s), url.PathEscape(s)}
}

// jsonForm returns the body of a marshaled JSON string, without the
// quotes; "" (no form) when s could not be marshaled (pyjson refuses
// invalid UTF-8, which no Python string holds).
func jsonForm(b []byte, err error) string {
	if err != nil || len(b) < 2 {
		return ""
	}
	return string(b[1 : len(b)-1])
}

// Clone returns a copy of s that shares no slice with it.
func (s Secrets) Clone() Secrets {
	return Secrets{Keys: slices.Clone(s.Keys), HeaderValues: slices.Clone(s.HeaderValues)}
}

// Values returns every non-empty secret, keys first: the list a receipt's
// key-free check looks for (receipt.CheckKeyFree), each value wherever
// it occurs.
func (s Secrets) Values() []string {
	var out []string
	for _, v := range slices.Concat(s.Keys, s.HeaderValues) {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Every error class is a classed, so [Secrets.Mask] copies each one.
var _ = []classed{
	(*GenerationError)(nil), (*TransportError)(nil), (*BackendHTTPError)(nil),
	(*SchemaValidationError)(nil), (*GenerationUnsupportedCapabilityError)(nil),
	(*DecisionExecutionError)(nil), (*ScoringError)(nil), (*ScoringValidationError)(nil),
	(*ScoringUnsupportedCapabilityError)(nil), (*JudgmentError)(nil),
	(*JudgmentValidationError)(nil), (*GemmaTemplateError)(nil),
}
