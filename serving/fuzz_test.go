package serving

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"
)

// metricsFiles are the /metrics texts of testdata.
var metricsFiles = []string{"spec61_before.txt", "spec61_after.txt", "spec62_before.txt", "spec63_after.txt",
	"vllm-metrics-sample.txt", "vllm_cache_config_metrics.txt"}

// seedTexts adds the metric families of every /metrics text of testdata
// and of the 500-series and real-layout pages (page500, realPage),
// one family (its comment lines and samples) a seed, and the spec's odd
// lines. A whole file is not a seed: the fuzzer minimises every input that
// reaches new code, and on kilobytes of text that took the whole run (17
// executions in 20 s); TestMetricsTextProperties holds the fuzz targets'
// properties on the whole files.
func seedTexts(f *testing.F) {
	for _, text := range append(metricsTexts(f), page500(1), page500(3.7), realPage) {
		for _, fam := range families(text) {
			f.Add(fam)
		}
	}
	for _, s := range []string{
		"# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"1.0\"} 2\n",
		"# TYPE h histogram\nh_bucket{a=\"x\",le=\"1\"} 1\nh_bucket{a=\"y\",le=\"1\"} 2\nh_bucket{a=\"x\",le=\"2\"} 1\n",
		"# TYPE h histogram\nh_count 1.5\nh_sum 2\nh_bucket{le=\"+Inf\"} 3\n",
		"x 1\ny 2\nx 3\n", "# TYPE c counter\nc -1\n", "# TYPE c counter\nc_total{le=\"0.1\"} 1\n",
		"x{a=\"1\",a=\"2\"} 1\n", "x 1 1700000000\n", "# HELP x a\\nb\nx 1\n", "x_bucket{le=\"1\"} 1\n# TYPE x histogram\n",
		"x abc\n", "a{x=\"}\"} 1 12\n", "# TYPE h histogram\nh_bucket{le=\"1\"} 1.5\nh_sum 2\n",
		"# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_count 2\n", `vllm:cache_config_info{a="t\tx\\n",a="dup"} 1`,
		"vllm:cache_config_info{} 1.0", "{\"a.b\",le=\"+Inf\"} NaN\n"} {
		f.Add(s)
	}
}

// families splits an exposition text before each "# HELP" or "# TYPE"
// line that follows a sample line (one metric family a part), and before
// a line that would make a part longer than partMax bytes.
func families(text string) []string {
	var out []string
	var cur strings.Builder
	sample := false
	for _, line := range strings.SplitAfter(text, "\n") {
		if cur.Len() > 0 && (strings.HasPrefix(line, "# ") && sample || cur.Len()+len(line) > partMax) {
			out = append(out, cur.String())
			cur.Reset()
			sample = false
		}
		if line != "" && !strings.HasPrefix(line, "#") {
			sample = true
		}
		cur.WriteString(line)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// metricsTexts reads the /metrics texts of testdata.
func metricsTexts(tb testing.TB) []string {
	texts := make([]string, len(metricsFiles))
	for i, name := range metricsFiles {
		texts[i] = readTestdata(tb, name)
	}
	return texts
}

// partMax is the size a seed part of [families] grows to at most (unless
// one line is longer).
const partMax = 256

// TestMetricsTextProperties holds the properties of FuzzParseSnapshot,
// FuzzCacheConfig and FuzzKVCacheUsage on every whole /metrics text of
// testdata, and checks [families] splits each into parts that make up the
// text (so the fuzz seeds are parts, not the files).
func TestMetricsTextProperties(t *testing.T) {
	for _, name := range metricsFiles {
		text := readTestdata(t, name)
		parts := families(text)
		if len(parts) < 2 || strings.Join(parts, "") != text {
			t.Errorf("%s splits into %d parts, or the parts are not the text", name, len(parts))
		}
		t.Run(name, func(t *testing.T) {
			snapshotProperty(t, text)
			cacheConfigProperty(t, text)
			kvCacheUsageProperty(t, text)
		})
	}
}

// writeSnapshot writes s as untyped exposition text with expfmt's own
// writer, one family per sample name.
func writeSnapshot(t *testing.T, s Snapshot) string {
	byName := map[string]*dto.MetricFamily{}
	for k, v := range s {
		fam := byName[k.Name]
		if fam == nil {
			fam = &dto.MetricFamily{Name: proto.String(k.Name), Type: dto.MetricType_UNTYPED.Enum()}
			byName[k.Name] = fam
		}
		m := &dto.Metric{Untyped: &dto.Untyped{Value: proto.Float64(v)}}
		if k.HasLE {
			m.Label = []*dto.LabelPair{{Name: proto.String("le"), Value: proto.String(k.LE)}}
		}
		fam.Metric = append(fam.Metric, m)
	}
	var buf bytes.Buffer
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range byName {
			if !yield(n) {
				return
			}
		}
	}) {
		if _, err := expfmt.MetricFamilyToText(&buf, byName[name]); err != nil {
			t.Fatalf("writing %q: %v", name, err)
		}
	}
	return buf.String()
}

func sameSnapshot(a, b Snapshot) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !(v == w || (math.IsNaN(v) && math.IsNaN(w))) {
			return false
		}
	}
	return true
}

// FuzzParseSnapshot checks that a snapshot written back as exposition text
// parses to the same snapshot, that parsing is deterministic, and that a
// reading compared with itself changes no counter and no gauge.
func FuzzParseSnapshot(f *testing.F) {
	seedTexts(f)
	f.Fuzz(snapshotProperty)
}

// snapshotProperty is FuzzParseSnapshot's property on one text.
func snapshotProperty(t *testing.T, text string) {
	s, err := ParseSnapshot(text)
	if err != nil {
		if s != nil {
			t.Fatal("an error must come with no snapshot")
		}
		return
	}
	again, err := ParseSnapshot(text)
	if err != nil || !sameSnapshot(s, again) {
		t.Fatalf("second parse differs: %v", err)
	}
	written := writeSnapshot(t, s)
	back, err := ParseSnapshot(written)
	if err != nil {
		t.Fatalf("written snapshot does not parse: %v\n%s", err, written)
	}
	if !sameSnapshot(s, back) {
		t.Fatalf("parse → write → parse changed the snapshot\n%v\n%v", s, back)
	}

	r, err := RunServerDelta(present(text), present(text))
	if err != nil {
		if !strings.Contains(err.Error(), "a sum across engines is not one reading") {
			t.Fatalf("unexpected error %v", err)
		}
		return
	}
	for _, c := range counterFields(&r.Counters) {
		if c.v.Known && c.v.Number != 0 {
			t.Fatalf("counter %s changed against itself: %v", c.name, *c.v)
		}
	}
	for _, g := range gaugeFields(&r.Gauges) {
		if !g.v.Present || g.v.Before != g.v.After {
			t.Fatalf("gauge %s differs against itself: %+v", g.name, *g.v)
		}
	}
	for _, h := range []Histogram{r.E2E, r.Queue, r.Prefill} {
		if h.Known && (h.Count != 0 || h.P50.Set) {
			t.Fatalf("histogram changed against itself: %+v", h)
		}
	}
}

// FuzzCacheConfig checks that CacheConfig never panics and that its labels,
// escaped again into one gauge line, read back unchanged.
func FuzzCacheConfig(f *testing.F) {
	seedTexts(f)
	f.Fuzz(cacheConfigProperty)
}

// cacheConfigProperty is FuzzCacheConfig's property on one text.
func cacheConfigProperty(t *testing.T, text string) {
	labels, ok := CacheConfig(text)
	if ok != (labels != nil) {
		t.Fatalf("ok %v with labels %v", ok, labels)
	}
	if !ok {
		return
	}
	seen := map[string]bool{}
	var line strings.Builder
	line.WriteString(CacheConfigGauge + "{")
	for i, l := range labels {
		if seen[l.Name] {
			t.Fatalf("label %q twice", l.Name)
		}
		seen[l.Name] = true
		if i > 0 {
			line.WriteByte(',')
		}
		esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(l.Value)
		line.WriteString(l.Name + `="` + esc + `"`)
	}
	line.WriteString("} 1.0\n")
	back, ok := CacheConfig(line.String())
	if !ok || !slices.Equal(back, labels) {
		t.Fatalf("re-escaped labels read back as %q (ok %v), want %q\nline %q", back, ok, labels, line.String())
	}
}

// FuzzKVCacheUsage checks that the in-flight read is unknown or finite and
// depends on the first matching line only.
func FuzzKVCacheUsage(f *testing.F) {
	seedTexts(f)
	f.Add("vllm:kv_cache_usage_perc{e=\"0\"} 0.25\n")
	f.Fuzz(kvCacheUsageProperty)
}

// kvCacheUsageProperty is FuzzKVCacheUsage's property on one text.
func kvCacheUsageProperty(t *testing.T, text string) {
	v := KVCacheUsage(text)
	if v.Known && (math.IsNaN(v.Number) || math.IsInf(v.Number, 0)) {
		t.Fatalf("known value %v is not finite", v.Number)
	}
	if got := KVCacheUsage(text + "\nvllm:kv_cache_usage_perc 0.5\n"); v.Known && got != v {
		t.Fatalf("a later line changed the reading: %v, then %v", v, got)
	}
}

// FuzzBlockJSON checks that every block read from JSON writes JSON that
// reads back to the same block and the same bytes (receipts are read back).
func FuzzBlockJSON(f *testing.F) {
	for _, name := range []string{"check_match_vllm_throughput_c4.head.json", "spec61_run_delta.golden", "spec62_delta.golden", "spec63_run_delta.golden"} {
		f.Add([]byte(readTestdata(f, name)))
	}
	f.Add([]byte(`{"cache_config":{"a":"1"},"cache_config_source":"metrics","caller_stated":""}`))
	f.Add([]byte(`{"served":[{"id":"m"}],"build_info":"b","model_alias":null,"n_ctx":1,"http_keepalive":true}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, newBlock := range []func() any{
			func() any { return new(RunDelta) },
			func() any { return new(ServerArgsBlock) },
			func() any { return new(ServerEntry) },
		} {
			v := newBlock()
			if json.Unmarshal(data, v) != nil {
				continue
			}
			first, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("%T read but does not write: %v", v, err)
			}
			w := newBlock()
			if err := json.Unmarshal(first, w); err != nil {
				t.Fatalf("%T written as %s does not read back: %v", v, first, err)
			}
			second, err := json.Marshal(w)
			if err != nil || !bytes.Equal(first, second) {
				t.Fatalf("%T not stable: %s then %s (%v)", v, first, second, err)
			}
		}
	})
}

// bodyTransport answers each GET in memory with the body routes holds for
// its path (404 for any other path), so a fuzzer drives ReadServerEntry
// without a socket.
type bodyTransport map[string][]byte

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	if body, ok := b[r.URL.Path]; ok {
		rec.Header().Set("Content-Type", "application/json")
		_, _ = rec.Write(body)
	} else {
		rec.WriteHeader(http.StatusNotFound)
	}
	return rec.Result(), nil
}

// FuzzReadServerEntry serves arbitrary /v1/models, /version and /props
// bodies to ReadServerEntry for both backends. Invariant: a vLLM read fails
// only on /v1/models (a bad /version is "unknown"); a read entry lists only
// models whose id is the run's model, has llama.cpp facts exactly on
// llama.cpp, writes JSON whose served entries hold no key but id, root and
// max_model_len, and that JSON reads back and writes the same bytes.
func FuzzReadServerEntry(f *testing.F) {
	f.Add([]byte(vllmModels), []byte(`{"version":"0.30.0"}`), []byte(`{}`), "google/gemma-4-31B-it", false)
	f.Add([]byte(`{"data":[{"id":"m","root":7,"max_model_len":8192.5,"owned_by":"x"},{"id":"m","root":"r","max_model_len":-1}]}`),
		[]byte(`{"version":null}`), []byte(`{"build_info":"b1","model_alias":"m","default_generation_settings":{"n_ctx":8192}}`), "m", true)
	f.Add([]byte(`{"data":[{"id":"m"}]}`), []byte(`<html>`), []byte(`{"build_info":7,"model_alias":null,"default_generation_settings":{"n_ctx":"8192"}}`), "m", true)
	f.Add([]byte(`{"data":null}`), []byte(`{"version":"x"}`), []byte(`[]`), "m", false)
	f.Add([]byte(`{"DATA":[{"ID":"m","Root":"<\u2028>"}]}`), []byte(`{"Version":"v"}`), []byte(`{"Build_Info":"b"}`), "m", true)
	f.Add([]byte(`[]`), []byte(``), []byte(`null`), "", false)
	f.Fuzz(func(t *testing.T, models, version, props []byte, model string, llama bool) {
		backend := VLLM
		if llama {
			backend = LlamaCPP
		}
		client := &http.Client{Transport: bodyTransport{"/v1/models": models, "/version": version, "/props": props}}
		e, err := ReadServerEntry(context.Background(), client, "http://server.invalid", backend, model)
		if err != nil {
			if backend == VLLM && !strings.Contains(err.Error(), "/v1/models") {
				t.Fatalf("vLLM read failed outside /v1/models: %v", err)
			}
			return
		}
		if (e.LlamaCPP != nil) != llama || (llama && e.LlamaCPP.HTTPKeepalive) {
			t.Fatalf("%s entry has llama.cpp facts %+v", backend, e.LlamaCPP)
		}
		for _, s := range e.Served {
			if s.ID != model {
				t.Fatalf("served entry %q for model %q", s.ID, model)
			}
		}
		first, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("entry %+v does not write: %v", e, err)
		}
		var keys struct {
			Served []map[string]json.RawMessage `json:"served"`
		}
		if err := json.Unmarshal(first, &keys); err != nil || len(keys.Served) != len(e.Served) {
			t.Fatalf("written entry %s: served list unreadable (%v)", first, err)
		}
		for _, s := range keys.Served {
			for k := range s {
				if k != "id" && k != "root" && k != "max_model_len" {
					t.Fatalf("served entry key %q in %s; want only id, root, max_model_len", k, first)
				}
			}
		}
		var back ServerEntry
		if err := json.Unmarshal(first, &back); err != nil {
			t.Fatalf("entry written as %s does not read back: %v", first, err)
		}
		second, err := json.Marshal(back)
		if err != nil || !bytes.Equal(first, second) {
			t.Fatalf("entry not stable: %s then %s (%v)", first, second, err)
		}
	})
}
