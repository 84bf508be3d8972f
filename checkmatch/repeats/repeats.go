package repeats

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/stats"
	"github.com/typevet/typevet-go/internal/pymath"
	"github.com/typevet/typevet-go/receipt"
)

// StabilityRangeLimit bounds the accuracy range and every ECE range of
// stable runs: each must be strictly below it.
const StabilityRangeLimit = 0.01

// NamedReceipt is one run of a repeat study: a check-match receipt and the
// run's name (the receipt file's stem, [ReadRuns]).
type NamedReceipt struct {
	// Name names the run, e.g. "check_match_llama_cpp_repeat1".
	Name string
	// Receipt is the run's receipt, ours or typevet's ([checkmatch.ReadReceipt]).
	Receipt checkmatch.Receipt
}

// ReadRuns reads the check-match receipt at each path with
// [checkmatch.ReadReceipt] and names each run by the file's stem: the file name
// without its last extension, as Python's Path.stem
// ("runs/repeat1.json" → "repeat1"). Errors name the path.
func ReadRuns(paths []string) ([]NamedReceipt, error) {
	runs := make([]NamedReceipt, 0, len(paths))
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		r, err := checkmatch.ReadReceipt(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		runs = append(runs, NamedReceipt{Name: fileStem(p), Receipt: r})
	}
	return runs, nil
}

// fileStem is Python's Path(p).stem.
func fileStem(p string) string {
	base := filepath.Base(p)
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		return base[:i]
	}
	return base
}

// digestOutliers finds the runs whose code differs from the majority's.
// Each receipt's key is its identity.code_path_digests; the
// reference is the most frequent key, a tie going to the earliest receipt.
// The result maps the index of each run whose key differs from the
// reference to the sorted names whose values differ (a name missing on one
// side differs). Runs equal to the reference are left out. Only names are
// reported, never digest values.
func digestOutliers(receipts []checkmatch.Receipt) map[int][]string {
	out := map[int][]string{}
	if len(receipts) == 0 {
		return out
	}
	keys := make([]string, len(receipts))
	count := map[string]int{}
	for i, r := range receipts {
		keys[i] = digestKey(r.Identity.CodePathDigests)
		count[keys[i]]++
	}
	ref := 0
	for i, k := range keys {
		if count[k] > count[keys[ref]] { // strictly: a tie keeps the earlier
			ref = i
		}
	}
	want := receipts[ref].Identity.CodePathDigests
	for i, r := range receipts {
		if names := sortedDiffering(want, r.Identity.CodePathDigests); len(names) > 0 {
			out[i] = names
		}
	}
	return out
}

// digestKey is a canonical text of a digest map: its (name, value) pairs
// sorted by name (then value).
func digestKey(d receipt.Digests) string {
	pairs := make([]string, len(d))
	for i, e := range d {
		pairs[i] = fmt.Sprintf("%q=%q", e.Name, e.Value)
	}
	slices.Sort(pairs)
	return strings.Join(pairs, ",")
}

// sortedDiffering returns the sorted names of a ∪ b whose values differ
// ([receipt.DifferingNames]).
func sortedDiffering(a, b receipt.Digests) []string {
	names := receipt.DifferingNames(a, b)
	slices.Sort(names)
	return names
}

// stabilityVerdict reports whether repeated runs are stable:
// the accuracy range and every ECE range are strictly below
// [StabilityRangeLimit].
func stabilityVerdict(accuracyRange float64, eceRanges receipt.Ordered[float64]) bool {
	if !(accuracyRange < StabilityRangeLimit) {
		return false
	}
	for _, e := range eceRanges {
		if !(e.Value < StabilityRangeLimit) {
			return false
		}
	}
	return true
}

// SpreadStats describes a list of per-run values: its fields,
// in order, are the block's keys.
type SpreadStats struct {
	// Mean is math.fsum of the values over their number
	// (statistics.fmean).
	Mean float64 `json:"mean"`
	// SD is the sample standard deviation (divisor n − 1), exactly as
	// Python's statistics.stdev rounds it ([pymath.Stdev]); null (nil) for
	// one value.
	SD *float64 `json:"sd"`
	// Min and Max are the extreme values.
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// Range is Max − Min.
	Range float64 `json:"range"`
}

// Spread summarises values. No values is an error.
func Spread(values []float64) (SpreadStats, error) {
	mean, err := pymath.FMean(values)
	if err != nil {
		return SpreadStats{}, errors.New("spread needs at least one value")
	}
	s := SpreadStats{Mean: mean, Min: slices.Min(values), Max: slices.Max(values)}
	s.Range = s.Max - s.Min
	if len(values) > 1 {
		sd, err := pymath.Stdev(values)
		if err != nil {
			return SpreadStats{}, err
		}
		s.SD = &sd
	}
	return s, nil
}

// Run is one run's row of a repeat summary: its fields,
// in order, are the row's keys.
type Run struct {
	// Run is the run's name.
	Run string `json:"run"`
	// Commit is the receipt's identity.baseline_commit.
	Commit string `json:"commit"`
	// Accuracy is the receipt's metrics.accuracy.
	Accuracy *float64 `json:"accuracy"`
	// FalseClearRate is the receipt's metrics.false_clear_rate.
	FalseClearRate *float64 `json:"false_clear_rate"`
	// ECE maps each Noul id to the receipt's metrics.nouls.<id>.ece.
	ECE receipt.Ordered[*float64] `json:"ece"`
	// WallSeconds is the receipt's wall_seconds.
	WallSeconds float64 `json:"wall_seconds"`
	// Included is false when the run judged another slice than the
	// majority's or its code digests differ from the majority's (by digest
	// name, never value), as typevet's repeat_summary excludes them.
	Included bool `json:"included"`
	// Agreement is the share of cases whose verdict is the same in the
	// first included run and this one; null for a run of another slice,
	// whose cases are other cases.
	Agreement *float64 `json:"agreement"`
	// MaxAbsDifference is [MaxProbabilityDifference] of the first
	// included run and this one; null for a run of another slice.
	MaxAbsDifference *float64 `json:"max_abs_difference"`
}

// The reasons of an [ExcludedRun].
const (
	// ExcludedSlice is the reason of a run that judged another slice than
	// the majority's: its differing_pins name the slice pins that differ.
	ExcludedSlice = "another slice"
	// excludedCode is the reason of a run whose code digests differ from
	// the majority's: its differing_digests name them.
	excludedCode = "code digests differ"
)

// ExcludedRun names a run left out of a repeat summary, why, and the
// names (never the values) of what set it apart.
type ExcludedRun struct {
	// Run is the run's name.
	Run string `json:"run"`
	// DifferingDigests are the sorted names of the code-path digests that
	// differ from the majority's ([] for a run of another slice). Digest
	// values are never reported.
	DifferingDigests []string `json:"differing_digests"`
	// Reason is [ExcludedSlice] or "code digests differ" (its
	// DifferingDigests name them).
	Reason string `json:"reason"`
	// DifferingPins names the slice pins that differ from the majority's
	// ([stats.SliceDifferences]); [] for a run excluded by its code.
	DifferingPins []string `json:"differing_pins"`
}

// Statistics are the spreads over the included runs.
type Statistics struct {
	// Accuracy spreads metrics.accuracy.
	Accuracy SpreadStats `json:"accuracy"`
	// FalseClearRate spreads metrics.false_clear_rate.
	FalseClearRate SpreadStats `json:"false_clear_rate"`
	// ECE spreads each Noul's ECE, Noul ids in the first included run's
	// order.
	ECE receipt.Ordered[SpreadStats] `json:"ece"`
}

// Report is the result of [Summary] (typevet's
// repeat_summary): its fields, in order, are the result's keys.
type Report struct {
	// Runs holds one row per receipt, in the given order.
	Runs []Run `json:"runs"`
	// Included names the runs the statistics are over.
	Included []string `json:"included"`
	// Excluded names the runs left out, each with its reason and the
	// names of the pins or code digests that differ.
	Excluded []ExcludedRun `json:"excluded"`
	// Statistics spreads accuracy, false-clear rate and ECE over the
	// included runs.
	Statistics Statistics `json:"statistics"`
	// AccuracyInterval is the 95% percentile interval of the included
	// runs' pooled case rows' accuracy, over 10,000 resamples under seed 0
	// (typevet's repeat_summary).
	AccuracyInterval AccuracyInterval `json:"accuracy_interval"`
	// Agreement is the share of cases whose verdict is the same in every
	// included run.
	Agreement float64 `json:"agreement"`
	// MaxAbsDifference is [MaxProbabilityDifference] of the included runs.
	MaxAbsDifference float64 `json:"max_abs_difference"`
	// Stable is true when the accuracy range and every ECE range are
	// strictly below [StabilityRangeLimit], and false when fewer than two
	// runs are included: one run cannot show that repeats agree.
	Stable bool `json:"stable"`
	// Warnings lists doubts that did not stop the summary, one sentence
	// each: fewer than two included runs, a run excluded as
	// another slice, and an included run whose backend, model or prompt
	// digests differ from the first included run's, so that the runs may
	// not be repeats of one experiment (typevet does not check). [] when
	// there are none. typevet's repeat_summary has no such key.
	Warnings []string `json:"warnings"`
}

// errOneRun is the warning of a repeat summary over fewer than two
// included runs, which is never stable.
var errOneRun = errors.New("fewer than two included runs: stability needs at least two runs of one slice, so the runs are not called stable")

// sliceOutliers finds the runs that judged another slice than the
// majority's: the reference is the receipt whose slice most receipts
// share (no [stats.SliceDifferences]), a tie going to the earliest. The result
// maps the index of each other run to its differing pin names.
func sliceOutliers(receipts []checkmatch.Receipt) map[int][]string {
	out := map[int][]string{}
	ref, best := 0, 0
	for i := range receipts {
		n := 0
		for j := range receipts {
			if len(stats.SliceDifferences(receipts[i], receipts[j])) == 0 {
				n++
			}
		}
		if n > best { // strictly: a tie keeps the earlier
			ref, best = i, n
		}
	}
	for i, r := range receipts {
		if d := stats.SliceDifferences(receipts[ref], r); len(d) > 0 {
			out[i] = d
		}
	}
	return out
}

// sameExperiment returns a warning for each way r differs from ref in
// what a repeat must hold fixed.
func sameExperiment(name string, ref, r checkmatch.Receipt) []error {
	var out []error
	differ := func(field string) {
		out = append(out, fmt.Errorf("run %s: %s differs from the first included run's", name, field))
	}
	if r.Backend != ref.Backend {
		differ("backend")
	}
	if r.Model != ref.Model {
		differ("model")
	}
	if digestKey(r.Identity.PromptDigests) != digestKey(ref.Identity.PromptDigests) {
		differ("identity.prompt_digests")
	}
	return out
}

// noulECE lists the receipt's Noul ECE values in its (fixed) Noul order.
func noulECE(m checkmatch.MetricsBlock) receipt.Ordered[*float64] {
	return receipt.Ordered[*float64]{
		{Name: checkmatch.QuestionPayeeMatches, Value: m.Nouls.PayeeMatches.ECE},
		{Name: checkmatch.QuestionAmountsMatch, Value: m.Nouls.AmountsMatch.ECE},
	}
}

// Summary applies typevet's pre-registered repeat-run statistics
// (#357) to receipts of the same slice: runs of another slice
// than the majority's are excluded (a different seed is a different
// experiment, not a repeat; a tie goes to the earliest run), then runs
// whose code digests differ from the majority's (by digest name, never value);
// accuracy, false-clear rate and each Noul's ECE are spread over the
// included runs; their case rows are pooled for a 10,000-resample accuracy
// interval; verdict agreement and the largest probability change are
// measured; and the runs are stable when at least two are included and
// every range is below [StabilityRangeLimit].
//
// No runs is an error ("repeat_summary needs at least one receipt"), and so
// are receipts with different case ids and an included run whose accuracy,
// false-clear rate or ECE is null (typevet's statistics fail on them too).
func Summary(runs []NamedReceipt) (Report, error) {
	if len(runs) == 0 {
		return Report{}, errors.New("repeat_summary needs at least one receipt")
	}
	receipts := make([]checkmatch.Receipt, len(runs))
	for i, r := range runs {
		receipts[i] = r.Receipt
	}
	rep := Report{Included: []string{}, Excluded: []ExcludedRun{}, Warnings: []string{}}
	// Runs of another slice first; the code digests' majority is then
	// taken over the runs of the majority's slice.
	otherSlice := sliceOutliers(receipts)
	var sameSlice []checkmatch.Receipt
	var sameIdx []int
	for i, r := range receipts {
		if _, out := otherSlice[i]; !out {
			sameSlice = append(sameSlice, r)
			sameIdx = append(sameIdx, i)
		}
	}
	code := map[int][]string{}
	for j, names := range digestOutliers(sameSlice) {
		code[sameIdx[j]] = names
	}
	var kept []checkmatch.Receipt
	var keptRuns []NamedReceipt
	for i, r := range runs {
		if pins, ok := otherSlice[i]; ok {
			rep.Excluded = append(rep.Excluded, ExcludedRun{Run: r.Name, DifferingDigests: []string{}, Reason: ExcludedSlice, DifferingPins: pins})
			verb := "differ"
			if len(pins) == 1 {
				verb = "differs"
			}
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("run %s excluded: another slice (%s %s from the majority's); runs of another seed, row count or renderer are not repeats", r.Name, strings.Join(pins, ", "), verb))
			continue
		}
		if names, ok := code[i]; ok {
			rep.Excluded = append(rep.Excluded, ExcludedRun{Run: r.Name, DifferingDigests: names, Reason: excludedCode, DifferingPins: []string{}})
			continue
		}
		rep.Included = append(rep.Included, r.Name)
		if len(kept) > 0 {
			for _, w := range sameExperiment(r.Name, kept[0], r.Receipt) {
				rep.Warnings = append(rep.Warnings, w.Error())
			}
		}
		kept = append(kept, r.Receipt)
		keptRuns = append(keptRuns, r)
	}
	for i, r := range runs {
		_, sliceOut := otherSlice[i]
		_, codeOut := code[i]
		row := Run{
			Run:            r.Name,
			Commit:         r.Receipt.Identity.BaselineCommit,
			Accuracy:       r.Receipt.Metrics.Accuracy,
			FalseClearRate: r.Receipt.Metrics.FalseClearRate,
			ECE:            noulECE(r.Receipt.Metrics),
			WallSeconds:    r.Receipt.WallSeconds,
			Included:       !sliceOut && !codeOut,
		}
		if !sliceOut {
			pair := []checkmatch.Receipt{kept[0], r.Receipt}
			agreement, err := caseAgreement(pair)
			if err != nil {
				return Report{}, fmt.Errorf("run %s: %w", r.Name, err)
			}
			diff, err := MaxProbabilityDifference(pair)
			if err != nil {
				return Report{}, fmt.Errorf("run %s: %w", r.Name, err)
			}
			row.Agreement, row.MaxAbsDifference = &agreement, &diff
		}
		rep.Runs = append(rep.Runs, row)
	}

	var err error
	if rep.Statistics, err = statistics(keptRuns); err != nil {
		return Report{}, err
	}
	if rep.AccuracyInterval, err = pooledAccuracyInterval(kept); err != nil {
		return Report{}, err
	}
	if rep.Agreement, err = caseAgreement(kept); err != nil {
		return Report{}, err
	}
	if rep.MaxAbsDifference, err = MaxProbabilityDifference(kept); err != nil {
		return Report{}, err
	}
	eceRanges := make(receipt.Ordered[float64], len(rep.Statistics.ECE))
	for i, e := range rep.Statistics.ECE {
		eceRanges[i] = receipt.Entry[float64]{Name: e.Name, Value: e.Value.Range}
	}
	rep.Stable = len(kept) >= 2 && stabilityVerdict(rep.Statistics.Accuracy.Range, eceRanges)
	if len(kept) < 2 {
		rep.Warnings = append(rep.Warnings, errOneRun.Error())
	}
	return rep, nil
}

// statistics spreads the included runs' metrics.
func statistics(kept []NamedReceipt) (Statistics, error) {
	value := func(r NamedReceipt, name string, v *float64) (float64, error) {
		if v == nil || math.IsNaN(*v) {
			return 0, fmt.Errorf("run %s: %s is null", r.Name, name)
		}
		return *v, nil
	}
	collect := func(name string, get func(checkmatch.MetricsBlock) *float64) (SpreadStats, error) {
		values := make([]float64, len(kept))
		for i, r := range kept {
			v, err := value(r, name, get(r.Receipt.Metrics))
			if err != nil {
				return SpreadStats{}, err
			}
			values[i] = v
		}
		return Spread(values)
	}
	var st Statistics
	var err error
	if st.Accuracy, err = collect("accuracy", func(m checkmatch.MetricsBlock) *float64 { return m.Accuracy }); err != nil {
		return st, err
	}
	if st.FalseClearRate, err = collect("false_clear_rate", func(m checkmatch.MetricsBlock) *float64 { return m.FalseClearRate }); err != nil {
		return st, err
	}
	for _, e := range noulECE(kept[0].Receipt.Metrics) {
		name := e.Name
		s, err := collect("ece of "+name, func(m checkmatch.MetricsBlock) *float64 {
			v, _ := noulECE(m).Get(name)
			return v
		})
		if err != nil {
			return st, err
		}
		st.ECE = append(st.ECE, receipt.Entry[SpreadStats]{Name: name, Value: s})
	}
	return st, nil
}
