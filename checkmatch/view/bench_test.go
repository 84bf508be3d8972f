package view_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/view"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

// maxSiteBytes is the size budget of the site of one 140-case receipt:
// about 5 MB of half-scale views and pages, and the 140 judged PNGs
// (about 85 KB each) that a click on a check opens at full resolution
// (issue #28: the thumbnails alone could not be read).
const maxSiteBytes = 20_000_000

// TestSiteSize140 checks the size budget of the 140-case site with the
// default half-scale images (the size is deterministic, so it is a test;
// the build time is BenchmarkBuild140's).
func TestSiteSize140(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("renders 140 checks: too slow for -race and -short")
	}
	site := build(t, fast, view.Input{Name: "ours.json", Receipt: mixedReceipt(t)})
	if n := site.Size(); n >= maxSiteBytes {
		t.Errorf("the 140-case site is %d bytes, over the %d budget", n, maxSiteBytes)
	}
	t.Logf("140-case site: %d files, %d bytes", len(site.Files), site.Size())
}

// benchBuild builds and writes the site of r b.N times, reporting the
// site's size and the process CPU time per build (wall time on this shared
// 2-core machine depends on the neighbours; CPU time does not).
func benchBuild(b *testing.B, r checkmatch.Receipt, opts view.Options) {
	defer view.SetRender(checkmatch.Render)() // the command's work: no memo
	defer view.SetHalfScale(view.HalfScaleOf)()
	b.ReportAllocs()
	var size int64
	cpu0 := judgmenttest.ProcessCPU()
	for b.Loop() {
		site, err := view.Build([]view.Input{{Name: "ours.json", Receipt: r}}, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "site")
		b.StartTimer()
		if err := site.WriteDir(dir); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(dir)
		b.StartTimer()
		size = site.Size()
	}
	b.ReportMetric(float64((judgmenttest.ProcessCPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(size)/1e6, "site-MB")
}

// BenchmarkBuild140 is the command's work for a 140-case receipt of ours:
// 140 re-renders and digests, the intervals (10,000 bootstrap resamples),
// the pages and the half-scale images, written to disk. Budget: under 5 s
// and 10 MB.
func BenchmarkBuild140(b *testing.B) {
	benchBuild(b, mixedReceipt(b), view.Options{})
}

// BenchmarkBuild140FullImages writes the judged PNGs byte for byte instead
// of half-scale views: the size the default avoids.
func BenchmarkBuild140FullImages(b *testing.B) {
	benchBuild(b, mixedReceipt(b), view.Options{FullImages: true})
}

// BenchmarkRender140 is the floor of any viewer that proves its images:
// the 140 renders alone, one after another, as checkmatch.Render makes them.
func BenchmarkRender140(b *testing.B) {
	cases, err := checkmatch.Cases(checkmatch.DefaultSeed, checkmatch.RowCount)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := judgmenttest.ProcessCPU()
	for b.Loop() {
		for _, c := range cases {
			if _, err := checkmatch.Render(c); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64((judgmenttest.ProcessCPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
