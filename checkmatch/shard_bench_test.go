package checkmatch

import (
	"context"
	"path/filepath"
	"runtime"
	rtmetrics "runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/vllm"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

// heapSampler records the peak of live heap bytes while it runs.
type heapSampler struct {
	peak atomic.Uint64
	stop chan struct{}
	done sync.WaitGroup
}

func startHeapSampler() *heapSampler {
	h := &heapSampler{stop: make(chan struct{})}
	h.done.Add(1)
	go func() {
		defer h.done.Done()
		s := []rtmetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			rtmetrics.Read(s)
			if v := s[0].Value.Uint64(); v > h.peak.Load() {
				h.peak.Store(v)
			}
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *heapSampler) end() uint64 { close(h.stop); h.done.Wait(); return h.peak.Load() }

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkShardedSeeds judges 20 seeds × 140 cases (2,800 judgments)
// against the in-process fake vLLM server through the real vLLM client,
// 64 judgments in flight: "whole" runs each seed as one run at concurrency
// 64 (the baseline); "4shards" runs each seed as 4 shards side by side at
// concurrency 16 each, every case journaled (fsync) and each shard's
// record written, then merges them into the seed's receipt. Seeds run one
// after another. The slices are rendered outside the timer (rendering is
// the same either way). Reported: judgments/s over the timed work, the
// peak live heap while judging, and the live heap after the first and the
// last seed (after a GC): equal when nothing is kept from seed to seed.
// Each seed gets a fresh fake server, outside the timer.
func BenchmarkShardedSeeds(b *testing.B) {
	const seeds, shards = 20, 4
	for _, mode := range []string{"whole", "4shards"} {
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			var judged int
			var timed time.Duration
			var first, last, peak uint64
			for b.Loop() {
				for seed := range seeds {
					b.StopTimer()
					slice, err := BuildSlice(uint64(seed), RowCount, nil)
					if err != nil {
						b.Fatal(err)
					}
					dir := b.TempDir()
					// A fresh fake server per seed: it records every request
					// it served (images included), which is the test's
					// memory, not the harness's.
					srv, sess := openFake(b)
					rc := RunContext{Backend: serving.VLLM, Model: sess.Model, ModelRevision: "rev-1"}
					b.StartTimer()
					h := startHeapSampler()
					t0 := time.Now()
					n := judgeSeed(b, sess.Port, rc, slice, dir, mode == "4shards", shards)
					timed += time.Since(t0)
					peak = max(peak, h.end())
					judged += n
					b.StopTimer()
					sess.Close()
					srv.Close()
					slice = Slice{}
					heap := liveHeap()
					if seed == 0 {
						first = heap
					}
					last = heap
					b.StartTimer()
				}
			}
			b.ReportMetric(float64(judged)/timed.Seconds(), "judgments/s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(first)/(1<<20), "heap-after-seed1-MiB")
			b.ReportMetric(float64(last)/(1<<20), "heap-after-seed20-MiB")
		})
	}
}

func openFake(b *testing.B) (*judgmenttest.Server, *backend.Session) {
	srv := judgmenttest.NewVLLM(nil)
	sess, err := backend.Open(context.Background(), backend.Settings{
		Backend: backend.VLLM,
		VLLM:    vllm.Settings{BaseURL: srv.URL, Model: judgmenttest.DefaultModelID},
	}, "")
	if err != nil {
		b.Fatal(err)
	}
	return srv, sess
}

// judgeSeed judges one slice whole or as shards (merged) and returns the
// receipt's case count.
func judgeSeed(b *testing.B, port judgment.Port, rc RunContext, slice Slice, dir string, sharded bool, n int) int {
	b.Helper()
	ctx := context.Background()
	if !sharded {
		run, err := Run(ctx, port, rc.Model, slice.Requests, RunOptions{Concurrency: 64})
		if err != nil || run.Stopped != nil {
			b.Fatal(err, run.Stopped)
		}
		rec, err := BuildReceipt(run, rc.ReceiptParts(slice, run))
		if err != nil {
			b.Fatal(err)
		}
		return len(rec.Cases)
	}
	files := make([]ShardFile, n)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			errs[i] = func() error {
				s := Shard{Index: i, Count: n}
				h, err := ShardJournalHeader(rc, slice, 16, s)
				if err != nil {
					return err
				}
				path := filepath.Join(dir, "shard"+strconv.Itoa(i)+".json")
				j, err := CreateJournal(path+".journal.jsonl", h)
				if err != nil {
					return err
				}
				run, err := Run(ctx, port, rc.Model, slice.Requests, RunOptions{Concurrency: 16, Shard: s, Journal: j})
				if cerr := j.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return err
				}
				rec, err := NewShardRecord(rc, slice, s, h, path+".journal.jsonl", run, nil)
				if err != nil {
					return err
				}
				if _, err := receipt.Write(path, rec, judgment.Secrets{}); err != nil {
					return err
				}
				files[i], err = ReadShard(path)
				return err
			}()
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	rec, err := MergeReceipt(files)
	if err != nil {
		b.Fatal(err)
	}
	return len(rec.Cases)
}
