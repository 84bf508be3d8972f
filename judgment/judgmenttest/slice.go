package judgmenttest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typevet/typevet-go/judgment"
)

// SliceJudgments is the size of a whole check slice: 20 register rows of 7
// cases, 560 scoring calls of four questions each.
const SliceJudgments = 140

// SliceClient judges one request; a [BenchSlice] iteration opens a fresh
// one (a cold connection pool, as a run starts) and closes it after.
type SliceClient struct {
	Judge func(context.Context, judgment.Request) error
	Close func()
}

// BenchSlice runs a whole slice per iteration: [SliceJudgments] judgments
// of [CheckRequest] about [CheckPNG], concurrency at a time, through a
// client from open, against the child server at url ([StartChild]). It
// reports, besides ns/op (one slice):
//   - new-conns/op: connections the child accepted during the slice
//     ([ChildConns]);
//   - judgments/s: wall-clock throughput;
//   - cpu-ns/judgment: this process's CPU per judgment ([ProcessCPU]):
//     the client, the benchmark's goroutines and the Go runtime;
//   - server-cpu-ns/judgment: the child's CPU per judgment.
func BenchSlice(b *testing.B, url string, serverCPU func() time.Duration, concurrency int, open func() SliceClient) {
	req := CheckRequest(CheckPNG())
	ctx := context.Background()
	var conns int64
	var wall, cpu, server time.Duration
	b.ReportAllocs()
	for b.Loop() {
		c := open()
		conns0, server0 := ChildConns(b, url), serverCPU()
		start, cpu0 := time.Now(), ProcessCPU()
		var next atomic.Int64
		var wg sync.WaitGroup
		for range concurrency {
			wg.Go(func() {
				for next.Add(1) <= SliceJudgments {
					if err := c.Judge(ctx, req); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		wall += time.Since(start)
		cpu += ProcessCPU() - cpu0
		server += serverCPU() - server0
		conns += ChildConns(b, url) - conns0
		c.Close()
	}
	n := float64(b.N)
	b.ReportMetric(float64(conns)/n, "new-conns/op")
	b.ReportMetric(SliceJudgments*n/wall.Seconds(), "judgments/s")
	b.ReportMetric(float64(cpu)/(n*SliceJudgments), "cpu-ns/judgment")
	b.ReportMetric(float64(server)/(n*SliceJudgments), "server-cpu-ns/judgment")
}
