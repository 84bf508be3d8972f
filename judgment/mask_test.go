package judgment_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/typevet/typevet-go/internal/pyjson"
	"github.com/typevet/typevet-go/judgment"
)

func TestMaskSecrets(t *testing.T) {
	// A masked error keeps its class and holds no secret in any
	// form, in any field, under any formatting, and has no cause chain.
	const key = `sk-"sec\ret"<&>`
	const extra = "hdr-value-123"
	pyEscaped := `sk-\"sec\\ret\"<&>`
	goBytes, _ := json.Marshal(key)
	goEscaped := string(goBytes[1 : len(goBytes)-1])
	all := key + " " + pyEscaped + " " + goEscaped + " " + extra + " " + url.QueryEscape(key) + " " + url.PathEscape(key)
	cause := &url.Error{Op: "Post", URL: "http://x/?key=" + key, Err: errors.New("header Authorization: Bearer " + key)}
	tests := []struct {
		name   string
		reason string
		err    error
		class  string
	}{
		{name: "transport", class: "TransportError",
			err: &judgment.TransportError{Msg: "post failed: " + all, RequestID: "id-" + extra, Err: cause}},
		{name: "http", class: "BackendHttpError",
			err: &judgment.BackendHTTPError{Backend: "vLLM", StatusCode: 401, Msg: "vLLM HTTP 401: " + all, BodySnippet: all,
				RetryAfterSeconds: ptr(2.0), RateLimit: [][2]string{{"x-ratelimit-remaining", extra}}, RequestID: "r"}},
		{name: "generation", class: "GenerationError", err: &judgment.GenerationError{Msg: all}},
		{name: "schema", class: "SchemaValidationError", err: &judgment.SchemaValidationError{Msg: all}},
		{name: "gen capability", class: "GenerationUnsupportedCapabilityError", err: &judgment.GenerationUnsupportedCapabilityError{Msg: all}},
		{name: "decision", class: "DecisionExecutionError", err: &judgment.DecisionExecutionError{Msg: all}},
		{name: "scoring", class: "ScoringError", err: &judgment.ScoringError{Msg: all}},
		{name: "scoring validation", class: "ScoringValidationError", err: &judgment.ScoringValidationError{Msg: all}},
		{name: "scoring capability", class: "ScoringUnsupportedCapabilityError", err: &judgment.ScoringUnsupportedCapabilityError{Msg: all}},
		{name: "judgment", class: "JudgmentError", err: &judgment.JudgmentError{Msg: all}},
		{name: "judgment validation", class: "JudgmentValidationError", err: &judgment.JudgmentValidationError{Msg: all}},
		{name: "gemma", class: "GemmaTemplateError", err: &judgment.GemmaTemplateError{Msg: all}},
		{name: "wrapped", class: "TransportError", err: fmt.Errorf("judge case r00 (%s): %w", key,
			&judgment.TransportError{Msg: "x", Err: cause})},
		{name: "wrapped validation", class: "JudgmentValidationError", reason: "the wrapped class survives; the wrapper's text is masked too",
			err: fmt.Errorf("case %s: %w", url.QueryEscape(key), &judgment.JudgmentValidationError{Msg: all})},
		{name: "plain fmt error", class: "", reason: "errors of other packages are masked too, as *MaskedError",
			err: fmt.Errorf("read the server entry %s: %w", all, errors.New(key))},
		{name: "url error", class: "", reason: "a *url.Error prints the URL with the key query-escaped",
			err: cause},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := judgment.Secrets{Keys: []string{"", key, extra}}.Mask(tt.err)
			if judgment.ErrorClass(m) != tt.class {
				t.Errorf("class = %q, want %q", judgment.ErrorClass(m), tt.class)
			}
			if errors.Unwrap(m) != nil {
				t.Errorf("masked error has a cause: %v", errors.Unwrap(m))
			}
			for _, f := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
				text := fmt.Sprintf(f, m)
				if e, ok := m.(*judgment.BackendHTTPError); ok {
					text += fmt.Sprintf("%#v", *e)
				}
				for _, secret := range []string{key, pyEscaped, goEscaped, extra, url.QueryEscape(key), url.PathEscape(key), "sec"} {
					if strings.Contains(text, secret) {
						t.Errorf("%s output holds %q: %s", f, secret, text)
					}
				}
			}
			if !strings.Contains(m.Error(), "***") {
				t.Errorf("nothing masked in %q", m.Error())
			}
		})
	}
}

func TestMaskSecretsKeepsFields(t *testing.T) {
	in := &judgment.BackendHTTPError{Backend: "vLLM", StatusCode: 429, Msg: "vLLM HTTP 429: slow down", BodySnippet: "slow down",
		RetryAfterSeconds: ptr(1.5), RateLimit: [][2]string{{"retry-after", "1.5"}}, RequestID: "abcd"}
	out := judgment.Secrets{Keys: []string{"k3y"}}.Mask(in)
	var he *judgment.BackendHTTPError
	if !errors.As(out, &he) {
		t.Fatalf("class lost: %T", out)
	}
	if fmt.Sprintf("%v %v %v %v %v", he.StatusCode, *he.RetryAfterSeconds, he.RateLimit, he.RequestID, he.Msg) != "429 1.5 [[retry-after 1.5]] abcd vLLM HTTP 429: slow down" {
		t.Errorf("fields changed: %#v", he)
	}
	if he == in || he.RetryAfterSeconds == in.RetryAfterSeconds {
		t.Error("masked error shares memory with the original")
	}
}

func TestMaskSecretsOtherErrors(t *testing.T) {
	const key = "k3y/+ &"
	tests := []struct {
		name, reason string
		err          error
		want         string
		canceled     bool
		deadline     bool
	}{
		{name: "plain", err: errors.New("bad key " + key), want: "bad key ***"},
		{name: "query escaped", reason: "url.QueryEscape spells the key k3y%2F%2B+%26",
			err: errors.New("GET /v1?key=" + url.QueryEscape(key)), want: "GET /v1?key=***"},
		{name: "path escaped", reason: "url.PathEscape spells the key k3y%2F+%20&",
			err: errors.New("GET /keys/" + url.PathEscape(key)), want: "GET /keys/***"},
		{name: "canceled", reason: "the context sentinel is kept as the only unwrap target",
			err: fmt.Errorf("entry %s: %w", key, context.Canceled), want: "entry ***: context canceled", canceled: true},
		{name: "deadline", err: fmt.Errorf("entry: %w", &url.Error{Op: "Get", URL: "http://h/?k=" + url.QueryEscape(key), Err: context.DeadlineExceeded}),
			want: `entry: Get "http://h/?k=***": context deadline exceeded`, deadline: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := judgment.Secrets{Keys: []string{key}}.Mask(tt.err)
			var me *judgment.MaskedError
			if !errors.As(m, &me) {
				t.Fatalf("got %T, want *MaskedError", m)
			}
			if m.Error() != tt.want {
				t.Errorf("Error() = %q, want %q", m.Error(), tt.want)
			}
			if me.Class != fmt.Sprintf("%T", tt.err) {
				t.Errorf("Class = %q, want %T", me.Class, tt.err)
			}
			if judgment.IsGenerationError(m) || judgment.ErrorClass(m) != "" {
				t.Errorf("a masked foreign error counts as a generation error (%q)", judgment.ErrorClass(m))
			}
			if got := errors.Is(m, context.Canceled); got != tt.canceled {
				t.Errorf("errors.Is(masked, context.Canceled) = %v, want %v", got, tt.canceled)
			}
			if got := errors.Is(m, context.DeadlineExceeded); got != tt.deadline {
				t.Errorf("errors.Is(masked, context.DeadlineExceeded) = %v, want %v", got, tt.deadline)
			}
			var ue *url.Error
			if errors.As(m, &ue) {
				t.Error("the masked error still holds the *url.Error")
			}
		})
	}
}

func TestMaskSecretsCanceledTransport(t *testing.T) {
	const key = "sk-live-123"
	in := fmt.Errorf("case r01: %w", &judgment.TransportError{Msg: "post http://h/?key=" + key + ": context canceled",
		Err: &url.Error{Op: "Post", URL: "http://h/?key=" + key, Err: context.Canceled}})
	if !errors.Is(in, context.Canceled) {
		t.Fatal("bad fixture")
	}
	m := judgment.Secrets{Keys: []string{key}}.Mask(in)
	var te *judgment.TransportError
	if !errors.As(m, &te) {
		t.Fatalf("class lost: %T", m)
	}
	if !errors.Is(m, context.Canceled) {
		t.Error("errors.Is(masked, context.Canceled) = false, was true before masking")
	}
	if errors.Is(m, context.DeadlineExceeded) {
		t.Error("masked error matches a sentinel the original did not")
	}
	if te.Err != context.Canceled {
		t.Errorf("Err = %#v, want context.Canceled alone", te.Err)
	}
	if strings.Contains(fmt.Sprintf("%+v %#v", m, te), key) {
		t.Errorf("key in %#v", te)
	}
}

func TestMaskSecretsPassThrough(t *testing.T) {
	te := &judgment.TransportError{Msg: "x", Err: http.ErrHandlerTimeout}
	plain := errors.New("key k3y")
	tests := []struct {
		name    string
		err     error
		secrets []string
	}{
		{name: "nil", err: nil, secrets: []string{"k3y"}},
		{name: "plain error, no secret", err: plain, secrets: nil},
		{name: "no secret", err: te, secrets: nil},
		{name: "only empty secrets", err: te, secrets: []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (judgment.Secrets{Keys: tt.secrets}).Mask(tt.err); got != tt.err {
				t.Errorf("got %v, want the input unchanged", got)
			}
		})
	}
}

// TestSecretsValuesAndClone: Values lists every non-empty secret, keys
// first, for the receipt's key-free check; Clone shares no slice.
func TestSecretsValuesAndClone(t *testing.T) {
	s := judgment.Secrets{Keys: []string{"", "sk-1"}, HeaderValues: []string{"prod", ""}}
	if got := s.Values(); !slices.Equal(got, []string{"sk-1", "prod"}) {
		t.Errorf("Values = %q", got)
	}
	c := s.Clone()
	c.Keys[1], c.HeaderValues[0] = "x", "y"
	if s.Keys[1] != "sk-1" || s.HeaderValues[0] != "prod" {
		t.Errorf("Clone shares slices: %q", s)
	}
	if got := (judgment.Secrets{}).Values(); got != nil {
		t.Error("zero Secrets has values")
	}
}

// TestSecretsJSONForms: a key is masked in the spellings Python's
// json.dumps (ensure_ascii) and Go's encoding/json give it, as pyjson and
// encoding/json write them.
func TestSecretsJSONForms(t *testing.T) {
	const key = "sk-é<\"x\">\U0001F600\x7f"
	for _, form := range []string{
		`sk-\u00e9<\"x\">\ud83d\ude00\u007f`,        // Python, ensure_ascii
		"sk-é\\u003c\\\"x\\\"\\u003e\U0001F600\x7f", // Go, HTML-escaped
	} {
		if got := (judgment.Secrets{Keys: []string{key}}).Redact("k=" + form); got != "k=***" {
			t.Errorf("Redact(%q) = %q", form, got)
		}
	}
}

func TestSecretsRedactWholeTokens(t *testing.T) {
	// Extra header values are masked as whole tokens; keys
	// everywhere.
	tests := []struct {
		name, reason string
		secrets      judgment.Secrets
		in, want     string
	}{
		{name: "token before a hyphen", secrets: judgment.Secrets{Keys: []string{"sk-abc"}, HeaderValues: []string{"prod"}},
			in: "team prod-1 over quota", want: "team ***-1 over quota"},
		{name: "inside a word", reason: "a letter touches the value", secrets: judgment.Secrets{HeaderValues: []string{"prod"}},
			in: "production prod", want: "production ***"},
		{name: "status code", reason: "a one-digit header value never eats a digit of a status",
			secrets: judgment.Secrets{HeaderValues: []string{"1"}}, in: "HTTP 501: retry 1 of 3 (1)", want: "HTTP 501: retry *** of 3 (***)"},
		{name: "key inside a word", reason: "keys are masked everywhere", secrets: judgment.Secrets{Keys: []string{"1"}},
			in: "HTTP 501", want: "HTTP 50***"},
		{name: "unicode letter", reason: "letters are Unicode letters", secrets: judgment.Secrets{HeaderValues: []string{"eu"}},
			in: "éeu eu", want: "éeu ***"},
		{name: "json form", secrets: judgment.Secrets{HeaderValues: []string{`a"b`}}, in: `{"v":"a\"b"}`, want: `{"v":"***"}`},
		{name: "url form", secrets: judgment.Secrets{HeaderValues: []string{"a b"}}, in: "?v=a+b&w=a%20b", want: "?v=***&w=***"},
		{name: "key and header value", reason: "a value that is also a key is masked everywhere",
			secrets: judgment.Secrets{Keys: []string{"x1"}, HeaderValues: []string{"x1"}}, in: "ax1", want: "a***"},
		{name: "adjacent tokens", secrets: judgment.Secrets{HeaderValues: []string{"ab"}}, in: "ab,ab abab", want: "***,*** abab"},
		{name: "empty", secrets: judgment.Secrets{HeaderValues: []string{""}}, in: "x", want: "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.secrets.Redact(tt.in); got != tt.want {
				t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
			}
			err := tt.secrets.Mask(&judgment.BackendHTTPError{Backend: "vLLM", StatusCode: 400, Msg: tt.in, BodySnippet: tt.in})
			var he *judgment.BackendHTTPError
			if !errors.As(err, &he) || he.Msg != tt.want || he.BodySnippet != tt.want {
				t.Errorf("Mask = %#v, want message and snippet %q", err, tt.want)
			}
		})
	}
	if got := (judgment.Secrets{Keys: []string{"sk-1"}}).Redact("k=sk-1 sk-1x"); got != "k=*** ***x" {
		t.Errorf("Redact with keys = %q", got)
	}
}

// FuzzSecretsMask embeds a key, raw and in the JSON spellings pyjson
// (Python, ensure_ascii) and encoding/json give it, in an error message.
// Invariant: the masked message holds none of them (keys holding the mask
// character "*" aside: "***" next to them can spell them again).
func FuzzSecretsMask(f *testing.F) {
	f.Add("sk-live-123", "HTTP 401: ")
	f.Add(`sk-"é"\`, `{"detail": `)
	f.Add("k\u2028<&>\U0001F600\x7f", "")
	f.Fuzz(func(t *testing.T, key, prefix string) {
		if len(key) < 4 || !utf8.ValidString(key) || strings.Contains(key, "*") || strings.Contains(prefix, key) {
			t.Skip()
		}
		py, err := pyjson.Marshal(key, pyjson.Options{EnsureASCII: true})
		if err != nil {
			t.Fatal(err)
		}
		gj, err := json.Marshal(key)
		if err != nil {
			t.Fatal(err)
		}
		forms := []string{key, string(py[1 : len(py)-1]), string(gj[1 : len(gj)-1])}
		msg := prefix + strings.Join(forms, " | ")
		got := judgment.Secrets{Keys: []string{key}}.Mask(errors.New(msg)).Error()
		for _, f := range forms {
			if strings.Contains(got, f) {
				t.Fatalf("masked %q still holds %q: %q", msg, f, got)
			}
		}
	})
}
