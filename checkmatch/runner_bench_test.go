package checkmatch

import (
	"context"
	"testing"

	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/vllm"
)

// BenchmarkRun140VLLM runs the full 140-case slice at concurrency 16
// against the in-process fake vLLM server through the real vLLM client:
// four scoring requests per case, 560 HTTP round trips per op. The server
// shares the process, so ns/op and the allocations include its side;
// ns/judgment is ns/op / 140.
func BenchmarkRun140VLLM(b *testing.B) {
	s, err := BuildSlice(DefaultSeed, RowCount)
	if err != nil {
		b.Fatal(err)
	}
	srv := judgmenttest.NewVLLM(nil)
	defer srv.Close()
	sess, err := backend.Open(context.Background(), backend.Settings{
		Backend: backend.VLLM,
		VLLM:    vllm.Settings{BaseURL: srv.URL, Model: judgmenttest.DefaultModelID},
	}, "")
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	var bytes int64
	for _, r := range s.Requests {
		bytes += int64(len(r.Media[0].Data))
	}
	b.SetBytes(bytes)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		run, err := Run(context.Background(), sess.Port, sess.Model, s.Requests, RunOptions{Concurrency: 16})
		if err != nil {
			b.Fatal(err)
		}
		if run.Stopped != nil || len(run.Outcomes) != len(s.Requests) {
			b.Fatalf("run stopped: %+v", run.Stopped)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(s.Requests)), "ns/judgment")
}
