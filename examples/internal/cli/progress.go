package cli

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

// Progress counts the finished items of one long step (renders,
// judgments, verdict requests) and, when its writer is a terminal, redraws
// one line on it: the step, items done, failures, rate and time left. It
// is quiet for any other writer (a file, a pipe, a test buffer), so logs
// stay clean. Start it, count with [Progress.Add] or [Progress.Wrap], and
// Stop it once.
type Progress struct {
	w       io.Writer
	tty     bool
	step    string
	unit    string
	total   int
	done    atomic.Int64
	failed  atomic.Int64
	started time.Time
	quit    chan struct{}
	wg      sync.WaitGroup
}

// NewProgress returns the progress of step ("judging") over total items
// called unit ("cases"), drawn on w when w is a terminal.
func NewProgress(w io.Writer, step string, total int, unit string) *Progress {
	return &Progress{w: w, tty: IsTerminal(w), step: step, unit: unit, total: total, quit: make(chan struct{})}
}

// IsTerminal reports whether w is an *os.File on a character device.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Add counts one finished item; failed counts it as a failure.
func (p *Progress) Add(failed bool) {
	if failed {
		p.failed.Add(1)
	} else {
		p.done.Add(1)
	}
}

// Wrap counts every judgment port passes through; answers are unchanged.
func (p *Progress) Wrap(port judgment.Port) judgment.Port {
	return judgment.PortFunc(func(ctx context.Context, req judgment.Request) (judgment.Response, error) {
		resp, err := port.Judge(ctx, req)
		p.Add(err != nil)
		return resp, err
	})
}

// Start starts the clock and, on a terminal, the redraws.
func (p *Progress) Start() {
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

// Stop ends the redraws and, on a terminal, draws the final line.
func (p *Progress) Stop() {
	close(p.quit)
	p.wg.Wait()
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\n", p.line(time.Since(p.started)))
	}
}

// line formats the progress after elapsed time.
func (p *Progress) line(elapsed time.Duration) string {
	return p.step + ": " + progressLine(int(p.done.Load()), int(p.failed.Load()), p.total, p.unit, elapsed)
}

// progressLine is, e.g., "37/140 cases, 0 failures, 2.1 cases/s, about 49s left".
func progressLine(done, failed, total int, unit string, elapsed time.Duration) string {
	s := fmt.Sprintf("%d/%d %s, %d failures", done, total, unit, failed)
	if done == 0 || elapsed <= 0 {
		return s + "   "
	}
	rate := float64(done) / elapsed.Seconds()
	left := time.Duration(float64(total-done-failed) / rate * float64(time.Second)).Round(time.Second)
	return fmt.Sprintf("%s, %.1f %s/s, about %s left   ", s, rate, unit, left)
}
