package evalrun

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/typevet/typevet-go/judgment"
)

// Defaults of a [RetryPolicy] whose delays are zero.
const (
	defaultRetryBaseDelay = time.Second
	defaultRetryMaxDelay  = 30 * time.Second
)

// RetryPolicy is opt-in retry for a judgment that failed on the way
// (retryable). The zero value makes one attempt and never retries:
// typevet's stop-at-first-failure rule.
type RetryPolicy struct {
	// Retries is the most further attempts after the first; 0 means none,
	// a negative value is an error.
	Retries int
	// BaseDelay is the back-off before the first retry, doubled before
	// each next one; 0 means 1 s.
	BaseDelay time.Duration
	// MaxDelay caps every back-off and a server's Retry-After; 0 means
	// 30 s.
	MaxDelay time.Duration
	// Budget bounds the back-off time all retries of one run wait
	// together; once a retry's delay would overrun it, the failure stops
	// the run as it would without retries. 0 means no bound.
	Budget time.Duration

	// waited is the back-off time spent so far, shared by the copies of
	// the policy one run makes ([RetryPolicy.ForRun]); nil counts per call.
	waited *atomic.Int64
}

// ForRun returns p with one back-off account for a whole run, so that every
// judgment of the run draws on one [RetryPolicy.Budget].
func (p RetryPolicy) ForRun() RetryPolicy {
	p.waited = new(atomic.Int64)
	return p
}

// spend draws d from the run's budget; false when it would overrun it.
func (p RetryPolicy) spend(d time.Duration) bool {
	if p.Budget <= 0 {
		return true
	}
	if p.waited == nil {
		p.waited = new(atomic.Int64)
	}
	if p.waited.Add(int64(d)) > int64(p.Budget) {
		p.waited.Add(-int64(d))
		return false
	}
	return true
}

// Check refuses a policy that [Run] (and a study that retries as Run
// does) cannot follow: negative retries or delays.
func (p RetryPolicy) Check() error {
	if p.Retries < 0 {
		return fmt.Errorf("retries must not be negative, got %d", p.Retries)
	}
	if p.BaseDelay < 0 || p.MaxDelay < 0 || p.Budget < 0 {
		return errors.New("retry delays and budget must not be negative")
	}
	return nil
}

// retryable reports whether a judgment that failed with err may succeed
// when sent again: a *[judgment.TransportError] (connect or read failure,
// a request timeout) or a *[judgment.BackendHTTPError] with status 429,
// 502, 503 or 504. Never a 4xx that says the request is wrong, nor an
// answer that breaks the contract, nor a cancelled context (the caller
// checks its own context too).
func retryable(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	var he *judgment.BackendHTTPError
	if errors.As(err, &he) {
		switch he.StatusCode {
		case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
		return false
	}
	var te *judgment.TransportError
	return errors.As(err, &te)
}

// Delay returns the back-off before retry number retry (1 for the first):
// BaseDelay × 2^(retry-1), or the server's Retry-After when err carries a
// longer one, each capped at MaxDelay.
func (p RetryPolicy) Delay(retry int, err error) time.Duration {
	base, maxDelay := p.BaseDelay, p.MaxDelay
	if base == 0 {
		base = defaultRetryBaseDelay
	}
	if maxDelay == 0 {
		maxDelay = defaultRetryMaxDelay
	}
	d := base
	for range retry - 1 {
		if d >= maxDelay {
			break
		}
		d *= 2
	}
	var he *judgment.BackendHTTPError
	if errors.As(err, &he) && he.RetryAfterSeconds != nil && *he.RetryAfterSeconds > 0 {
		ra := *he.RetryAfterSeconds
		if ra >= maxDelay.Seconds() {
			d = maxDelay
		} else if ra := time.Duration(ra * float64(time.Second)); ra > d {
			d = ra
		}
	}
	return min(d, maxDelay)
}

// Judge sends req to port, as [Run] sends each judgment: up to 1+Retries
// attempts, retrying only a failure that may succeed when sent again (a
// *[judgment.TransportError], HTTP 429, 502, 503 or 504; never a cancelled
// ctx), after [RetryPolicy.Delay] while the [RetryPolicy.Budget] lasts.
// It returns the response, the attempts
// made, the latency of the last attempt and clock's reading at its end
// (clock is read before and after each attempt, in seconds; nil counts
// from the call), or the last attempt's error.
func (p RetryPolicy) Judge(ctx context.Context, port judgment.Port, req judgment.Request, clock func() float64) (resp judgment.Response, attempts int, latency, end float64, err error) {
	if err := p.Check(); err != nil {
		return judgment.Response{}, 0, 0, 0, err
	}
	if clock == nil {
		start := time.Now()
		clock = func() float64 { return time.Since(start).Seconds() }
	}
	for {
		attempts++
		t0 := clock()
		resp, err = port.Judge(ctx, req)
		if err == nil {
			end = clock()
			return resp, attempts, end - t0, end, nil
		}
		if attempts > p.Retries || ctx.Err() != nil || !retryable(err) {
			return judgment.Response{}, attempts, 0, 0, err
		}
		d := p.Delay(attempts, err)
		if !p.spend(d) {
			return judgment.Response{}, attempts, 0, 0, err
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return judgment.Response{}, attempts, 0, 0, err
		case <-t.C:
		}
	}
}

// RetryPort is a [judgment.Port] that retries its port's retryable
// failures under a policy ([Retry]). It is safe for concurrent use, as its
// port must be.
type RetryPort struct {
	port   judgment.Port
	policy RetryPolicy
	calls  atomic.Int64
}

// Retry returns port wrapped to follow p: each Judge makes up to
// 1+p.Retries attempts, retrying only a failure that may succeed when sent
// again, after p's back-off, all of them drawing on one p.Budget. The zero
// policy never retries.
func Retry(port judgment.Port, p RetryPolicy) *RetryPort {
	return &RetryPort{port: port, policy: p.ForRun()}
}

// Judge sends req with retries ([RetryPolicy.Judge]).
func (r *RetryPort) Judge(ctx context.Context, req judgment.Request) (judgment.Response, error) {
	resp, attempts, _, _, err := r.policy.Judge(ctx, r.port, req, nil)
	r.calls.Add(int64(attempts))
	return resp, err
}

// Calls returns the judgment calls made so far, retries included.
func (r *RetryPort) Calls() int { return int(r.calls.Load()) }
