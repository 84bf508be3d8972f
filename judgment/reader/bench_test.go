package reader_test

import (
	"context"
	"testing"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment/reader"
)

// BenchmarkReadSlice140 is the whole judgment pass of the default
// 140-case slice (seed 0) through the reader port: PNG decoding, reading
// and answering, one judgment at a time. The renders are made once in
// setup and are not timed. cpu-ns/op is the process CPU time per op
// ([processCPU]); the judgments run one at a time, so it stays close to
// ns/op on an idle machine and shows the real cost on a loaded one.
func BenchmarkReadSlice140(b *testing.B) {
	s := defaultSlice(b)
	port := reader.New(reader.Options{})
	ctx := context.Background()
	var bytes int64
	for _, r := range s.Requests {
		bytes += int64(len(r.Media[0].Data))
	}
	b.SetBytes(bytes)
	b.ReportAllocs()
	b.ResetTimer()
	cpuStart := processCPU()
	for b.Loop() {
		for _, r := range s.Requests {
			if _, err := port.Judge(ctx, r.Judgment("reader")); err != nil {
				b.Fatal(err)
			}
		}
	}
	if cpu := processCPU() - cpuStart; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkReadCheck is one Read of a decoded sharp render (r00:clean):
// the glyph reading of four fields, the stock and the signature test,
// without PNG decoding or answering.
func BenchmarkReadCheck(b *testing.B) {
	cases, err := checkmatch.Cases(0, 1)
	if err != nil {
		b.Fatal(err)
	}
	img, err := checkmatch.RenderImage(cases[0])
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		reader.Read(img)
	}
}
