package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/internal/golden"
)

func noEnv(string) (string, bool) { return "", false }

// TestREADMECommand runs the command line shown in examples/README.md
// (from the module root) and checks its output: the V3c digest vector.
func TestREADMECommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"-seed", "testdata/seed.json", "-evolved", "testdata/evolved.json", "-components", "criteria_true"}
	if err := run(&stdout, &stderr, args, noEnv); err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, "testdata/criteria_true.golden", stdout.Bytes())
	for _, want := range []string{`"gepa_candidate_id": "ccb61621f752"`, `"mapping": "86edad43a97f7aa62b25830dd5beeb3b934168a542a7fcf1612ce766afe0ff38"`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %s", want)
		}
	}
}

func TestEveryPart(t *testing.T) {
	var stdout bytes.Buffer
	if err := run(&stdout, &bytes.Buffer{}, []string{"-seed", "testdata/seed.json", "-evolved", "testdata/evolved.json"}, noEnv); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	if !strings.Contains(out, `"gepa_candidate_id": "4beeae45949e"`) || !strings.Contains(out, `"gepa_candidate_id": "7b7d0e12a290"`) {
		t.Errorf("every part selected: want the V3a/V3b ids\n%s", out)
	}
	keys := []string{`"seed_text"`, `"evolved_text"`, `"components"`, `"seed_parts"`, `"evolved_parts"`, `"wording_digests"`}
	last := -1
	for _, k := range keys {
		i := strings.Index(out, k)
		if i <= last {
			t.Fatalf("key %s out of order", k)
		}
		last = i
	}
}

func TestVerify(t *testing.T) {
	good, err := os.ReadFile("testdata/criteria_true.golden")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name   string
		body   string
		out    string
		code   int
		reason string
	}{
		{"intact", string(good), "ok: every wording digest matches\n", 0, ""},
		{"evolved text edited", strings.Replace(string(good), `"criteria_true": "It asks for money"`, `"criteria_true": "It asks for cash"`, 1),
			"differs: wording_digests.evolved.components.criteria_true\ndiffers: wording_digests.evolved.mapping\ndiffers: wording_digests.evolved.gepa_candidate_id\n", 1,
			"the names, never the values"},
		{"digest edited", strings.Replace(string(good), "14ed70de", "00000000", 1),
			"differs: wording_digests.seed.mapping\n", 1, ""},
		{"pre-#363", `{"seed_text": "a", "evolved_text": "b"}`, "", 1, "no parts to digest"},
		{"check-match receipt", `{"backend": "reader", "metrics": {}, "cases": []}`, "", 1, "not a wording receipt"},
		{"not JSON", `nope`, "", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout bytes.Buffer
			err := run(&stdout, &bytes.Buffer{}, []string{"-verify", write(tt.name+".json", tt.body)}, noEnv)
			if got := exitCode(err, io.Discard); got != tt.code {
				t.Errorf("exit %d (%v), want %d", got, err, tt.code)
			}
			if stdout.String() != tt.out {
				t.Errorf("stdout %q, want %q", stdout.String(), tt.out)
			}
			if err != nil && strings.Contains(err.Error(), "cash") {
				t.Errorf("error holds a text: %v", err)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		want   string
		reason string
	}{
		{"no flags", nil, 2, "give -seed and -evolved, or -verify", ""},
		{"unknown flag", []string{"-x"}, 2, "flag provided but not defined: -x", ""},
		{"positional", []string{"-verify", "a.json", "b.json"}, 2, "unexpected arguments after the flags", ""},
		{"verify and seed", []string{"-verify", "a.json", "-seed", "s.json"}, 2, "-verify takes no other flag", ""},
		{"judge without ollama", []string{"-seed", "testdata/seed.json", "-evolved", "testdata/evolved.json", "-judge", "nimble"}, 2, "-judge needs -ollama", ""},
		{"empty components", []string{"-seed", "testdata/seed.json", "-evolved", "testdata/evolved.json", "-components", ""}, 2,
			"-components names no part; leave it out to select every part", "an empty selection is a mistake, not every part"},
		{"blank components", []string{"-seed", "s.json", "-evolved", "e.json", "-components", " "}, 2,
			"-components names no part; leave it out to select every part", ""},
		{"verify and empty components", []string{"-verify", "a.json", "-components", ""}, 2, "-verify takes no other flag", ""},
		{"missing file", []string{"-seed", "testdata/none.json", "-evolved", "testdata/evolved.json"}, 1, "open testdata/none.json: no such file or directory", ""},
		{"frozen part", []string{"-seed", "testdata/seed.json", "-evolved", "testdata/evolved.json", "-components", "instructions"}, 1,
			"frozen part 'criteria_true' changed during the run", ""},
		{"trailing comma", []string{"-seed", "testdata/seed.json", "-evolved", "testdata/evolved.json", "-components", "criteria_true,"}, 1,
			"'' is not a part of the seed", "an empty name is refused"},
		{"bad env", []string{"-seed", "testdata/seed.json", "-evolved", "testdata/evolved.json", "-ollama", "http://127.0.0.1:1"}, 1,
			"TYPEVET_WORDING_CONCURRENCY must be an integer", "env read through lookup"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := noEnv
			if tt.name == "bad env" {
				lookup = func(k string) (string, bool) { return "many", k == "TYPEVET_WORDING_CONCURRENCY" }
			}
			err := run(&bytes.Buffer{}, &bytes.Buffer{}, tt.args, lookup)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if got := exitCode(err, io.Discard); got != tt.code {
				t.Errorf("exit %d, want %d", got, tt.code)
			}
		})
	}
}

func TestOllama(t *testing.T) {
	digest := "24e550a1" + strings.Repeat("0", 51) + "67e0c"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/version":
			_, _ = w.Write([]byte(`{"version": "0.35.0"}`))
		case "/api/tags":
			_, _ = w.Write([]byte(`{"models": [{"name": "nimble:latest", "digest": "` + digest + `"}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	args := []string{"-seed", "testdata/seed.json", "-evolved", "testdata/evolved.json", "-ollama", srv.URL + "/"}
	var stdout bytes.Buffer
	if err := run(&stdout, &bytes.Buffer{}, args, noEnv); err != nil {
		t.Fatal(err)
	}
	want := `  "judge_identity": {
    "requested_model": "nimble",
    "reported_models": [],
    "base_url": "` + srv.URL + `",
    "ollama_version": "0.35.0",
    "model_digest": "` + digest + `"
  }
}
`
	if !strings.HasSuffix(stdout.String(), want) {
		t.Errorf("output ends:\n%s\nwant:\n%s", stdout.String(), want)
	}
	if strings.Contains(stdout.String(), "ollama-no-key") {
		t.Error("the placeholder key is in the output")
	}
	err := run(&bytes.Buffer{}, &bytes.Buffer{}, append(args, "-judge", "absent"), noEnv)
	if err == nil || err.Error() != "the judge model is not listed by Ollama /api/tags" || exitCode(err, io.Discard) != 1 {
		t.Errorf("missing model: %v", err)
	}
}
