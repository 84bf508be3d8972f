package stats

import (
	"errors"
	"slices"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/receipt"
)

// Schema names and versions of the documents. A reader refuses another
// schema and a version above its own; a new version adds keys only where a
// reader of the old one can ignore them.
const (
	// IntervalsSchema is the "schema" of an [Intervals] document.
	IntervalsSchema = "typevet-go/check-match-intervals"
	// IntervalsVersion is the version this package writes and reads.
	// Version 2 added the "cluster" key, each share's "effective_n" and
	// the "wilson_korn_graubard" interval.
	IntervalsVersion = 2
	// ComparisonSchema is the "schema" of a [Comparison] document.
	ComparisonSchema = "typevet-go/check-match-comparison"
	// ComparisonVersion is the version this package writes and reads.
	// Version 2 added "mcnemar.mid_p_value", each test's "assumption" and
	// the "row_test" object.
	ComparisonVersion = 2
)

// Source names the receipt a document was computed from: its "receipt"
// object (or "a" and "b" of a comparison). Every value is copied from the
// receipt.
type Source struct {
	// SHA256 is the lower-case hex SHA-256 of the receipt file's bytes as
	// read (set by the command that read the file); "" when the receipt
	// came from elsewhere.
	SHA256 string `json:"sha256"`
	// Backend is the receipt's backend ("llama_cpp", "vllm", …).
	Backend string `json:"backend"`
	// Model is the receipt's model.
	Model string `json:"model"`
	// RunID is identity.run_id.
	RunID string `json:"run_id"`
	// IdentityDigest is identity.identity_digest.
	IdentityDigest string `json:"identity_digest"`
	// FinishedUTC is pins.finished_utc.
	FinishedUTC string `json:"finished_utc"`
	// GeneratorSeed is pins.generator_seed.
	GeneratorSeed uint64 `json:"generator_seed"`
	// RegisterRows is pins.register_rows.
	RegisterRows int `json:"register_rows"`
	// SliceSHA256 is pins.slice_sha256.
	SliceSHA256 string `json:"slice_sha256"`
	// Cases is the number of case records.
	Cases int `json:"cases"`
	// Stopped is true when the run stopped early (the receipt's stopped
	// block is not null), so its cases are a prefix of the slice.
	Stopped bool `json:"stopped"`
}

// NewSource copies the naming fields of r (SHA256 left "").
func NewSource(r checkmatch.Receipt) Source {
	return Source{
		Backend:        string(r.Backend),
		Model:          r.Model,
		RunID:          r.Identity.RunID,
		IdentityDigest: r.Identity.IdentityDigest,
		FinishedUTC:    r.Pins.FinishedUTC,
		GeneratorSeed:  r.Pins.GeneratorSeed,
		RegisterRows:   r.Pins.RegisterRows,
		SliceSHA256:    r.Pins.SliceSHA256,
		Cases:          len(r.Cases),
		Stopped:        r.Stopped != nil,
	}
}

// Rates are the three headline shares of a group of cases, each with its
// Wilson interval: a "rates" object.
type Rates struct {
	// Accuracy is the share of cases whose verdict is accepted (the
	// record's correct).
	Accuracy Proportion `json:"accuracy"`
	// FalseClearRate is the share of counted cases answered "consistent":
	// n counts the mismatch and unsigned cases for which "consistent" is
	// not accepted, as the receipt's false_clear_rate does; n is 0 (and
	// the values null) for clean and low_legibility groups.
	FalseClearRate Proportion `json:"false_clear_rate"`
	// CannotTellRate is the share of cannot_tell verdicts.
	CannotTellRate Proportion `json:"cannot_tell_rate"`
}

// NoulIntervals scores one Noul: an entry of the "nouls" object, keyed by
// the Noul's question name.
type NoulIntervals struct {
	// Positives and Negatives count the cases whose truth is true and
	// false.
	Positives int `json:"positives"`
	Negatives int `json:"negatives"`
	// ROCAUC is the receipt's roc_auc (Mann–Whitney, average ranks) with
	// its bootstrap interval.
	ROCAUC Estimate `json:"roc_auc"`
	// ECE is the receipt's ece (10 equal-width bins) with its bootstrap
	// interval.
	ECE Estimate `json:"ece"`
	// Brier is the Brier score ([Brier]); null without cases.
	Brier *float64 `json:"brier"`
	// LogLoss is the log loss ([LogLoss]); null without cases.
	LogLoss *float64 `json:"log_loss"`
}

// Intervals is the intervals document of one receipt ([ReceiptIntervals]),
// written by examples/stats. Its fields, in order, are the document's keys:
//
//	{"schema": "typevet-go/check-match-intervals", "version": 2,
//	 "receipt": {…}, "level": 0.95, "interval": "wilson_korn_graubard",
//	 "cluster": "register_row",
//	 "bootstrap": {…}, "overall": {…}, "by_variant": {…},
//	 "by_class": {…}, "nouls": {…}}
//
// followed by "calibration": {…} for a calibrated run's receipt read with
// its calibration records.
type Intervals struct {
	// Schema is always [IntervalsSchema].
	Schema string `json:"schema"`
	// Version is [IntervalsVersion] (2).
	Version int `json:"version"`
	// Receipt names the receipt ([Source]).
	Receipt Source `json:"receipt"`
	// Level is the level of every interval (0.95).
	Level float64 `json:"level"`
	// Interval names the interval of the shares: "wilson" (the Wilson
	// score interval, [Wilson], cases taken as independent) or
	// "wilson_korn_graubard" (the Wilson interval at the Korn–Graubard
	// effective sample size of the register-row clusters, [EffectiveN]).
	Interval string `json:"interval"`
	// Cluster is what the shares' intervals and the bootstrap take as
	// independent: "register_row" (the default: the seven variants of a
	// row share a payee, amount and date) or "case".
	Cluster Cluster `json:"cluster"`
	// Bootstrap says how the Noul intervals were drawn.
	Bootstrap Bootstrap `json:"bootstrap"`
	// Overall holds the shares over every case.
	Overall Rates `json:"overall"`
	// ByVariant holds the shares per variant, in the variants' enum order
	// (clean, payee_changed, …), for the variants present.
	ByVariant receipt.Ordered[Rates] `json:"by_variant"`
	// ByClass holds the shares per accepted class (the accepted verdicts
	// joined with "|", as the receipt's accuracy_by_class), keys sorted
	// ascending.
	ByClass receipt.Ordered[Rates] `json:"by_class"`
	// Nouls scores each Noul, payee_matches then amounts_match.
	Nouls receipt.Ordered[NoulIntervals] `json:"nouls"`
	// Calibration, for a calibrated run read with its calibration
	// records, scores each mapped Noul raw and calibrated
	// ([ReceiptCalibration]); absent otherwise. Nouls above score the
	// receipt's confidences, the calibrated ones.
	Calibration *Calibration `json:"calibration,omitempty"`
}

// ReceiptIntervals computes the intervals document of a receipt's cases.
// The estimates equal the receipt's own metrics (accuracy,
// false_clear_rate, cannot_tell_rate and their per-variant and per-class
// values, each Noul's roc_auc and ece); the intervals are Wilson for the
// shares and the percentile bootstrap of opts for ROC-AUC and ECE (one set
// of resamples serves every statistic). A receipt without cases, or one
// that breaks the receipt's rules ([checkmatch.Receipt.Validate]: an
// unknown variant, a confidence outside [0, 1], …), is an error naming
// the case.
func ReceiptIntervals(r checkmatch.Receipt, opts Options) (Intervals, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return Intervals{}, err
	}
	if err := r.Validate(); err != nil {
		return Intervals{}, err
	}
	recs := r.Cases
	if len(recs) == 0 {
		return Intervals{}, errors.New("intervals: the receipt has no cases")
	}
	fs, err := recordFacts(recs)
	if err != nil {
		return Intervals{}, err
	}
	if err := checkConfidences(recs); err != nil {
		return Intervals{}, err
	}
	ids := caseIDs(recs)
	us, err := units(ids, opts.Cluster)
	if err != nil {
		return Intervals{}, err
	}
	doc := Intervals{
		Schema:    IntervalsSchema,
		Version:   IntervalsVersion,
		Receipt:   NewSource(r),
		Level:     opts.Level,
		Interval:  intervalName(opts.Cluster),
		Cluster:   opts.Cluster,
		Bootstrap: newBootstrap(opts, len(us)),
		ByVariant: receipt.Ordered[Rates]{},
		ByClass:   receipt.Ordered[Rates]{},
		Nouls:     receipt.Ordered[NoulIntervals]{},
	}
	if doc.Overall, err = rates(fs, all(len(fs)), opts); err != nil {
		return Intervals{}, err
	}
	for _, v := range checkmatch.Variants() {
		idx := positions(fs, func(f *facts) bool { return f.variant == string(v) })
		if len(idx) == 0 {
			continue
		}
		rt, err := rates(fs, idx, opts)
		if err != nil {
			return Intervals{}, err
		}
		doc.ByVariant = append(doc.ByVariant, receipt.Entry[Rates]{Name: string(v), Value: rt})
	}
	var classes []string
	for _, f := range fs {
		classes = append(classes, f.class)
	}
	slices.Sort(classes)
	for _, c := range slices.Compact(classes) {
		rt, err := rates(fs, positions(fs, func(f *facts) bool { return f.class == c }), opts)
		if err != nil {
			return Intervals{}, err
		}
		doc.ByClass = append(doc.ByClass, receipt.Entry[Rates]{Name: c, Value: rt})
	}

	// One set of resamples: ROC-AUC and ECE of each Noul.
	boot, err := resampleUnits(us, 2*len(nouls), opts, func() statFunc {
		sc := scorers(recs)
		return func(idx []int, out []*float64) {
			for n, s := range sc {
				out[2*n], out[2*n+1] = s.score(idx)
			}
		}
	})
	if err != nil {
		return Intervals{}, err
	}
	for n, nl := range nouls {
		sum, err := checkmatch.SummarizeNoul(noulValues(recs, n))
		if err != nil {
			return Intervals{}, err
		}
		ni := NoulIntervals{ROCAUC: boot[2*n], ECE: boot[2*n+1]}
		ni.ROCAUC.Estimate, ni.ECE.Estimate = sum.ROCAUC, sum.ECE
		conf, truth := noulValues(recs, n)
		for _, t := range truth {
			if t {
				ni.Positives++
			}
		}
		ni.Negatives = len(truth) - ni.Positives
		brier, err := Brier(conf, truth)
		if err != nil {
			return Intervals{}, err
		}
		logLoss, err := LogLoss(conf, truth)
		if err != nil {
			return Intervals{}, err
		}
		ni.Brier, ni.LogLoss = &brier, &logLoss
		doc.Nouls = append(doc.Nouls, receipt.Entry[NoulIntervals]{Name: nl.name, Value: ni})
	}
	return doc, nil
}

// HeadlineRates returns the overall [Rates] of a run's case records at
// level (0 means [DefaultLevel]): what a command prints beside the
// headline numbers ([FormatHeadline]). An unknown variant is an error.
func HeadlineRates(records []checkmatch.CaseRecord, level float64) (Rates, error) {
	if level == 0 {
		level = DefaultLevel
	}
	fs, err := recordFacts(records)
	if err != nil {
		return Rates{}, err
	}
	return rates(fs, all(len(fs)), Options{Level: level, Cluster: ClusterCase})
}

// intervalName is the "interval" of an intervals document clustered by c.
func intervalName(c Cluster) string {
	if c == ClusterRegisterRow {
		return "wilson_korn_graubard"
	}
	return "wilson"
}

func newBootstrap(opts Options, units int) Bootstrap {
	return Bootstrap{
		Method:     "percentile",
		Resampling: "typevet_sha256",
		Resamples:  opts.Resamples,
		Seed:       opts.Seed,
		Level:      opts.Level,
		Cluster:    opts.Cluster,
		Units:      units,
	}
}

// rates returns the three shares over the positions idx, each interval
// at the effective sample size of opts.Cluster.
func rates(fs []facts, idx []int, opts Options) (Rates, error) {
	share := func(counted func(*facts) bool, success func(*facts) bool) (Proportion, error) {
		var y []bool
		var rows []string
		k := 0
		for _, i := range idx {
			f := &fs[i]
			if !counted(f) {
				continue
			}
			y, rows = append(y, success(f)), append(rows, f.row)
			if success(f) {
				k++
			}
		}
		nEff := float64(len(y))
		if opts.Cluster == ClusterRegisterRow && len(y) > 0 {
			var err error
			if nEff, err = EffectiveN(y, rows); err != nil {
				return Proportion{}, err
			}
		}
		return newProportionAt(k, len(y), nEff, opts.Level)
	}
	every := func(*facts) bool { return true }
	var rt Rates
	var err error
	if rt.Accuracy, err = share(every, func(f *facts) bool { return f.correct }); err != nil {
		return Rates{}, err
	}
	if rt.FalseClearRate, err = share(func(f *facts) bool { return f.countsFalseClear }, func(f *facts) bool { return f.falseClear }); err != nil {
		return Rates{}, err
	}
	if rt.CannotTellRate, err = share(every, func(f *facts) bool { return f.cannotTell }); err != nil {
		return Rates{}, err
	}
	return rt, nil
}

func positions(fs []facts, keep func(*facts) bool) []int {
	var idx []int
	for i := range fs {
		if keep(&fs[i]) {
			idx = append(idx, i)
		}
	}
	return idx
}

func caseIDs(recs []checkmatch.CaseRecord) []string {
	ids := make([]string, len(recs))
	for i := range recs {
		ids[i] = recs[i].CaseID
	}
	return ids
}

func noulValues(recs []checkmatch.CaseRecord, n int) ([]float64, []bool) {
	conf := make([]float64, len(recs))
	truth := make([]bool, len(recs))
	for i := range recs {
		conf[i], truth[i] = nouls[n].conf(&recs[i]), nouls[n].truth(&recs[i])
	}
	return conf, truth
}
