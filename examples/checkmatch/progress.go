package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/typevet/typevet-go/judgment"
)

// progressEvery is how often a terminal progress line is redrawn.
const progressEvery = time.Second

// progress counts finished judgments and, when its writer is a terminal,
// redraws one line on it: cases done, failures, rate and time left. It
// is quiet for any other writer (a file, a pipe, a test buffer).
type progress struct {
	w       io.Writer
	tty     bool
	total   int
	done    atomic.Int64
	failed  atomic.Int64
	started time.Time
	quit    chan struct{}
	wg      sync.WaitGroup
}

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, tty: isTerminal(w), total: total, quit: make(chan struct{})}
}

// isTerminal reports whether w is an *os.File on a character device.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// wrap counts every judgment port passes through; answers are unchanged.
func (p *progress) wrap(port judgment.Port) judgment.Port {
	return judgment.PortFunc(func(ctx context.Context, req judgment.Request) (judgment.Response, error) {
		resp, err := port.Judge(ctx, req)
		if err != nil {
			p.failed.Add(1)
		} else {
			p.done.Add(1)
		}
		return resp, err
	})
}

func (p *progress) start() {
	p.started = time.Now()
	if !p.tty {
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-p.quit:
				return
			case <-t.C:
				fmt.Fprintf(p.w, "\r%s", p.line(time.Since(p.started)))
			}
		}
	}()
}

func (p *progress) stop() {
	close(p.quit)
	p.wg.Wait()
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\n", p.line(time.Since(p.started)))
	}
}

// line formats the progress after elapsed time.
func (p *progress) line(elapsed time.Duration) string {
	return progressLine(int(p.done.Load()), int(p.failed.Load()), p.total, elapsed)
}

// progressLine is, e.g., "37/140 cases, 0 failures, 2.1 cases/s, about 49s left".
func progressLine(done, failed, total int, elapsed time.Duration) string {
	s := fmt.Sprintf("%d/%d cases, %d failures", done, total, failed)
	if done == 0 || elapsed <= 0 {
		return s + "   "
	}
	rate := float64(done) / elapsed.Seconds()
	left := time.Duration(float64(total-done) / rate * float64(time.Second)).Round(time.Second)
	return fmt.Sprintf("%s, %.1f cases/s, about %s left   ", s, rate, left)
}
