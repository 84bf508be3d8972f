package calibration

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/typevet/typevet-go/internal/pyjson"
	"github.com/typevet/typevet-go/internal/pymath"
)

// Schema is the schema id every map document declares.
const Schema = "typevet.calibration_map/1"

// Clip is the distance from 0 and 1 to which a map clips its input and its
// output, and the fitters clip their input (typevet's CALIBRATION_CLIP).
const Clip = 1e-6

// Method is a map's fitted function.
type Method string

// The three methods typevet fits and applies.
const (
	Temperature Method = "temperature" // sigmoid(logit(p) / T)
	Platt       Method = "platt"       // sigmoid(slope·logit(p) + intercept)
	Isotonic    Method = "isotonic"    // non-decreasing steps over knots
)

// Methods lists the methods in typevet's order.
var Methods = []Method{Temperature, Platt, Isotonic}

// String returns the method's name as a map file writes it.
func (m Method) String() string { return string(m) }

func (m Method) valid() bool { return m == Temperature || m == Platt || m == Isotonic }

// Parameters holds the fitted parameters of one method; only the fields of
// the map's method are set.
type Parameters struct {
	// Temperature is T, above zero (temperature maps).
	Temperature float64
	// Slope and Intercept are a and b (platt maps).
	Slope, Intercept float64
	// Knots are strictly ascending probabilities in [0, 1] and Values the
	// non-decreasing value at each knot (isotonic maps).
	Knots, Values []float64
}

// FittedOn says where a map was fitted.
type FittedOn struct {
	// TaskID is the caller-defined task the map belongs to.
	TaskID string
	// Receipt is the path or name of the source receipt.
	Receipt string
	// ReceiptSHA256 is the lower-case hex SHA-256 of the source receipt,
	// for traceability only.
	ReceiptSHA256 string
	// NCalibration is the row count of the calibration half.
	NCalibration int
	// Model is the model id of the source receipt.
	Model string
	// Backend is the serving backend of the source receipt ("llama_cpp",
	// "vllm").
	Backend string
}

// Metrics are the evaluation-half figures typevet records before and after
// a fit.
type Metrics struct {
	// ECE is the 10-bin expected calibration error.
	ECE float64
	// Brier is the mean squared error of the probabilities.
	Brier float64
	// Accuracy is the share of rows read right at 0.5.
	Accuracy float64
}

// Evaluation holds the held-out metrics the producer recorded. A map whose
// rule was not met is still valid; the wrapper records it and never
// refuses on it.
type Evaluation struct {
	// NEvaluation is the row count of the evaluation half.
	NEvaluation int
	// Before and After are the evaluation-half metrics.
	Before, After Metrics
	// RuleMet is the pre-registered rule's outcome; nil when not recorded.
	RuleMet *bool
}

// Map is one validated calibration map for one task and one question.
type Map struct {
	// Method is the fitted function.
	Method Method
	// Parameters are the fitted parameters of Method.
	Parameters Parameters
	// FittedOn says where the map was fitted.
	FittedOn FittedOn
	// Evaluation holds the recorded held-out metrics.
	Evaluation Evaluation
	// Producer is the producer's version (the file's producer.typevet_evals).
	Producer string
	// SHA256 is the lower-case hex SHA-256 of the map file's bytes.
	SHA256 string
	// Levels is the level count of a Score map; 0 for a Noul map.
	Levels int

	raw []byte // the file's bytes, when the map was read from them
}

// NormalizeSHA256 returns a SHA-256 hex digest in lower case, or a
// *[DigestError] when it is empty or not 64 hex characters.
func NormalizeSHA256(digest string) (string, error) {
	if digest == "" {
		return "", &DigestError{Msg: "calibration map sha256 is missing"}
	}
	lowered := strings.ToLower(digest)
	if len(lowered) != sha256.Size*2 || strings.Trim(lowered, "0123456789abcdef") != "" {
		return "", &DigestError{Msg: "calibration map sha256 is not 64 hex characters"}
	}
	return lowered, nil
}

// Load reads, verifies and validates one map file, as typevet's
// load_calibration_map does; see [Read].
func Load(path, pinned string) (*Map, error) {
	if _, err := NormalizeSHA256(pinned); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Read(data, pinned)
}

// Read verifies and validates the bytes of one map file. pinned is the
// SHA-256 the caller pins; a missing or malformed pin, or bytes with
// another digest, is a *[DigestError] before anything is parsed. Bytes
// that are not UTF-8 JSON, or a document that fails typevet's validation,
// are a *[MapError] naming the field. The map keeps the bytes ([Map.Bytes]).
func Read(data []byte, pinned string) (*Map, error) {
	want, err := NormalizeSHA256(pinned)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	got := hex.EncodeToString(sum[:])
	if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return nil, &DigestError{Msg: "calibration map file digest does not match the supplied sha256"}
	}
	if !utf8.Valid(data) {
		return nil, &MapError{Msg: "calibration map file is not UTF-8 JSON"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, &MapError{Msg: "calibration map file is not UTF-8 JSON"}
	}
	if _, err := dec.Token(); err == nil {
		return nil, &MapError{Msg: "calibration map file is not UTF-8 JSON"}
	}
	m, err := FromDocument(doc, want)
	if err != nil {
		return nil, err
	}
	m.raw = bytes.Clone(data)
	return m, nil
}

// FromDocument validates a parsed map document (JSON decoded with
// json.Decoder.UseNumber, so integers and floats stay apart as in Python)
// and builds the Map, in typevet's order of checks: the digest, the
// document, schema, method, parameters, fitted_on, evaluation, producer,
// levels. An absent or null levels gives a Noul map.
func FromDocument(doc any, digest string) (*Map, error) {
	d, err := NormalizeSHA256(digest)
	if err != nil {
		return nil, err
	}
	data, ok := doc.(map[string]any)
	if !ok {
		return nil, &MapError{Msg: "calibration map document is not an object"}
	}
	if s, ok := data["schema"].(string); !ok || s != Schema {
		return nil, bad("schema")
	}
	method, ok := data["method"].(string)
	if !ok || !Method(method).valid() {
		return nil, bad("method")
	}
	m := &Map{Method: Method(method), SHA256: d}
	params, err := section(data, "parameters")
	if err != nil {
		return nil, err
	}
	if m.Parameters, err = parameters(m.Method, params); err != nil {
		return nil, err
	}
	if m.FittedOn, err = fittedOn(data); err != nil {
		return nil, err
	}
	if m.Evaluation, err = evaluation(data); err != nil {
		return nil, err
	}
	producer, err := section(data, "producer")
	if err != nil {
		return nil, err
	}
	if m.Producer, err = text(producer, "typevet_evals", "producer"); err != nil {
		return nil, err
	}
	if v, present := data["levels"]; present && v != nil {
		n, ok := integer(v)
		if !ok || n < 2 {
			return nil, bad("levels")
		}
		m.Levels = int(n)
	}
	return m, nil
}

func bad(field string) error { return &MapError{Field: field} }

func section(c map[string]any, key string) (map[string]any, error) {
	s, ok := c[key].(map[string]any)
	if !ok {
		return nil, bad(key)
	}
	return s, nil
}

// finite is typevet's _finite: an int or float (never a bool), finite.
func finite(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// integer reports a JSON number written as a Python int (no fraction or
// exponent).
func integer(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok || strings.ContainsAny(string(n), ".eE") {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

func number(c map[string]any, key, field string) (float64, error) {
	f, ok := finite(c[key])
	if !ok {
		return 0, bad(field)
	}
	return f, nil
}

func count(c map[string]any, key, field string) (int, error) {
	i, ok := integer(c[key])
	if !ok || i < 1 || i > math.MaxInt32 {
		return 0, bad(field)
	}
	return int(i), nil
}

// pySpace is Python's str.isspace: Unicode white space plus the four
// information separators U+001C..U+001F.
func pySpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

func text(c map[string]any, key, field string) (string, error) {
	s, ok := c[key].(string)
	if !ok || strings.TrimFunc(s, pySpace) == "" {
		return "", bad(field)
	}
	return s, nil
}

func probabilities(params map[string]any, key string) ([]float64, error) {
	list, ok := params[key].([]any)
	if !ok || len(list) == 0 {
		return nil, bad("parameters." + key)
	}
	out := make([]float64, len(list))
	for i, v := range list {
		f, ok := finite(v)
		if !ok || f < 0 || f > 1 {
			return nil, bad("parameters." + key)
		}
		out[i] = f
	}
	return out, nil
}

var parameterKeys = map[Method][]string{
	Temperature: {"temperature"},
	Platt:       {"intercept", "slope"},
	Isotonic:    {"knots", "values"},
}

func parameters(method Method, params map[string]any) (Parameters, error) {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, "\x00") != strings.Join(parameterKeys[method], "\x00") {
		return Parameters{}, bad("parameters")
	}
	var p Parameters
	var err error
	switch method {
	case Temperature:
		if p.Temperature, err = number(params, "temperature", "parameters.temperature"); err != nil {
			return p, err
		}
		if p.Temperature <= 0 {
			return p, bad("parameters.temperature")
		}
	case Platt:
		if p.Slope, err = number(params, "slope", "parameters.slope"); err != nil {
			return p, err
		}
		if p.Intercept, err = number(params, "intercept", "parameters.intercept"); err != nil {
			return p, err
		}
	default:
		if p.Knots, err = probabilities(params, "knots"); err != nil {
			return p, err
		}
		if p.Values, err = probabilities(params, "values"); err != nil {
			return p, err
		}
		if len(p.Knots) != len(p.Values) {
			return p, bad("parameters.values")
		}
		for i := 1; i < len(p.Knots); i++ {
			if p.Knots[i] <= p.Knots[i-1] {
				return p, bad("parameters.knots")
			}
		}
		for i := 1; i < len(p.Values); i++ {
			if p.Values[i] < p.Values[i-1] {
				return p, bad("parameters.values")
			}
		}
	}
	return p, nil
}

func fittedOn(data map[string]any) (FittedOn, error) {
	var f FittedOn
	s, err := section(data, "fitted_on")
	if err != nil {
		return f, err
	}
	digest, err := text(s, "receipt_sha256", "fitted_on.receipt_sha256")
	if err != nil {
		return f, err
	}
	if f.ReceiptSHA256, err = NormalizeSHA256(digest); err != nil {
		return f, bad("fitted_on.receipt_sha256")
	}
	if f.TaskID, err = text(s, "task_id", "fitted_on.task_id"); err != nil {
		return f, err
	}
	if f.Receipt, err = text(s, "receipt", "fitted_on.receipt"); err != nil {
		return f, err
	}
	if f.NCalibration, err = count(s, "n_calibration", "fitted_on.n_calibration"); err != nil {
		return f, err
	}
	if f.Model, err = text(s, "model", "fitted_on.model"); err != nil {
		return f, err
	}
	f.Backend, err = text(s, "backend", "fitted_on.backend")
	return f, err
}

func metrics(s map[string]any, key string) (Metrics, error) {
	var m Metrics
	block, err := section(s, key)
	if err != nil {
		return m, err
	}
	prefix := "evaluation." + key + "."
	if m.ECE, err = number(block, "ece", prefix+"ece"); err != nil {
		return m, err
	}
	if m.Brier, err = number(block, "brier", prefix+"brier"); err != nil {
		return m, err
	}
	m.Accuracy, err = number(block, "accuracy", prefix+"accuracy")
	return m, err
}

func evaluation(data map[string]any) (Evaluation, error) {
	var e Evaluation
	s, err := section(data, "evaluation")
	if err != nil {
		return e, err
	}
	if v := s["rule_met"]; v != nil {
		b, ok := v.(bool)
		if !ok {
			return e, bad("evaluation.rule_met")
		}
		e.RuleMet = &b
	}
	if e.NEvaluation, err = count(s, "n_evaluation", "evaluation.n_evaluation"); err != nil {
		return e, err
	}
	if e.Before, err = metrics(s, "before"); err != nil {
		return e, err
	}
	e.After, err = metrics(s, "after")
	return e, err
}

// Apply maps one probability through the fitted function, clipping its
// input and its output to [Clip, 1 - Clip], with CPython's exp and log.
// A p that is not a finite number in [0, 1] is a *[MapError].
func (m *Map) Apply(p float64) (float64, error) {
	if math.IsNaN(p) || math.IsInf(p, 0) || p < 0 || p > 1 {
		return 0, &MapError{Msg: "calibration input is not a probability"}
	}
	return clip(m.Parameters.mapped(m.Method, clip(p))), nil
}

// ApplyLevels maps each level probability of a Score answer, then rescales
// the levels to sum to 1 (math.fsum of the mapped values).
func (m *Map) ApplyLevels(probabilities []float64) ([]float64, error) {
	mapped := make([]float64, len(probabilities))
	for i, p := range probabilities {
		v, err := m.Apply(p)
		if err != nil {
			return nil, err
		}
		mapped[i] = v
	}
	total := pymath.FSum(mapped)
	for i := range mapped {
		mapped[i] /= total
	}
	return mapped, nil
}

func (p Parameters) mapped(method Method, x float64) float64 {
	switch method {
	case Temperature:
		return sigmoid(logit(x) / p.Temperature)
	case Platt:
		return sigmoid(float64(p.Slope*logit(x)) + p.Intercept)
	default:
		i := sort.Search(len(p.Knots), func(i int) bool { return p.Knots[i] > x }) - 1
		return p.Values[max(i, 0)]
	}
}

// clip is min(max(p, Clip), 1 - Clip) in Python's argument order.
func clip(p float64) float64 {
	if Clip > p {
		p = Clip
	}
	if 1-Clip < p {
		p = 1 - Clip
	}
	return p
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + pymath.Exp(-z))
	}
	e := pymath.Exp(z)
	return e / (1 + e)
}

// logit is log(p / (1 - p)) of an already clipped p.
func logit(p float64) float64 { return pymath.Log(p / (1 - p)) }

// Bytes returns the bytes the map was read from, so writing a loaded map
// back gives the same file and digest; for a map built in memory it
// returns [Map.Encode]'s bytes.
func (m *Map) Bytes() ([]byte, error) {
	if m.raw != nil {
		return bytes.Clone(m.raw), nil
	}
	return m.Encode()
}

// Encode writes the map as typevet's write_calibration_map does:
// json.dumps(document, indent=2, sort_keys=True, allow_nan=False) and a
// final newline, floats in Python's repr. rule_met is left out when nil,
// levels when 0. A float that is not finite is an error.
func (m *Map) Encode() ([]byte, error) {
	var params pyjson.Object
	switch m.Method {
	case Temperature:
		params = pyjson.Object{{Key: "temperature", Value: m.Parameters.Temperature}}
	case Platt:
		params = pyjson.Object{{Key: "slope", Value: m.Parameters.Slope}, {Key: "intercept", Value: m.Parameters.Intercept}}
	default:
		params = pyjson.Object{{Key: "knots", Value: floats(m.Parameters.Knots)}, {Key: "values", Value: floats(m.Parameters.Values)}}
	}
	metrics := func(x Metrics) pyjson.Object {
		return pyjson.Object{{Key: "ece", Value: x.ECE}, {Key: "brier", Value: x.Brier}, {Key: "accuracy", Value: x.Accuracy}}
	}
	eval := pyjson.Object{
		{Key: "n_evaluation", Value: m.Evaluation.NEvaluation},
		{Key: "before", Value: metrics(m.Evaluation.Before)},
		{Key: "after", Value: metrics(m.Evaluation.After)},
	}
	if m.Evaluation.RuleMet != nil {
		eval = append(eval, pyjson.Member{Key: "rule_met", Value: *m.Evaluation.RuleMet})
	}
	f := m.FittedOn
	doc := pyjson.Object{
		{Key: "schema", Value: Schema},
		{Key: "method", Value: string(m.Method)},
		{Key: "parameters", Value: params},
		{Key: "fitted_on", Value: pyjson.Object{
			{Key: "task_id", Value: f.TaskID},
			{Key: "receipt", Value: f.Receipt},
			{Key: "receipt_sha256", Value: f.ReceiptSHA256},
			{Key: "n_calibration", Value: f.NCalibration},
			{Key: "model", Value: f.Model},
			{Key: "backend", Value: f.Backend},
		}},
		{Key: "evaluation", Value: eval},
		{Key: "producer", Value: pyjson.Object{{Key: "typevet_evals", Value: m.Producer}}},
	}
	if m.Levels != 0 {
		doc = append(doc, pyjson.Member{Key: "levels", Value: m.Levels})
	}
	out, err := pyjson.Marshal(doc, pyjson.Options{SortKeys: true, EnsureASCII: true, Indent: 2})
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// floats keeps an empty list a list ([]), never null.
func floats(xs []float64) []float64 {
	if xs == nil {
		return []float64{}
	}
	return xs
}

// Write encodes the map ([Map.Encode]), writes it to path and returns the
// lower-case hex SHA-256 of the bytes written, the digest a caller pins.
func (m *Map) Write(path string) (string, error) {
	data, err := m.Encode()
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}
