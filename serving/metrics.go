package serving

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// MetricsPath is the vLLM endpoint that [Read] gets.
const MetricsPath = "/metrics"

// MaxBodyBytes caps the body of every read in this package. A longer
// /metrics page is no reading; a longer JSON body is an error.
const MaxBodyBytes = 64 << 20

// Reading is the text of one GET /metrics, or no reading. The zero Reading
// is no reading (typevet's None).
type Reading struct {
	// Text is the body of the /metrics reply; meaningful only when OK.
	Text string
	// OK is false when the read failed or was not made.
	OK bool
}

// Read makes one GET of baseURL + "/metrics" with client (the session client
// of the vLLM judgment, so that its headers and timeout apply; nil means
// [http.DefaultClient]) and returns the body when the status is exactly 200.
// There is no retry.
//
// Every other outcome is no reading (ok false): a transport error, a
// cancelled or expired ctx, a body over [MaxBodyBytes], and every status
// other than 200. Redirects are not followed: Read uses a copy of client
// whose CheckRedirect stops at the first reply, so a 3xx is no reading too.
//
// A 200 reply is returned whatever its content type; a body that is not
// exposition text (an HTML login page) then counts as missing in
// [ServerDelta] and [RunServerDelta], with the reason in their Warnings.
//
// Decision on a typevet quirk: typevet's client raises
// its own BackendHttpError on a 3xx reply and on an HTML error page (status
// ≥ 400 with an HTML body), and read_metrics lets that error escape instead
// of returning None. Read treats both as no reading, like every other
// non-200 reply, so a proxy's error page never ends a run.
func Read(ctx context.Context, client *http.Client, baseURL string) (text string, ok bool) {
	status, body, err := get(ctx, client, baseURL, MetricsPath)
	if err != nil || status != http.StatusOK {
		return "", false
	}
	return string(body), true
}

// get makes one GET of baseURL (trailing "/" removed) + pathAndQuery
// without following redirects and returns the status and the body.
func get(ctx context.Context, client *http.Client, baseURL, pathAndQuery string) (int, []byte, error) {
	if client == nil {
		client = http.DefaultClient
	}
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(baseURL, "/")+pathAndQuery, nil)
	if err != nil {
		return 0, nil, fmt.Errorf("serving: GET %s: %w", pathAndQuery, err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("serving: GET %s: %w", pathAndQuery, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("serving: GET %s: reading the body: %w", pathAndQuery, err)
	}
	if len(body) > MaxBodyBytes {
		return resp.StatusCode, nil, fmt.Errorf("serving: GET %s: body longer than %d bytes", pathAndQuery, MaxBodyBytes)
	}
	return resp.StatusCode, body, nil
}

// Key names one entry of a [Snapshot]: a sample name and its le label.
type Key struct {
	// Name is the sample name as written, suffix included
	// (vllm:e2e_request_latency_seconds_bucket, vllm:prompt_tokens_total).
	Name string
	// LE is the le label value; meaningful only when HasLE is true.
	LE string
	// HasLE is false for a sample without an le label.
	HasLE bool
}

// Snapshot maps each (sample name, le) pair of one /metrics reading to the
// sum of its samples over every other label (model_name, engine,
// finished_reason, …), as typevet's snapshot does.
type Snapshot map[Key]float64

// Get returns the value of the sample name without an le label.
func (s Snapshot) Get(name string) (float64, bool) {
	v, ok := s[Key{Name: name}]
	return v, ok
}

// Counter returns the counter name read the typevet way: name + "_total"
// when present (prometheus_client adds the suffix), else the bare name.
func (s Snapshot) Counter(name string) (float64, bool) {
	if v, ok := s.Get(name + "_total"); ok {
		return v, true
	}
	return s.Get(name)
}

// ParseSnapshot parses Prometheus text exposition (format 0.0.4) with
// expfmt's text parser and sums the samples into a [Snapshot].
//
// A text that is not valid exposition text is an error (wrapping the
// [expfmt.ParseError] that names the line) and no snapshot; the delta
// functions then count the reading as missing. The text is read as
// follows, and these are the documented differences from typevet's line
// regex, which skips what it cannot read instead of refusing the page:
//
//   - Lines end at "\n"; a "\r\n" ending is read as "\n" and a missing final
//     newline is added. Other line breaks Python's splitlines knows are not
//     line breaks here.
//   - A value that is not exposition text makes the whole text invalid,
//     whether typevet skips it (x abc) or reads it: typevet reads a value
//     with Python's float, which accepts digit-group underscores and other
//     spellings (1_000 is 1000.0, " 1e3" or "infinity" too), while expfmt
//     refuses them; a page holding one is a missing reading here, a
//     deliberate difference (vLLM's prometheus_client never writes such a
//     value). A float timestamp makes the text invalid too; an integer
//     timestamp is ignored, as in typevet.
//   - A label value holding "}" is read (typevet skips such a line), label
//     values are unescaped, indented lines are read (typevet skips them), and
//     a label name given twice in one sample makes the text invalid.
//   - Samples are named as written: a counter sample written x_total is
//     x_total even under "# TYPE x counter"; _created samples are kept under
//     their own name and never read by the delta functions; families
//     without a TYPE line are untyped and read sample by sample.
//   - A family typed histogram (or summary) is turned back into its sample
//     names: <base>_bucket with le, <base>_count and <base>_sum, each only
//     when written. expfmt reads le as a number, so the le string of a typed
//     histogram is re-spelled the way prometheus_client writes it (1.0,
//     0.005, +Inf, 1e+06); untyped families keep le exactly as written. In a
//     typed histogram expfmt drops a _bucket sample without le, refuses a
//     negative bucket count, keeps the last of two _count or _sum samples of
//     one label set instead of summing them, and writes a _count of 0 when
//     _count is missing but a bucket count is fractional. A summary's
//     quantile samples sum into <base> like any other label.
//
// Samples of one key are summed in text order, so equal texts give equal
// snapshots bit for bit.
func ParseSnapshot(text string) (Snapshot, error) {
	snap := Snapshot{}
	err := eachSample(text, func(s sample) {
		snap[s.key] += s.value
	})
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// sample is one sample of a parsed text, named as it was written.
type sample struct {
	key       Key
	engine    string // the engine label's value, when hasEngine
	hasEngine bool
	value     float64
}

// eachSample parses text with expfmt and calls fn for every sample,
// family by family in name order and sample by sample in text order (the
// only order a sum sees).
func eachSample(text string, fn func(sample)) error {
	fams, err := parseFamilies(text)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(fams))
	for name := range fams {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fam := fams[name]
		for _, m := range fam.GetMetric() {
			familySamples(name, fam.GetType(), m, fn)
		}
	}
	return nil
}

// parseFamilies runs expfmt's text parser over text.
func parseFamilies(text string) (map[string]*dto.MetricFamily, error) {
	if strings.Contains(text, "\r\n") {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("not valid exposition text: %w", err)
	}
	return fams, nil
}

// familySamples turns one expfmt metric back into the samples that were
// written for it.
func familySamples(name string, typ dto.MetricType, m *dto.Metric, fn func(sample)) {
	labels := m.GetLabel()
	var engine string
	var hasEngine bool
	for _, l := range labels {
		if l.GetName() == "engine" {
			engine, hasEngine = l.GetValue(), true
			break
		}
	}
	plain := func(sampleName string, v float64) {
		fn(sample{key: Key{Name: sampleName}, engine: engine, hasEngine: hasEngine, value: v})
	}
	switch typ {
	case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
		h := m.GetHistogram()
		for _, b := range h.GetBucket() {
			n := float64(b.GetCumulativeCount())
			if b.CumulativeCountFloat != nil {
				n = b.GetCumulativeCountFloat()
			}
			fn(sample{key: Key{Name: name + "_bucket", LE: leString(b.GetUpperBound()), HasLE: true}, engine: engine, hasEngine: hasEngine, value: n})
		}
		switch {
		case h.SampleCountFloat != nil:
			plain(name+"_count", h.GetSampleCountFloat())
		case h.SampleCount != nil:
			plain(name+"_count", float64(h.GetSampleCount()))
		}
		if h.SampleSum != nil {
			plain(name+"_sum", h.GetSampleSum())
		}
	case dto.MetricType_SUMMARY:
		s := m.GetSummary()
		for _, q := range s.GetQuantile() {
			plain(name, q.GetValue())
		}
		if s.SampleCount != nil {
			plain(name+"_count", float64(s.GetSampleCount()))
		}
		if s.SampleSum != nil {
			plain(name+"_sum", s.GetSampleSum())
		}
	default:
		var v float64
		switch {
		case m.Counter != nil:
			v = m.GetCounter().GetValue()
		case m.Gauge != nil:
			v = m.GetGauge().GetValue()
		default:
			v = m.GetUntyped().GetValue()
		}
		k := Key{Name: name}
		for _, l := range labels {
			if l.GetName() == "le" {
				k.LE, k.HasLE = l.GetValue(), true
				break
			}
		}
		fn(sample{key: k, engine: engine, hasEngine: hasEngine, value: v})
	}
}

// leString spells a typed histogram's bucket edge the way prometheus_client
// writes le (its floatToGoString): +Inf, -Inf, NaN, Python's repr, and an
// exponent form for positive values of a million or more (1e+06).
func leString(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case math.IsNaN(f):
		return "NaN"
	}
	s := Known(f).String()
	dot := strings.IndexByte(s, '.')
	if f > 0 && dot > 6 {
		mantissa := strings.TrimRight(s[:1]+"."+s[1:dot]+s[dot+1:], "0.")
		return fmt.Sprintf("%se+0%d", mantissa, dot-1)
	}
	return s
}
