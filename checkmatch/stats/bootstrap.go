package stats

import (
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/typevet/typevet-go/checkmatch/internal/resample"
)

// The bootstrap defaults: typevet's repeat-run study's (#357).
const (
	// DefaultResamples is the number of bootstrap resamples.
	DefaultResamples = resample.Resamples
	// DefaultSeed is the seed of typevet's SHA-256 resampling.
	DefaultSeed = resample.Seed
)

// Cluster names what one bootstrap draw takes: a case, or every case of a
// register row.
type Cluster string

const (
	// ClusterCase takes cases as independent: the bootstrap draws single
	// cases (single pairs in a comparison) and the Wilson intervals use
	// the number of cases.
	ClusterCase Cluster = "case"
	// ClusterRegisterRow takes register rows as independent and the
	// cases of a row as possibly correlated: the bootstrap draws whole
	// register rows (every case whose id has the drawn row's "rNN"
	// prefix, [RegisterRow]) and the Wilson intervals use the
	// Korn–Graubard effective sample size ([EffectiveN]). The default.
	ClusterRegisterRow Cluster = "register_row"
)

// MaxResamples is the most bootstrap resamples [Options] accept: a
// million take about a minute and 100 MB for one receipt; more is refused
// before anything is allocated.
const MaxResamples = 1_000_000

// Options set the intervals; the zero value is 95%, typevet's 10,000
// resamples and seed 0, clustered by register row.
type Options struct {
	// Level is the level of every interval; 0 means [DefaultLevel].
	Level float64
	// Resamples is the number of bootstrap resamples, 1 to
	// [MaxResamples]; 0 means [DefaultResamples].
	Resamples int
	// Seed is the resampling seed (0, the default, is typevet's).
	Seed int
	// Cluster is what the intervals take as independent: what one
	// bootstrap draw takes, and whose effective sample size the Wilson
	// intervals use. "" means [ClusterRegisterRow]: the seven variants of
	// a register row share its payee, amount and date, so their answers
	// are not independent, and intervals over single cases are too
	// narrow when they are correlated (typevet's repeat-run study drew
	// single cases: [ClusterCase]).
	Cluster Cluster
}

// withDefaults fills the zero fields and checks the rest.
func (o Options) withDefaults() (Options, error) {
	if o.Level == 0 {
		o.Level = DefaultLevel
	}
	if o.Resamples == 0 {
		o.Resamples = DefaultResamples
	}
	if o.Cluster == "" {
		o.Cluster = ClusterRegisterRow
	}
	if !(o.Level > 0 && o.Level < 1) {
		return o, fmt.Errorf("level %g is not in (0, 1)", o.Level)
	}
	if o.Resamples < 1 || o.Resamples > MaxResamples {
		return o, fmt.Errorf("resamples must be 1 to %d, got %d", MaxResamples, o.Resamples)
	}
	if o.Seed < 0 {
		return o, fmt.Errorf("seed must be at least 0, got %d", o.Seed)
	}
	if o.Cluster != ClusterCase && o.Cluster != ClusterRegisterRow {
		return o, fmt.Errorf("cluster %q is not %q or %q", o.Cluster, ClusterCase, ClusterRegisterRow)
	}
	return o, nil
}

// Bootstrap describes how a document's bootstrap intervals were drawn: its
// "bootstrap" object.
type Bootstrap struct {
	// Method is always "percentile": the interval is
	// typevet's percentile_interval of the resampled values.
	Method string `json:"method"`
	// Resampling is always "typevet_sha256": draw i of resample b is the
	// first 8 bytes of SHA-256("{seed}:{b}:{i}") modulo the number of
	// units (typevet's resample_indices).
	Resampling string `json:"resampling"`
	// Resamples is the number of resamples (10,000 by default).
	Resamples int `json:"resamples"`
	// Seed is the resampling seed (0 by default).
	Seed int `json:"seed"`
	// Level is the interval level (0.95 by default).
	Level float64 `json:"level"`
	// Cluster is what one draw takes: "case" or "register_row".
	Cluster Cluster `json:"cluster"`
	// Units is the number of things drawn from: cases (or case pairs), or
	// register rows.
	Units int `json:"units"`
}

// Estimate is a statistic with its percentile bootstrap interval.
type Estimate struct {
	// Estimate is the statistic over all cases; null when undefined (a
	// ROC-AUC without positives or negatives).
	Estimate *float64 `json:"estimate"`
	// Low and High bound the percentile interval of the resampled values
	// at the document's level; null when no resample defines the
	// statistic.
	Low  *float64 `json:"low"`
	High *float64 `json:"high"`
	// Defined is the number of resamples on which the statistic is
	// defined; the interval is over those. Equal to the document's
	// bootstrap.resamples unless some resample drew, say, no positives.
	Defined int `json:"defined"`
}

// RegisterRow returns the register row of a case id: the part before the
// first ':' ("r07:clean" → "r07"). An id without a ':' or with nothing
// before it is an error naming the id.
func RegisterRow(caseID string) (string, error) {
	row, _, ok := strings.Cut(caseID, ":")
	if !ok || row == "" {
		return "", fmt.Errorf("case id %q has no register row (want \"rNN:variant\")", caseID)
	}
	return row, nil
}

// units groups the positions 0..len(ids)-1 into draw units: one per
// position, or one per register row in order of first appearance.
func units(ids []string, c Cluster) ([][]int, error) {
	out := make([][]int, 0, len(ids))
	if c != ClusterRegisterRow {
		for i := range ids {
			out = append(out, []int{i})
		}
		return out, nil
	}
	at := map[string]int{}
	for i, id := range ids {
		row, err := RegisterRow(id)
		if err != nil {
			return nil, err
		}
		j, ok := at[row]
		if !ok {
			j = len(out)
			at[row] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], i)
	}
	return out, nil
}

// statFunc computes k statistics over the positions idx (which repeat as
// the resample drew them) into out; a nil entry is undefined. Each worker
// gets its own statFunc, so it may keep scratch buffers.
type statFunc func(idx []int, out []*float64)

// resampleUnits draws opts.Resamples resamples of the units and returns, per
// statistic, its percentile interval and the count of resamples defining
// it. Workers split the resamples (GOMAXPROCS of them) and store by
// resample number, so the result does not depend on the schedule.
func resampleUnits(us [][]int, k int, opts Options, newStat func() statFunc) ([]Estimate, error) {
	if len(us) == 0 {
		return nil, fmt.Errorf("bootstrap needs at least one case")
	}
	values := make([][]*float64, opts.Resamples)
	workers := min(runtime.GOMAXPROCS(0), opts.Resamples)
	var g errgroup.Group
	for w := range workers {
		lo, hi := w*opts.Resamples/workers, (w+1)*opts.Resamples/workers
		stat := newStat()
		g.Go(func() error {
			var idx []int
			for b := lo; b < hi; b++ {
				idx = idx[:0]
				for _, u := range resample.Indices(len(us), opts.Seed, b) {
					idx = append(idx, us[u]...)
				}
				out := make([]*float64, k)
				stat(idx, out)
				values[b] = out
			}
			return nil
		})
	}
	_ = g.Wait() // workers return no errors
	est := make([]Estimate, k)
	defined := make([]float64, 0, opts.Resamples)
	for s := range k {
		defined = defined[:0]
		for _, v := range values {
			if v[s] != nil {
				defined = append(defined, *v[s])
			}
		}
		est[s].Defined = len(defined)
		if len(defined) == 0 {
			continue
		}
		lo, hi, err := resample.PercentileInterval(defined, opts.Level)
		if err != nil {
			return nil, err
		}
		est[s].Low, est[s].High = &lo, &hi
	}
	return est, nil
}

// all returns the positions 0..n-1.
func all(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}
