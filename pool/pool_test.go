package pool

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/judgment"
)

// recorder records which indices were called.
type recorder struct {
	mu     sync.Mutex
	called []int
}

func (r *recorder) add(i int) {
	r.mu.Lock()
	r.called = append(r.called, i)
	r.mu.Unlock()
}

func (r *recorder) sorted() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := slices.Clone(r.called)
	slices.Sort(s)
	return s
}

func refused(i int) error { return &judgment.TransportError{Msg: fmt.Sprintf("refused %d", i)} }

func items(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// collected returns a channel closed once the pool has collected the
// failure of index i (through the afterCollect hook). Tests that use it
// must not run in parallel.
func collected(t *testing.T, i int) <-chan struct{} {
	ch := make(chan struct{})
	var once sync.Once
	afterCollect = func(j int, err error) {
		if j == i && err != nil {
			once.Do(func() { close(ch) })
		}
	}
	t.Cleanup(func() { afterCollect = nil })
	return ch
}

// run calls JudgeInOrder with a 10 s guard against deadlock.
func run(t *testing.T, n, concurrency int, call Call[int, int], opts Options) (Result[int], error) {
	t.Helper()
	type ret struct {
		res Result[int]
		err error
	}
	ch := make(chan ret, 1)
	go func() {
		res, err := JudgeInOrder(context.Background(), items(n), concurrency, call, opts)
		ch <- ret{res, err}
	}()
	select {
	case r := <-ch:
		return r.res, r.err
	case <-time.After(10 * time.Second):
		t.Fatal("JudgeInOrder did not return: deadlock")
		return Result[int]{}, nil
	}
}

// TestBarrier: concurrency 4 with a 4-party barrier over 8 requests must
// not deadlock; results stay in slice order and all 8 are called.
func TestBarrier(t *testing.T) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	arrived, generation := 0, 0
	rec := &recorder{}
	call := func(_ context.Context, i, item int) (int, error) {
		rec.add(i)
		mu.Lock()
		gen := generation
		arrived++
		if arrived == 4 {
			arrived, generation = 0, generation+1
			cond.Broadcast()
		} else {
			for gen == generation {
				cond.Wait()
			}
		}
		mu.Unlock()
		return item * 10, nil
	}
	res, err := run(t, 8, 4, call, Options{})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 10, 20, 30, 40, 50, 60, 70}, res.Values)
	assert.Equal(t, items(8), rec.sorted())
	assert.Nil(t, res.Failure)
}

// scriptedClock is a clock whose time the test sets; it counts its reads
// and lets a test wait for a number of reads.
type scriptedClock struct {
	mu    sync.Mutex
	cond  *sync.Cond
	now   float64
	reads int
}

func newScriptedClock() *scriptedClock {
	c := &scriptedClock{}
	c.cond = sync.NewCond(&c.mu)
	return c
}

func (c *scriptedClock) read() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	c.cond.Broadcast()
	return c.now
}

// waitReads waits until the clock has been read n times, then sets now.
func (c *scriptedClock) waitReadsAndSet(n int, now float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.reads < n {
		c.cond.Wait()
	}
	c.now = now
}

// TestFinishOrder: 6 requests at concurrency 6 finish in the order
// 5,4,3,2,1,0 and call i takes 6−i s on the call clock; results stay in
// slice order with latencies [6 5 4 3 2 1].
func TestFinishOrder(t *testing.T) {
	clock := newScriptedClock()
	call := func(_ context.Context, i, item int) (int, error) {
		// All six calls start (6 reads at time 0); call i returns after the
		// calls above it have returned and been timed: after 6 + (5−i)
		// reads. It returns at time 6−i.
		clock.waitReadsAndSet(6+(5-i), float64(6-i))
		return item, nil
	}
	res, err := run(t, 6, 6, call, Options{Clock: clock.read})
	require.NoError(t, err)
	assert.Equal(t, items(6), res.Values)
	assert.Equal(t, []float64{6, 5, 4, 3, 2, 1}, res.Latencies)
	assert.Equal(t, 12, clock.reads)
}

// TestFaultHeldOthers: 10 requests at concurrency 2, index 3 fails at once
// and later calls are held until the pool has seen that failure: results
// 0..2, the failure names index 3, nothing is discarded and no index above
// 4 is ever sent.
func TestFaultHeldOthers(t *testing.T) {
	seen := collected(t, 3)
	rec := &recorder{}
	call := func(_ context.Context, i, item int) (int, error) {
		rec.add(i)
		switch {
		case i == 3:
			return 0, refused(3)
		case i >= 2:
			<-seen
		}
		return item, nil
	}
	res, err := run(t, 10, 2, call, Options{})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2}, res.Values)
	require.NotNil(t, res.Failure)
	assert.Equal(t, 3, res.Failure.Index)
	assert.Equal(t, "refused 3", res.Failure.Err.Error())
	assert.Equal(t, 0, res.Failure.Discarded)
	assert.LessOrEqual(t, slices.Max(rec.sorted()), 4)
	assert.Equal(t, []int{0, 1, 2, 3}, rec.sorted())
}

// TestTwoFailures: indices 2 and 3 fail, 3 first; the first failure in
// slice order wins.
func TestTwoFailures(t *testing.T) {
	seen := collected(t, 3)
	call := func(_ context.Context, i, item int) (int, error) {
		switch i {
		case 3:
			return 0, refused(3)
		case 2:
			<-seen
			return 0, refused(2)
		}
		return item, nil
	}
	res, err := run(t, 4, 4, call, Options{})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1}, res.Values)
	require.NotNil(t, res.Failure)
	assert.Equal(t, 2, res.Failure.Index)
	assert.Equal(t, "refused 2", res.Failure.Err.Error())
	assert.Equal(t, 1, res.Failure.Discarded, "index 3 failed after reaching the backend")
}

// TestDiscarded: 8 requests at concurrency 4, index 1 fails at once, 0, 2
// and 3 are held until then; 3 then fails, 0 and 2 succeed.
func TestDiscarded(t *testing.T) {
	seen := collected(t, 1)
	rec := &recorder{}
	call := func(_ context.Context, i, item int) (int, error) {
		rec.add(i)
		if i == 1 {
			return 0, refused(1)
		}
		<-seen
		if i == 3 {
			return 0, refused(3)
		}
		return item, nil
	}
	res, err := run(t, 8, 4, call, Options{})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2, 3}, rec.sorted())
	assert.Equal(t, []int{0}, res.Values)
	require.NotNil(t, res.Failure)
	assert.Equal(t, 1, res.Failure.Index)
	assert.Equal(t, 2, res.Failure.Discarded)
	assert.Equal(t, 2, res.Discarded())
}

func TestSequentialFailure(t *testing.T) {
	rec := &recorder{}
	call := func(_ context.Context, i, item int) (int, error) {
		rec.add(i)
		if i == 1 {
			return 0, refused(1)
		}
		return item, nil
	}
	res, err := run(t, 4, 1, call, Options{})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1}, rec.called, "one at a time, in order, stopping at once")
	assert.Equal(t, []int{0}, res.Values)
	require.NotNil(t, res.Failure)
	assert.Equal(t, 1, res.Failure.Index)
	assert.Equal(t, 0, res.Discarded())
}

// TestSequentialClockReads: one read before and one after each successful
// call, one read before a failing call.
func TestSequentialClockReads(t *testing.T) {
	reads := 0
	clock := func() float64 { reads++; return 0.5 * float64(reads-1) }
	call := func(_ context.Context, i, item int) (int, error) {
		if i == 2 {
			return 0, refused(2)
		}
		return item, nil
	}
	res, err := JudgeInOrder(context.Background(), items(5), 1, call, Options{Clock: clock})
	require.NoError(t, err)
	assert.Equal(t, []float64{0.5, 0.5}, res.Latencies)
	assert.Equal(t, 5, reads)
}

func TestConcurrencyBelowOne(t *testing.T) {
	for _, n := range []int{0, -1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			calls := 0
			call := func(context.Context, int, int) (int, error) { calls++; return 0, nil }
			_, err := JudgeInOrder(context.Background(), items(3), n, call, Options{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "concurrency")
			assert.Equal(t, fmt.Sprintf("concurrency must be at least 1, got %d", n), err.Error())
			assert.Zero(t, calls)
		})
	}
}

// TestNonBackendErrorPropagates: an error that is not a backend failure
// aborts the run at every concurrency.
func TestNonBackendErrorPropagates(t *testing.T) {
	boom := errors.New("boom")
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			call := func(_ context.Context, i, item int) (int, error) {
				if i == 1 {
					return 0, boom
				}
				return item, nil
			}
			res, err := run(t, 5, n, call, Options{})
			assert.ErrorIs(t, err, boom)
			assert.Nil(t, res.Values)
			assert.Nil(t, res.Failure)
		})
	}
}

// TestStopOption: a custom Stop decides which errors stop the run.
func TestStopOption(t *testing.T) {
	errSoft := errors.New("soft")
	call := func(_ context.Context, i, item int) (int, error) {
		if i == 2 {
			return 0, errSoft
		}
		return item, nil
	}
	res, err := run(t, 4, 2, call, Options{Stop: func(err error) bool { return errors.Is(err, errSoft) }})
	require.NoError(t, err)
	require.NotNil(t, res.Failure)
	assert.Equal(t, 2, res.Failure.Index)
	assert.Equal(t, []int{0, 1}, res.Values)
}

// TestCancelSequential: Ctrl-C between calls stops the run like a backend
// failure; the next item fails with a *CanceledError, earlier results kept.
func TestCancelSequential(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &recorder{}
	call := func(_ context.Context, i, item int) (int, error) {
		rec.add(i)
		if i == 1 {
			cancel()
		}
		return item, nil
	}
	res, err := JudgeInOrder(ctx, items(5), 1, call, Options{})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1}, res.Values)
	require.NotNil(t, res.Failure)
	assert.Equal(t, 2, res.Failure.Index)
	var ce *CanceledError
	require.ErrorAs(t, res.Failure.Err, &ce)
	assert.ErrorIs(t, res.Failure.Err, context.Canceled)
	assert.Equal(t, "run cancelled: context canceled", res.Failure.Err.Error())
	assert.Equal(t, []int{0, 1}, rec.called)
}

// TestCancelInFlight: calls in flight when ctx ends return their context
// error (here ctx.Err() itself, not a judgment error): that still stops the
// run instead of aborting it, and the smallest failed index wins.
func TestCancelInFlight(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{}, 8)
	call := func(ctx context.Context, i, item int) (int, error) {
		if i < 2 {
			return item, nil
		}
		started <- struct{}{}
		<-ctx.Done()
		return 0, ctx.Err()
	}
	go func() {
		<-started
		<-started
		cancel()
	}()
	res, err := JudgeInOrder(ctx, items(8), 2, call, Options{})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1}, res.Values)
	require.NotNil(t, res.Failure)
	assert.Equal(t, 2, res.Failure.Index)
	assert.ErrorIs(t, res.Failure.Err, context.Canceled)
	assert.Equal(t, 1, res.Failure.Discarded, "index 3 was in flight and failed")
}

func TestEmpty(t *testing.T) {
	for _, n := range []int{1, 4} {
		res, err := JudgeInOrder(context.Background(), nil, n, func(context.Context, int, int) (int, error) {
			t.Fatal("no call expected")
			return 0, nil
		}, Options{})
		require.NoError(t, err)
		assert.Empty(t, res.Values)
		assert.Nil(t, res.Failure)
	}
}

// TestDeterministicAcrossConcurrency: a deterministic backend gives the
// same kept results at every concurrency.
func TestDeterministicAcrossConcurrency(t *testing.T) {
	call := func(_ context.Context, i, item int) (int, error) {
		if i == 37 {
			return 0, refused(i)
		}
		return item * item, nil
	}
	want, err := JudgeInOrder(context.Background(), items(100), 1, call, Options{})
	require.NoError(t, err)
	for _, n := range []int{2, 7, 16, 100} {
		got, err := JudgeInOrder(context.Background(), items(100), n, call, Options{})
		require.NoError(t, err)
		assert.Equal(t, want.Values, got.Values, "concurrency %d", n)
		assert.Equal(t, want.Failure.Index, got.Failure.Index, "concurrency %d", n)
	}
}
