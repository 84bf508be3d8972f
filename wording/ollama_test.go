package wording

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// The fixtures of test_wording_ollama_judge.py.
var (
	ollamaDigest = "24e550a1" + strings.Repeat("0", 51) + "67e0c"
	otherDigest  = strings.Repeat("f", 64)
	tagsBody     = `{"models": [{"name": "other:7b", "digest": "` + otherDigest + `", "size": 1, "details": {}},
		{"name": "nimble:latest", "digest": "` + ollamaDigest + `", "size": 2, "details": {}}]}`
)

// fakeOllama serves /api/version and /api/tags and records the paths asked.
type fakeOllama struct {
	mu      sync.Mutex
	paths   []string
	version string
	tags    string
	status  int // non-zero: every answer has this status
}

func (f *fakeOllama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.paths = append(f.paths, r.Method+" "+r.URL.Path)
	f.mu.Unlock()
	if f.status != 0 {
		w.WriteHeader(f.status)
		_, _ = w.Write([]byte(`{"error": "other:7b nimble:latest ` + ollamaDigest + `"}`))
		return
	}
	switch r.URL.Path {
	case "/api/version":
		_, _ = w.Write([]byte(f.version))
	case "/api/tags":
		_, _ = w.Write([]byte(f.tags))
	default:
		http.NotFound(w, r)
	}
}

func newOllama(t *testing.T, f *fakeOllama) *httptest.Server {
	t.Helper()
	if f.version == "" {
		f.version = `{"version": "0.35.0"}`
	}
	if f.tags == "" {
		f.tags = tagsBody
	}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv
}

func TestReadOllamaIdentity(t *testing.T) {
	tests := []struct {
		name   string
		model  string
		slash  bool
		want   OllamaIdentity
		reason string
	}{
		{"bare name found as :latest", "nimble", false, OllamaIdentity{"0.35.0", ollamaDigest}, "nimble matches nimble:latest"},
		{"exact tag, trailing slash base", "other:7b", true, OllamaIdentity{"0.35.0", otherDigest}, ""},
		{"exact :latest", "nimble:latest", false, OllamaIdentity{"0.35.0", ollamaDigest}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeOllama{}
			srv := newOllama(t, f)
			base := srv.URL
			if tt.slash {
				base += "/"
			}
			got, err := ReadOllamaIdentity(context.Background(), srv.Client(), base, tt.model)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if strings.Join(f.paths, ",") != "GET /api/version,GET /api/tags" {
				t.Errorf("requests %v, want version then tags", f.paths)
			}
		})
	}
	t.Run("found by exact name", func(t *testing.T) {
		f := &fakeOllama{tags: `{"models": [{"name": "nimble", "digest": "d1"}, {"name": "nimble:latest", "digest": "d2"}]}`}
		srv := newOllama(t, f)
		got, err := ReadOllamaIdentity(context.Background(), srv.Client(), srv.URL, "nimble")
		if err != nil || got.ModelDigest != "d1" {
			t.Errorf("got %+v, %v; want the first listed match d1", got, err)
		}
	})
}

func TestReadOllamaIdentityErrors(t *testing.T) {
	tests := []struct {
		name     string
		f        *fakeOllama
		model    string
		endpoint string
		status   int
		want     string
		reason   string
	}{
		{"missing", &fakeOllama{}, "absent", "/api/tags", 0,
			"the judge model is not listed by Ollama /api/tags", "no names or digests in the message"},
		{"other model only as :latest", &fakeOllama{}, "other", "/api/tags", 0,
			"the judge model is not listed by Ollama /api/tags", "other:7b is not other:latest"},
		{"no models key", &fakeOllama{tags: `{}`}, "nimble", "/api/tags", 0,
			"the judge model is not listed by Ollama /api/tags", "missing models = empty list"},
		{"non-2xx", &fakeOllama{status: http.StatusInternalServerError}, "nimble", "/api/version", 500,
			"Ollama GET /api/version: HTTP 500", "the body is not echoed"},
		{"bad JSON version", &fakeOllama{version: `<html>nimble</html>`}, "nimble", "/api/version", 0,
			"Ollama GET /api/version: the body is not JSON of the expected shape", ""},
		{"bad JSON tags", &fakeOllama{tags: `{"models": "nimble:latest ` + ollamaDigest + `"}`}, "nimble", "/api/tags", 0,
			"Ollama GET /api/tags: the body is not JSON of the expected shape", ""},
		{"no version field", &fakeOllama{version: `{"v": 1}`}, "nimble", "/api/version", 0,
			"Ollama GET /api/version: the body has no version", ""},
		{"body over the cap", &fakeOllama{version: `{"version": "` + strings.Repeat("1", 8<<20) + `"}`}, "nimble", "/api/version", 0,
			"Ollama GET /api/version: the body is too large (over 8 MiB)", "valid JSON cut at the cap must not be called not JSON"},
		{"body at the cap", &fakeOllama{tags: `{"models": []}` + strings.Repeat(" ", 8<<20-len(`{"models": []}`))}, "nimble", "/api/tags", 0,
			"the judge model is not listed by Ollama /api/tags", "exactly 8 MiB is read whole"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newOllama(t, tt.f)
			_, err := ReadOllamaIdentity(context.Background(), srv.Client(), srv.URL, tt.model)
			var oe *OllamaError
			if !errors.As(err, &oe) {
				t.Fatalf("err = %v (%T), want *OllamaError", err, err)
			}
			if err.Error() != tt.want || oe.Endpoint != tt.endpoint || oe.StatusCode != tt.status {
				t.Errorf("err = %q on %s (%d), want %q on %s (%d)", err, oe.Endpoint, oe.StatusCode, tt.want, tt.endpoint, tt.status)
			}
			for _, secret := range []string{"other", "nimble", "absent", ollamaDigest, otherDigest} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("message holds %q: %q", secret, err)
				}
			}
		})
	}
	t.Run("transport", func(t *testing.T) {
		srv := newOllama(t, &fakeOllama{})
		srv.Close()
		_, err := ReadOllamaIdentity(context.Background(), nil, srv.URL, "nimble")
		var oe *OllamaError
		if !errors.As(err, &oe) || oe.Err == nil || !strings.HasPrefix(err.Error(), "Ollama GET /api/version: the request failed: ") ||
			strings.Contains(err.Error(), "/api/version\"") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		srv := newOllama(t, &fakeOllama{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := ReadOllamaIdentity(ctx, srv.Client(), srv.URL, "nimble")
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled in the chain", err)
		}
	})
}

// TestResolveOllamaJudge checks the judge built from settings, its facts
// and identity, and that the placeholder key never reaches written JSON
// (#379).
func TestResolveOllamaJudge(t *testing.T) {
	f := &fakeOllama{}
	srv := newOllama(t, f)
	s, err := SettingsFromEnv(env(EnvProvider, "ollama", EnvOllamaBase, srv.URL+"/"))
	if err != nil {
		t.Fatal(err)
	}
	j, err := ResolveOllamaJudge(context.Background(), srv.Client(), s)
	if err != nil {
		t.Fatal(err)
	}
	if j.BaseURL != srv.URL || j.Model != "nimble" || j.APIKey() != OllamaPlaceholderKey || j.Timeout != DefaultOllamaTimeout {
		t.Errorf("judge %+v", j)
	}
	facts, _ := json.Marshal(j.Facts())
	wantFacts := `{"base_url":"` + srv.URL + `","served_template":null,"ollama_version":"0.35.0","model_digest":"` + ollamaDigest + `"}`
	if string(facts) != wantFacts {
		t.Errorf("facts %s\nwant  %s", facts, wantFacts)
	}
	id := NewJudgeIdentity(j.Model, j.Facts(), []string{"nimble:latest"})
	written := map[string]any{"judge": j, "facts": j.Facts(), "judge_identity": id, "settings": s,
		"pins": JudgePins("ollama", id), "provider": s.Provider}
	b, err := json.MarshalIndent(written, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), OllamaPlaceholderKey) {
		t.Errorf("the placeholder key is in written JSON:\n%s", b)
	}
	t.Run("refused before a judge exists", func(t *testing.T) {
		s2 := s
		s2.Judge = "absent"
		j, err := ResolveOllamaJudge(context.Background(), srv.Client(), s2)
		if err == nil || !strings.Contains(err.Error(), "not listed") || j != (OllamaJudge{}) {
			t.Errorf("got %+v, %v", j, err)
		}
	})
}
