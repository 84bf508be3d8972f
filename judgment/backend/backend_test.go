package backend_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestName(t *testing.T) {
	for _, n := range []backend.Name{backend.LlamaCPP, backend.VLLM, backend.Fake, backend.Reader} {
		got, err := backend.ParseName(n.String())
		if err != nil || got != n {
			t.Errorf("ParseName(%q) = %v, %v", n, got, err)
		}
	}
	if n, err := backend.ParseName(""); err != nil || n != backend.LlamaCPP {
		t.Errorf(`ParseName("") = %v, %v; want llama_cpp`, n, err)
	}
	if _, err := backend.ParseName("VLLM"); err == nil || err.Error() != "TYPEVET_BACKEND must be one of llama_cpp, vllm, fake, reader" {
		t.Errorf("ParseName(VLLM) err = %v (matching is exact)", err)
	}
	if backend.Name(0) != backend.LlamaCPP {
		t.Error("the zero Name must be llama_cpp")
	}
}

func TestSettingsFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    backend.Name
		wantErr string
		reason  string
	}{
		{name: "unset is llama.cpp", env: map[string]string{}, want: backend.LlamaCPP},
		{name: "empty is llama.cpp", env: map[string]string{"TYPEVET_BACKEND": ""}, want: backend.LlamaCPP},
		{name: "vllm", env: map[string]string{"TYPEVET_BACKEND": "vllm", "TYPEVET_VLLM__BASE_URL": "http://x", "TYPEVET_VLLM__MODEL": "m"}, want: backend.VLLM},
		{name: "fake", env: map[string]string{"TYPEVET_BACKEND": "fake"}, want: backend.Fake},
		{name: "reader", env: map[string]string{"TYPEVET_BACKEND": "reader"}, want: backend.Reader},
		{name: "unknown backend", env: map[string]string{"TYPEVET_BACKEND": "openai-sk-123"}, wantErr: "TYPEVET_BACKEND must be one of llama_cpp, vllm, fake, reader"},
		{name: "vllm needs its variables", env: map[string]string{"TYPEVET_BACKEND": "vllm"}, wantErr: "TYPEVET_VLLM__BASE_URL is required"},
		{name: "llama ignores vllm variables", env: map[string]string{"TYPEVET_VLLM__TIMEOUT": "nan"}, want: backend.LlamaCPP,
			reason: "only the selected backend's variables are read"},
		{name: "llama error", env: map[string]string{"TYPEVET_LLAMA__HEADERS": `{"Host": "sk-999"}`}, wantErr: "TYPEVET_LLAMA__HEADERS may not set a hop-by-hop, client-controlled or auth header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := backend.SettingsFromEnv(env(tt.env))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || s.Backend != tt.want {
				t.Errorf("got %v, %v; want %v (%s)", s.Backend, err, tt.want, tt.reason)
			}
		})
	}
}

func TestSettingsNeverPrintSecrets(t *testing.T) {
	for _, name := range []string{"llama_cpp", "vllm"} {
		s, err := backend.SettingsFromEnv(env(map[string]string{
			"TYPEVET_BACKEND": name, "TYPEVET_VLLM__BASE_URL": "http://x", "TYPEVET_VLLM__MODEL": "m",
			"TYPEVET_LLAMA__API_KEY": "sk-llama-SECRET", "TYPEVET_VLLM__API_KEY": "sk-vllm-SECRET",
			"TYPEVET_LLAMA__HEADERS": `{"X-A": "hdr-SECRET"}`, "TYPEVET_VLLM__HEADERS": `{"X-A": "hdr-SECRET"}`,
		}))
		if err != nil {
			t.Fatal(err)
		}
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			if out := fmt.Sprintf(verb, s); strings.Contains(out, "SECRET") || !strings.Contains(out, "***") {
				t.Errorf("%s %s: %s", name, verb, out)
			}
		}
	}
}

// Open over each backend gives a masked Port, the receipt's served
// template and what other packages need to read the server.
func TestOpen(t *testing.T) {
	llama := judgmenttest.NewUnstartedLlamaCPP(judgmenttest.ConformanceModel())
	llama.APIKey = "sk-llama"
	llama.Start()
	defer llama.Close()
	vllmSrv := judgmenttest.NewVLLM(judgmenttest.ConformanceModel())
	defer vllmSrv.Close()
	dist := filepath.Join(t.TempDir(), "dist.json")
	if err := os.WriteFile(dist, judgmenttest.ConformanceDistributions(), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		env        map[string]string
		model      string
		wantServed string
		wantBase   string
		wantSecret int
	}{
		{name: "llama_cpp", env: map[string]string{"TYPEVET_LLAMA__BASE_URL": llama.URL, "TYPEVET_LLAMA__API_KEY": "sk-llama"},
			model: judgmenttest.ConformanceModelID, wantServed: "native_gemma4_turn", wantBase: llama.URL, wantSecret: 1},
		{name: "vllm", env: map[string]string{"TYPEVET_BACKEND": "vllm", "TYPEVET_VLLM__BASE_URL": vllmSrv.URL + "/", "TYPEVET_VLLM__MODEL": judgmenttest.ConformanceModelID,
			"TYPEVET_VLLM__HEADERS": `{"X-Team": "team-a"}`}, wantServed: "vllm_chat", wantBase: vllmSrv.URL, wantSecret: 1},
		{name: "fake", env: map[string]string{"TYPEVET_BACKEND": "fake", "TYPEVET_FAKE__DISTRIBUTIONS": dist}, wantServed: "fake"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := backend.SettingsFromEnv(env(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			sess, err := backend.Open(context.Background(), s, tt.model)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			if sess.Backend.String() != tt.name || sess.ServedTemplate != tt.wantServed || sess.BaseURL != tt.wantBase ||
				len(sess.Secrets().Values()) != tt.wantSecret || (sess.HTTPClient == nil) != (tt.wantBase == "") {
				t.Errorf("session %+v, secrets %d", sess, len(sess.Secrets().Values()))
			}
			resp, err := sess.Port.Judge(context.Background(), judgment.Request{
				State: "x", Model: judgmenttest.ConformanceModelID, Questions: judgmenttest.ConformanceQuestions()[:1]})
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := resp.Noul("noul_02"); n.Noul < 0.19 || n.Noul > 0.21 {
				t.Errorf("noul_02 = %v, want 0.2", n.Noul)
			}
		})
	}
}

// TestOpenReader: the reader session is offline, names itself and
// refuses questions other than the check-match set with a generation
// error (its answers are tested in package judgment/reader).
func TestOpenReader(t *testing.T) {
	sess, err := backend.Open(context.Background(), backend.Settings{Backend: backend.Reader}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if sess.Backend != backend.Reader || sess.Model != "reader" || sess.ServedTemplate != "reader" ||
		sess.HTTPClient != nil || sess.BaseURL != "" || len(sess.Secrets().Values()) != 0 {
		t.Errorf("session %+v", sess)
	}
	_, err = sess.Port.Judge(context.Background(), judgment.Request{
		State: "x", Model: "reader", Questions: judgmenttest.ConformanceQuestions()[:1]})
	if !judgment.IsGenerationError(err) || judgment.ErrorClass(err) != "ScoringUnsupportedCapabilityError" {
		t.Errorf("err = %v, want an unsupported-capability error", err)
	}
}

// The masked Port masks secrets in errors; the session's HTTP client
// carries the key for other reads.
func TestOpenMasksErrors(t *testing.T) {
	srv := judgmenttest.NewUnstartedVLLM(judgmenttest.ConformanceModel())
	srv.APIKey = "right"
	srv.EchoAuth = true
	srv.Start()
	defer srv.Close()
	s := backend.Settings{Backend: backend.VLLM}
	s.VLLM.BaseURL, s.VLLM.Model, s.VLLM.APIKey = srv.URL, judgmenttest.ConformanceModelID, "wrong-SECRET"
	sess, err := backend.Open(context.Background(), s, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = sess.Port.Judge(context.Background(), judgment.Request{State: "x", Model: judgmenttest.ConformanceModelID, Questions: judgmenttest.ConformanceQuestions()[:1]})
	var he *judgment.BackendHTTPError
	if !errors.As(err, &he) || he.StatusCode != 401 || strings.Contains(fmt.Sprintf("%#v", err), "SECRET") {
		t.Errorf("err = %#v", err)
	}
	resp, err := sess.HTTPClient.Get(sess.BaseURL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := srv.Requests()[len(srv.Requests())-1].Header.Get("Authorization"); got != "Bearer wrong-SECRET" {
		t.Errorf("HTTPClient sent Authorization %q", got)
	}
}

// TestOpenMasksHeaderValuesAsTokens checks that a backend session masks
// extra header values as whole tokens: a one-digit value never
// eats a digit of a status code.
func TestOpenMasksHeaderValuesAsTokens(t *testing.T) {
	srv := judgmenttest.NewVLLM(judgmenttest.ConformanceModel())
	defer srv.Close()
	srv.Inject(judgmenttest.Fault{Path: "/v1/chat/completions", Status: 429,
		Body: `{"message":"team prod-7 over quota (1 of 1), HTTP 501, key sk-SECRET"}`})
	s := backend.Settings{Backend: backend.VLLM}
	s.VLLM.BaseURL, s.VLLM.Model, s.VLLM.APIKey = srv.URL, judgmenttest.ConformanceModelID, "sk-SECRET"
	s.VLLM.Headers = []judgment.Header{{Name: "X-Team", Value: "prod"}, {Name: "X-N", Value: "1"}}
	sess, err := backend.Open(context.Background(), s, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = sess.Port.Judge(context.Background(), judgment.Request{State: "x", Model: judgmenttest.ConformanceModelID, Questions: judgmenttest.ConformanceQuestions()[:1]})
	want := `vLLM HTTP 429: {"message":"team ***-7 over quota (*** of ***), HTTP 501, key ***"}`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// knownText is every fixed piece of a setting error message: variable
// names and rules. A fuzzed value that is a substring of it may show up in
// an error legitimately; any other value must not.
var knownText = strings.Join(settingVars, " ") + " must be one of llama_cpp, vllm, fake, reader is required must be an http or https URL with a host" +
	" must be a finite number of seconds greater than 0 must be a whole number of at least 1 must be printable ASCII" +
	" must not hold a user name or password (user:password@)" +
	" must be an HTTP token of at most 128 bytes names a header the client controls must be a JSON object of string values" +
	" must hold at most 32 headers header names must be HTTP tokens of at most 128 bytes" +
	" may not set a hop-by-hop, client-controlled or auth header may not name a header twice" +
	" header values must be printable ASCII of at most 2048 bytes header names and values must total at most 8192 bytes must be a file path when set"

var settingVars = []string{
	"TYPEVET_BACKEND", "TYPEVET_LLAMA__BASE_URL", "TYPEVET_LLAMA_URL", "TYPEVET_LLAMA__TIMEOUT", "TYPEVET_LLAMA__API_KEY",
	"TYPEVET_LLAMA__AUTH_HEADER", "TYPEVET_LLAMA__AUTH_SCHEME", "TYPEVET_LLAMA__HEADERS", "TYPEVET_LLAMA__USER_AGENT",
	"TYPEVET_VLLM__BASE_URL", "TYPEVET_VLLM__MODEL", "TYPEVET_VLLM__TIMEOUT", "TYPEVET_VLLM__API_KEY", "TYPEVET_VLLM__MAX_CONCURRENCY",
	"TYPEVET_VLLM__AUTH_HEADER", "TYPEVET_VLLM__AUTH_SCHEME", "TYPEVET_VLLM__HEADERS", "TYPEVET_VLLM__USER_AGENT",
	"TYPEVET_VLLM__REQUEST_ID_HEADER", "TYPEVET_FAKE__DISTRIBUTIONS",
}

// FuzzSettingsFromEnv sets one variable to a fuzzed value on top of a
// valid environment. Invariants: an error names a variable and never
// contains the value (nor anything of a JSON headers value); settings that
// parse never print the API key or a header value.
func FuzzSettingsFromEnv(f *testing.F) {
	f.Add(uint8(0), "vllm")
	f.Add(uint8(3), "inf")
	f.Add(uint8(7), `{"X-Team": "tok-123456"}`)
	f.Add(uint8(16), `{"Host": "tok-abcdef"}`)
	f.Add(uint8(12), "sk-\u00e9-secret")
	f.Add(uint8(11), "1e309")
	f.Add(uint8(12), "000,") // occurs in the printed Timeout:300000000000, (not a leak)
	f.Add(uint8(4), "0000")
	f.Fuzz(func(t *testing.T, which uint8, value string) {
		name := settingVars[int(which)%len(settingVars)]
		m := map[string]string{"TYPEVET_VLLM__BASE_URL": "http://x", "TYPEVET_VLLM__MODEL": "m", name: value}
		if strings.HasPrefix(name, "TYPEVET_VLLM__") {
			m["TYPEVET_BACKEND"] = "vllm"
		}
		if name == "TYPEVET_FAKE__DISTRIBUTIONS" {
			m["TYPEVET_BACKEND"] = "fake"
		}
		s, err := backend.SettingsFromEnv(env(m))
		if err != nil {
			var se *judgment.SettingError
			if errors.As(err, &se) && errors.Unwrap(err) != nil {
				t.Fatalf("setting error with a cause: %v", err)
			}
			for _, v := range leakable(value) {
				if strings.Contains(err.Error(), v) {
					t.Fatalf("error %q holds the value %q", err, v)
				}
			}
			return
		}
		if strings.HasSuffix(name, "API_KEY") || strings.HasSuffix(name, "HEADERS") {
			out := fmt.Sprintf("%v %+v %#v", s, s, s)
			// The same settings with every secret replaced by a stand-in
			// print the fixed text: a value that occurs there as often
			// (the key "000," in "Timeout:300000000000,") is not a leak.
			fixed := fmt.Sprintf("%v %+v %#v", standIn(s), standIn(s), standIn(s))
			for _, v := range leakable(value) {
				if strings.HasSuffix(name, "HEADERS") && !strings.Contains(value, `"`+v+`"`) {
					continue
				}
				if strings.Count(out, v) > strings.Count(fixed, v) {
					t.Fatalf("settings print %q", v)
				}
			}
		}
	})
}

// standIn returns s with every API key and header value replaced by "\x01",
// which the settings print masked just as they print a real secret.
func standIn(s backend.Settings) backend.Settings {
	s.LlamaCPP.Headers = slices.Clone(s.LlamaCPP.Headers)
	s.VLLM.Headers = slices.Clone(s.VLLM.Headers)
	if s.LlamaCPP.APIKey != "" {
		s.LlamaCPP.APIKey = "\x01"
	}
	if s.VLLM.APIKey != "" {
		s.VLLM.APIKey = "\x01"
	}
	for i := range s.LlamaCPP.Headers {
		s.LlamaCPP.Headers[i].Value = "\x01"
	}
	for i := range s.VLLM.Headers {
		s.VLLM.Headers[i].Value = "\x01"
	}
	return s
}

// leakable returns the parts of value worth checking for: the value and,
// for a JSON object, each of its string members, when long enough not to
// occur by chance in fixed text.
func leakable(value string) []string {
	var out []string
	add := func(v string) {
		if len(v) >= 4 && !strings.Contains(knownText, v) && !strings.Contains("{} %v %+v %#v *** backend.Settings llamacpp.Settings vllm.Settings judgment.Auth judgment.Header APIKey AuthHeader AuthScheme BareKey Headers UserAgent Name Value true false http://x http://127.0.0.1:8090 gemma-3-4b-it-q4km-mm 5m0s 300000000000", v) {
			out = append(out, v)
		}
	}
	add(value)
	var obj map[string]string
	if json.Unmarshal([]byte(value), &obj) == nil {
		for _, v := range obj {
			add(v)
		}
	}
	return out
}

// TestOpenMasksOnceEachBackend: a session opened through Open masks its
// errors once, in the llama.cpp or vLLM session itself (Open adds no
// second mask): the key and a whole-token header value are masked, no
// cause is kept, and the settings and the open session report the same
// secrets.
func TestOpenMasksOnceEachBackend(t *testing.T) {
	body := `{"message":"team prod over quota, key sk-SECRET, HTTP 501"}`
	llama := judgmenttest.NewUnstartedLlamaCPP(judgmenttest.ConformanceModel())
	llama.APIKey = "sk-SECRET"
	llama.Start()
	defer llama.Close()
	vllmSrv := judgmenttest.NewUnstartedVLLM(judgmenttest.ConformanceModel())
	vllmSrv.APIKey = "sk-SECRET"
	vllmSrv.Start()
	defer vllmSrv.Close()
	tests := []struct {
		name string
		srv  *judgmenttest.Server
		path string
		env  map[string]string
		want string
	}{
		{name: "llama_cpp", srv: llama, path: "/completion", env: map[string]string{"TYPEVET_LLAMA__BASE_URL": llama.URL,
			"TYPEVET_LLAMA__MULTIMODAL_MODEL": judgmenttest.ConformanceModelID, "TYPEVET_LLAMA__API_KEY": "sk-SECRET",
			"TYPEVET_LLAMA__HEADERS": `{"X-Team": "prod"}`},
			want: `llama.cpp HTTP 429: {"message":"team *** over quota, key ***, HTTP 501"}`},
		{name: "vllm", srv: vllmSrv, path: "/v1/chat/completions", env: map[string]string{"TYPEVET_BACKEND": "vllm",
			"TYPEVET_VLLM__BASE_URL": vllmSrv.URL, "TYPEVET_VLLM__MODEL": judgmenttest.ConformanceModelID,
			"TYPEVET_VLLM__API_KEY": "sk-SECRET", "TYPEVET_VLLM__HEADERS": `{"X-Team": "prod"}`},
			want: `vLLM HTTP 429: {"message":"team *** over quota, key ***, HTTP 501"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := backend.SettingsFromEnv(env(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			sess, err := backend.Open(context.Background(), s, "")
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			want := judgment.Secrets{Keys: []string{"sk-SECRET"}, HeaderValues: []string{"prod"}}
			if got := sess.Secrets(); fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(s.Secrets()) != fmt.Sprint(want) {
				t.Errorf("session secrets %q, settings secrets %q, want %q", got, s.Secrets(), want)
			}
			tt.srv.Inject(judgmenttest.Fault{Path: tt.path, Status: 429, Body: body})
			_, err = sess.Port.Judge(context.Background(), judgment.Request{State: "x", Model: judgmenttest.ConformanceModelID,
				Questions: judgmenttest.ConformanceQuestions()[:1]})
			if err == nil || err.Error() != tt.want || errors.Unwrap(err) != nil || strings.Contains(fmt.Sprintf("%#v", err), "SECRET") {
				t.Errorf("err = %#v, want %q and no cause", err, tt.want)
			}
		})
	}
}
