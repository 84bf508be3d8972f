package judgmenttest

import (
	"context"
	"runtime"
	"slices"
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
	var sum SliceStats
	b.ReportAllocs()
	for b.Loop() {
		sum = sum.add(RunSlice(b, url, serverCPU, concurrency, open()))
	}
	n := float64(b.N)
	b.ReportMetric(float64(sum.Conns)/n, "new-conns/op")
	b.ReportMetric(SliceJudgments*n/sum.Wall.Seconds(), "judgments/s")
	b.ReportMetric(float64(sum.CPU)/(n*SliceJudgments), "cpu-ns/judgment")
	b.ReportMetric(float64(sum.ServerCPU)/(n*SliceJudgments), "server-cpu-ns/judgment")
}

// SliceStats is what [RunSlice] measured of one slice.
type SliceStats struct {
	// Conns is the number of connections the child accepted.
	Conns int64
	// Wall is the slice's wall time.
	Wall time.Duration
	// CPU is this process's CPU time ([ProcessCPU]).
	CPU time.Duration
	// ServerCPU is the child's CPU time.
	ServerCPU time.Duration
}

// add returns the sum of s and t.
func (s SliceStats) add(t SliceStats) SliceStats {
	return SliceStats{s.Conns + t.Conns, s.Wall + t.Wall, s.CPU + t.CPU, s.ServerCPU + t.ServerCPU}
}

// RunSlice runs one slice, as one [BenchSlice] iteration does, through c
// and closes c after.
func RunSlice(tb testing.TB, url string, serverCPU func() time.Duration, concurrency int, c SliceClient) SliceStats {
	req := CheckRequest(CheckPNG())
	ctx := context.Background()
	// Collect the garbage of what ran before, so that a slice pays for
	// its own (two clients of BenchSlicePair share one heap).
	runtime.GC()
	conns0, server0 := ChildConns(tb, url), serverCPU()
	start, cpu0 := time.Now(), ProcessCPU()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range concurrency {
		wg.Go(func() {
			for next.Add(1) <= SliceJudgments {
				if err := c.Judge(ctx, req); err != nil {
					tb.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	st := SliceStats{Wall: time.Since(start), CPU: ProcessCPU() - cpu0, ServerCPU: serverCPU() - server0}
	st.Conns = ChildConns(tb, url) - conns0
	c.Close()
	return st
}

// BenchSlicePair runs a slice through a client of base and one of next
// in each iteration, in turn first (so neither always meets the
// other's leftovers), so that both meet the same machine (a shared
// machine's speed drifts by tens of percent between runs a minute
// apart). It reports each one's cpu-ns/judgment and the median over the
// iterations of next's CPU over base's in the same iteration
// (cpu-ratio), with the same ratio of the child's CPU (server-cpu-ratio)
// as a check that the two slices met the same machine. One iteration is
// two slices (about 4 s), so run it with an even -benchtime count of
// iterations (-benchtime 10x): the default stops after one pair.
func BenchSlicePair(b *testing.B, url string, serverCPU func() time.Duration, concurrency int, base, next func() SliceClient) {
	if ProcessCPU() == 0 {
		b.Skip("no process CPU time on this system")
	}
	var sumBase, sumNext SliceStats
	var ratios, serverRatios []float64
	for b.Loop() {
		var sb, sn SliceStats
		if len(ratios)%2 == 0 {
			sb = RunSlice(b, url, serverCPU, concurrency, base())
			sn = RunSlice(b, url, serverCPU, concurrency, next())
		} else {
			sn = RunSlice(b, url, serverCPU, concurrency, next())
			sb = RunSlice(b, url, serverCPU, concurrency, base())
		}
		sumBase, sumNext = sumBase.add(sb), sumNext.add(sn)
		ratios = append(ratios, float64(sn.CPU)/float64(sb.CPU))
		serverRatios = append(serverRatios, float64(sn.ServerCPU)/float64(sb.ServerCPU))
	}
	n := float64(b.N) * SliceJudgments
	b.ReportMetric(float64(sumBase.CPU)/n, "base-cpu-ns/judgment")
	b.ReportMetric(float64(sumNext.CPU)/n, "cpu-ns/judgment")
	b.ReportMetric(median(ratios), "cpu-ratio")
	b.ReportMetric(median(serverRatios), "server-cpu-ratio")
}

// median returns the median of xs (sorted in place).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
