package serving

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reading is what the delta functions take from a page: the summed
// snapshot and, per gauge name, the engine ids.
type reading struct {
	snap    Snapshot
	engines map[string]map[string]bool
}

func readWith(text string, each func(string, func(sample)) error) (reading, error) {
	r := reading{snap: Snapshot{}, engines: map[string]map[string]bool{}}
	err := each(text, func(s sample) {
		r.snap[s.key] += s.value
		id := noEngine
		if s.hasEngine {
			id = s.engine
		}
		if r.engines[s.key.Name] == nil {
			r.engines[s.key.Name] = map[string]bool{}
		}
		r.engines[s.key.Name][id] = true
	})
	return r, err
}

func scanEach(text string, fn func(sample)) error {
	ss, ok := scanSamples(text)
	if !ok {
		return errNotScanned
	}
	for _, s := range ss {
		fn(s)
	}
	return nil
}

var errNotScanned = os.ErrInvalid

func sameReading(a, b reading) bool {
	if len(a.snap) != len(b.snap) || len(a.engines) != len(b.engines) {
		return false
	}
	for k, v := range a.snap {
		w, ok := b.snap[k]
		if !ok || !(v == w || math.IsNaN(v) && math.IsNaN(w)) || math.Signbit(v) != math.Signbit(w) && !math.IsNaN(v) {
			return false
		}
	}
	for name, ids := range a.engines {
		if len(ids) != len(b.engines[name]) {
			return false
		}
		for id := range ids {
			if !b.engines[name][id] {
				return false
			}
		}
	}
	return true
}

// scanSeeds are the testdata pages and page500: every one must be read by
// scanSamples (the fast path), alike to expfmt.
func scanSeeds(tb testing.TB) map[string]string {
	pages := map[string]string{"page500": page500(1)}
	paths, _ := filepath.Glob("testdata/*.txt")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		pages[filepath.Base(p)] = string(b)
	}
	return pages
}

// TestScanSamplesFixtures: every fixture page is read by scanSamples, with
// exactly expfmt's sums and engines.
func TestScanSamplesFixtures(t *testing.T) {
	for name, text := range scanSeeds(t) {
		got, err := readWith(text, scanEach)
		if err != nil {
			t.Errorf("%s: scanSamples gave up; the fast path must read vLLM's pages", name)
			continue
		}
		want, err := readWith(text, expfmtSamples)
		if err != nil || !sameReading(got, want) {
			t.Errorf("%s: scanSamples %v; expfmt %v (%v)", name, got.snap, want.snap, err)
		}
	}
}

// FuzzScanSamples checks scanSamples against expfmt, the oracle: whatever
// text scanSamples reads, expfmt reads too, with the same sums (bit for
// bit) and engine ids; what it gives up on goes to expfmt unchanged.
func FuzzScanSamples(f *testing.F) {
	f.Add(page500(3.7)) // fractional bucket counts: expfmt reads it
	for _, text := range scanSeeds(f) {
		f.Add(text)
		lines := strings.SplitAfter(text, "\n")
		for i := 0; i+6 <= len(lines); i += 6 {
			f.Add(strings.Join(lines[i:i+6], ""))
		}
	}
	for _, s := range []string{
		"# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"1.0\"} 2\n",
		"# TYPE h histogram\nh_bucket{a=\"x\",le=\"1\"} 1\nh_bucket{a=\"y\",le=\"1\"} 2\nh_bucket{a=\"x\",le=\"2\"} 1\n",
		"# TYPE h histogram\nh_count 1.5\nh_sum 2\nh_bucket{le=\"+Inf\"} 3\n",
		"x 1\ny 2\nx 3\n", "# TYPE c counter\nc -1\n", "# TYPE c counter\nc_total{le=\"0.1\"} 1\n",
		"x{a=\"1\",a=\"2\"} 1\n", "x 1 1700000000\n", "# HELP x a\\nb\nx 1\n", "x_bucket{le=\"1\"} 1\n# TYPE x histogram\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, err := readWith(text, scanEach)
		if err != nil {
			return
		}
		want, werr := readWith(text, expfmtSamples)
		if werr != nil {
			t.Fatalf("scanSamples read a text expfmt refuses (%v):\n%q", werr, text)
		}
		if !sameReading(got, want) {
			t.Fatalf("scanSamples %v %v; expfmt %v %v\n%q", got.snap, got.engines, want.snap, want.engines, text)
		}
	})
}
