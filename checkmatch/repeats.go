package checkmatch

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/typevet/typevet-go/internal/pymath"
	"github.com/typevet/typevet-go/receipt"
)

// Repeat-run study constants (typevet #357).
const (
	// RepeatResamples is the number of resamples of the pooled accuracy
	// interval.
	RepeatResamples = 10000
	// RepeatSeed is the seed of those resamples.
	RepeatSeed = 0
	// repeatLevel is the level of the pooled accuracy interval.
	repeatLevel = 0.95
	// StabilityRangeLimit bounds the accuracy range and every ECE range of
	// stable runs: each must be strictly below it.
	StabilityRangeLimit = 0.01
)

// NamedReceipt is one run of a repeat study: a check-match receipt and the
// run's name (the receipt file's stem, [ReadRepeatRuns]).
type NamedReceipt struct {
	// Name names the run, e.g. "check_match_llama_cpp_repeat1".
	Name string
	// Receipt is the run's receipt, ours or typevet's ([ReadReceipt]).
	Receipt Receipt
}

// ReadRepeatRuns reads the check-match receipt at each path with
// [ReadReceipt] and names each run by the file's stem: the file name
// without its last extension, as Python's Path.stem
// ("runs/repeat1.json" → "repeat1"). Errors name the path.
func ReadRepeatRuns(paths []string) ([]NamedReceipt, error) {
	runs := make([]NamedReceipt, 0, len(paths))
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		r, err := ReadReceipt(f)
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
func digestOutliers(receipts []Receipt) map[int][]string {
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

// caseTables returns, per receipt, case id → record, and the first
// receipt's case ids in order. Every receipt must have the same set of
// case ids.
func caseTables(receipts []Receipt) ([]map[string]*CaseRecord, []string, error) {
	if len(receipts) == 0 {
		return nil, nil, errors.New("need at least one receipt")
	}
	tables := make([]map[string]*CaseRecord, len(receipts))
	for i, r := range receipts {
		t := make(map[string]*CaseRecord, len(r.Cases))
		for j := range r.Cases {
			t[r.Cases[j].CaseID] = &r.Cases[j]
		}
		tables[i] = t
	}
	var ids []string
	for _, c := range receipts[0].Cases {
		ids = append(ids, c.CaseID)
	}
	for _, t := range tables[1:] {
		if len(t) != len(tables[0]) {
			return nil, nil, errors.New("case ids differ between the receipts")
		}
		for id := range tables[0] {
			if t[id] == nil {
				return nil, nil, errors.New("case ids differ between the receipts")
			}
		}
	}
	return tables, ids, nil
}

// caseAgreement returns the share of cases whose verdict is the same in
// every receipt. The receipts must hold the same set of case
// ids ("case ids differ between the receipts") and at least one case.
func caseAgreement(receipts []Receipt) (float64, error) {
	tables, ids, err := caseTables(receipts)
	if err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, errors.New("agreement needs at least one case")
	}
	same := 0
	for _, id := range ids {
		v := tables[0][id].Verdict
		all := true
		for _, t := range tables[1:] {
			if t[id].Verdict != v {
				all = false
				break
			}
		}
		if all {
			same++
		}
	}
	return float64(same) / float64(len(ids)), nil
}

// maxProbabilityDifference returns the largest change of any recorded
// probability between the receipts: for each case and each of
// payee_confidence, amounts_confidence, every verdict_probabilities label
// and every legibility_probabilities level (names from the first receipt),
// the maximum minus the minimum over the receipts; 0.0 when there is
// nothing to compare. 0.0 means the runs are bit-equal in every
// probability. A label or level of the first receipt missing from another
// is an error naming the case; as in typevet's max_probability_difference,
// levels a sparse legibility_probabilities of the first receipt does not
// record (NaN, see [ByLevel]) are not compared, and another receipt's extra
// labels and levels are ignored.
func maxProbabilityDifference(receipts []Receipt) (float64, error) {
	tables, ids, err := caseTables(receipts)
	if err != nil {
		return 0, err
	}
	worst := 0.0
	values := make([]float64, len(receipts))
	spread := func() float64 { return slices.Max(values) - slices.Min(values) }
	for _, id := range ids {
		first := tables[0][id]
		for i, t := range tables {
			values[i] = t[id].PayeeConfidence
		}
		worst = max(worst, spread())
		for i, t := range tables {
			values[i] = t[id].AmountsConfidence
		}
		worst = max(worst, spread())
		for _, p := range first.VerdictProbabilities {
			for i, t := range tables {
				v, ok := t[id].VerdictProbabilities.Get(p.Label)
				if !ok {
					return 0, fmt.Errorf("case %s: run %d has no verdict probability %q", id, i, p.Label)
				}
				values[i] = v
			}
			worst = max(worst, spread())
		}
		for level, p := range first.LegibilityProbabilities {
			if math.IsNaN(p) {
				continue // a level a sparse first receipt did not record
			}
			for i, t := range tables {
				lp := t[id].LegibilityProbabilities
				if level >= len(lp) || math.IsNaN(lp[level]) {
					return 0, fmt.Errorf("case %s: run %d has no legibility probability %d", id, i, level)
				}
				values[i] = lp[level]
			}
			worst = max(worst, spread())
		}
	}
	return worst, nil
}

// AccuracyInterval is the pooled accuracy interval of a repeat study:
// its fields, in order, are the block's keys.
type AccuracyInterval struct {
	// Low and High bound the 95% percentile interval of the resampled
	// accuracy.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Level is repeatLevel.
	Level float64 `json:"level"`
	// Resamples is [RepeatResamples].
	Resamples int `json:"resamples"`
	// Seed is [RepeatSeed].
	Seed int `json:"seed"`
	// Rows is the number of pooled case rows.
	Rows int `json:"rows"`
}

// PooledAccuracyInterval resamples the pooled case rows of the receipts:
// one row per case of every receipt (receipt order, then case
// order), 1 when the case is correct, else 0. Each of [RepeatResamples]
// resamples draws the rows at ResampleIndices(rows, [RepeatSeed], b) and
// takes their share; the interval is [PercentileInterval] of the shares at
// repeatLevel (ranks 250 and 9,749).
//
// For 5 receipts of 140 cases that is 7 million SHA-256 draws. They are
// made once, spread over GOMAXPROCS goroutines, without allocation per
// draw; the result does not depend on the schedule. The share is the count
// of correct rows over the row count, which is what math.fsum of the 0/1
// rows divided by n gives in Python. No rows is an error.
func PooledAccuracyInterval(receipts []Receipt) (AccuracyInterval, error) {
	var rows []bool
	for _, r := range receipts {
		for _, c := range r.Cases {
			rows = append(rows, c.Correct)
		}
	}
	if len(rows) == 0 {
		return AccuracyInterval{}, errors.New("pooled accuracy interval needs at least one case")
	}
	n := len(rows)
	shares := make([]float64, RepeatResamples)
	forEachResample(n, RepeatSeed, RepeatResamples, func() func(int, []int) {
		return func(b int, idx []int) {
			k := 0
			for _, i := range idx {
				if rows[i] {
					k++
				}
			}
			shares[b] = float64(k) / float64(n)
		}
	})
	lo, hi, err := PercentileInterval(shares, repeatLevel)
	if err != nil {
		return AccuracyInterval{}, err
	}
	return AccuracyInterval{Low: lo, High: hi, Level: repeatLevel, Resamples: RepeatResamples, Seed: RepeatSeed, Rows: n}, nil
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

// RepeatRun is one run's row of a repeat summary: its fields,
// in order, are the row's keys.
type RepeatRun struct {
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
	// majority's (sliceOutliers) or its code digests differ from the
	// majority's (digestOutliers).
	Included bool `json:"included"`
	// Agreement is caseAgreement of the first included run and this one;
	// null for a run of another slice, whose cases are other cases.
	Agreement *float64 `json:"agreement"`
	// MaxAbsDifference is maxProbabilityDifference of the first included
	// run and this one; null for a run of another slice.
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
	// Reason is [ExcludedSlice] or excludedCode.
	Reason string `json:"reason"`
	// DifferingPins names the slice pins that differ from the majority's
	// ([SliceDifferences]); [] for a run excluded by its code.
	DifferingPins []string `json:"differing_pins"`
}

// RepeatStatistics are the spreads over the included runs.
type RepeatStatistics struct {
	// Accuracy spreads metrics.accuracy.
	Accuracy SpreadStats `json:"accuracy"`
	// FalseClearRate spreads metrics.false_clear_rate.
	FalseClearRate SpreadStats `json:"false_clear_rate"`
	// ECE spreads each Noul's ECE, Noul ids in the first included run's
	// order.
	ECE receipt.Ordered[SpreadStats] `json:"ece"`
}

// RepeatReport is the result of [RepeatSummary] (typevet's
// repeat_summary): its fields, in order, are the result's keys.
type RepeatReport struct {
	// Runs holds one row per receipt, in the given order.
	Runs []RepeatRun `json:"runs"`
	// Included names the runs the statistics are over.
	Included []string `json:"included"`
	// Excluded names the runs left out, each with its reason and the
	// names of the pins or code digests that differ.
	Excluded []ExcludedRun `json:"excluded"`
	// Statistics spreads accuracy, false-clear rate and ECE over the
	// included runs.
	Statistics RepeatStatistics `json:"statistics"`
	// AccuracyInterval is [PooledAccuracyInterval] of the included runs.
	AccuracyInterval AccuracyInterval `json:"accuracy_interval"`
	// Agreement is caseAgreement of the included runs.
	Agreement float64 `json:"agreement"`
	// MaxAbsDifference is maxProbabilityDifference of the included runs.
	MaxAbsDifference float64 `json:"max_abs_difference"`
	// Stable is stabilityVerdict of the accuracy range and the ECE
	// ranges, and false when fewer than two runs are included: one run
	// cannot show that repeats agree.
	Stable bool `json:"stable"`
	// Warnings lists doubts that did not stop the summary, one sentence
	// each: fewer than two included runs (errOneRun), a run excluded as
	// another slice, and an included run whose backend, model or prompt
	// digests differ from the first included run's, so that the runs may
	// not be repeats of one experiment (typevet does not check). [] when
	// there are none. typevet's repeat_summary has no such key.
	Warnings []string `json:"warnings"`
}

// errOneRun is the warning of a repeat summary over fewer than two
// included runs, which is never stable.
var errOneRun = errors.New("fewer than two included runs: stability needs at least two runs of one slice, so the runs are not called stable")

// SliceDifferences names the slice pins that differ between a and b:
// pins.slice_sha256, pins.generator_seed, pins.register_rows,
// pins.variants_per_row, pins.renderer (ours) and pins.pillow_version
// (typevet's), in that order. Empty when both judged one slice the same
// way: only then are their cases the same cases.
func SliceDifferences(a, b Receipt) []string {
	var out []string
	pa, pb := a.Pins, b.Pins
	add := func(differ bool, name string) {
		if differ {
			out = append(out, name)
		}
	}
	add(pa.SliceSHA256 != pb.SliceSHA256, "pins.slice_sha256")
	add(pa.GeneratorSeed != pb.GeneratorSeed, "pins.generator_seed")
	add(pa.RegisterRows != pb.RegisterRows, "pins.register_rows")
	add(pa.VariantsPerRow != pb.VariantsPerRow, "pins.variants_per_row")
	add((pa.Renderer == nil) != (pb.Renderer == nil) || (pa.Renderer != nil && *pa.Renderer != *pb.Renderer), "pins.renderer")
	add(pa.PillowVersion != pb.PillowVersion, "pins.pillow_version")
	return out
}

// sliceOutliers finds the runs that judged another slice than the
// majority's: the reference is the receipt whose slice most receipts
// share (no [SliceDifferences]), a tie going to the earliest. The result
// maps the index of each other run to its differing pin names.
func sliceOutliers(receipts []Receipt) map[int][]string {
	out := map[int][]string{}
	ref, best := 0, 0
	for i := range receipts {
		n := 0
		for j := range receipts {
			if len(SliceDifferences(receipts[i], receipts[j])) == 0 {
				n++
			}
		}
		if n > best { // strictly: a tie keeps the earlier
			ref, best = i, n
		}
	}
	for i, r := range receipts {
		if d := SliceDifferences(receipts[ref], r); len(d) > 0 {
			out[i] = d
		}
	}
	return out
}

// sameExperiment returns a warning for each way r differs from ref in
// what a repeat must hold fixed.
func sameExperiment(name string, ref, r Receipt) []error {
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
func noulECE(m MetricsBlock) receipt.Ordered[*float64] {
	return receipt.Ordered[*float64]{
		{Name: QuestionPayeeMatches, Value: m.Nouls.PayeeMatches.ECE},
		{Name: QuestionAmountsMatch, Value: m.Nouls.AmountsMatch.ECE},
	}
}

// RepeatSummary applies typevet's pre-registered repeat-run statistics
// (#357) to receipts of the same slice: runs of another slice
// than the majority's are excluded (sliceOutliers: a different seed is a
// different experiment, not a repeat), then runs whose code digests differ
// from the majority's (by digest name, never value);
// accuracy, false-clear rate and each Noul's ECE are spread over the
// included runs; their case rows are pooled for a 10,000-resample accuracy
// interval; verdict agreement and the largest probability change are
// measured; and the runs are stable when at least two are included and
// every range is below [StabilityRangeLimit].
//
// No runs is an error ("repeat_summary needs at least one receipt"), and so
// are receipts with different case ids and an included run whose accuracy,
// false-clear rate or ECE is null (typevet's statistics fail on them too).
func RepeatSummary(runs []NamedReceipt) (RepeatReport, error) {
	if len(runs) == 0 {
		return RepeatReport{}, errors.New("repeat_summary needs at least one receipt")
	}
	receipts := make([]Receipt, len(runs))
	for i, r := range runs {
		receipts[i] = r.Receipt
	}
	rep := RepeatReport{Included: []string{}, Excluded: []ExcludedRun{}, Warnings: []string{}}
	// Runs of another slice first; the code digests' majority is then
	// taken over the runs of the majority's slice.
	otherSlice := sliceOutliers(receipts)
	var sameSlice []Receipt
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
	var kept []Receipt
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
		row := RepeatRun{
			Run:            r.Name,
			Commit:         r.Receipt.Identity.BaselineCommit,
			Accuracy:       r.Receipt.Metrics.Accuracy,
			FalseClearRate: r.Receipt.Metrics.FalseClearRate,
			ECE:            noulECE(r.Receipt.Metrics),
			WallSeconds:    r.Receipt.WallSeconds,
			Included:       !sliceOut && !codeOut,
		}
		if !sliceOut {
			pair := []Receipt{kept[0], r.Receipt}
			agreement, err := caseAgreement(pair)
			if err != nil {
				return RepeatReport{}, fmt.Errorf("run %s: %w", r.Name, err)
			}
			diff, err := maxProbabilityDifference(pair)
			if err != nil {
				return RepeatReport{}, fmt.Errorf("run %s: %w", r.Name, err)
			}
			row.Agreement, row.MaxAbsDifference = &agreement, &diff
		}
		rep.Runs = append(rep.Runs, row)
	}

	var err error
	if rep.Statistics, err = repeatStatistics(keptRuns); err != nil {
		return RepeatReport{}, err
	}
	if rep.AccuracyInterval, err = PooledAccuracyInterval(kept); err != nil {
		return RepeatReport{}, err
	}
	if rep.Agreement, err = caseAgreement(kept); err != nil {
		return RepeatReport{}, err
	}
	if rep.MaxAbsDifference, err = maxProbabilityDifference(kept); err != nil {
		return RepeatReport{}, err
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

// repeatStatistics spreads the included runs' metrics.
func repeatStatistics(kept []NamedReceipt) (RepeatStatistics, error) {
	value := func(r NamedReceipt, name string, v *float64) (float64, error) {
		if v == nil || math.IsNaN(*v) {
			return 0, fmt.Errorf("run %s: %s is null", r.Name, name)
		}
		return *v, nil
	}
	collect := func(name string, get func(MetricsBlock) *float64) (SpreadStats, error) {
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
	var st RepeatStatistics
	var err error
	if st.Accuracy, err = collect("accuracy", func(m MetricsBlock) *float64 { return m.Accuracy }); err != nil {
		return st, err
	}
	if st.FalseClearRate, err = collect("false_clear_rate", func(m MetricsBlock) *float64 { return m.FalseClearRate }); err != nil {
		return st, err
	}
	for _, e := range noulECE(kept[0].Receipt.Metrics) {
		name := e.Name
		s, err := collect("ece of "+name, func(m MetricsBlock) *float64 {
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
