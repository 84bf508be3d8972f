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
// ns/judgment is ns/op / 140. cpu-ns/judgment is the process CPU time
// (user+system, [processCPU]) per judgment; it too includes the in-process
// judgmenttest server's work (HTTP serving, JSON decoding, its answers), so
// it bounds the client's cost from above, and it stays meaningful on a
// loaded machine where wall time does not.
func BenchmarkRun140VLLM(b *testing.B) {
	s, err := BuildSlice(DefaultSeed, RowCount, nil)
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
	cpuStart := processCPU()
	for b.Loop() {
		run, err := Run(context.Background(), sess.Port, sess.Model, s.Requests, RunOptions{Concurrency: 16})
		if err != nil {
			b.Fatal(err)
		}
		if run.Stopped != nil || len(run.Outcomes) != len(s.Requests) {
			b.Fatalf("run stopped: %+v", run.Stopped)
		}
	}
	judgments := float64(b.N) * float64(len(s.Requests))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/judgments, "ns/judgment")
	if cpu := processCPU() - cpuStart; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/judgments, "cpu-ns/judgment")
	}
}
