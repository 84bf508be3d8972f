package evalrun

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/judgment"
)

func TestRetryDelay(t *testing.T) {
	p := RetryPolicy{BaseDelay: time.Second, MaxDelay: 10 * time.Second}
	assert.Equal(t, time.Second, p.Delay(1, nil))
	assert.Equal(t, 4*time.Second, p.Delay(3, nil))
	assert.Equal(t, 10*time.Second, p.Delay(30, nil), "capped")
	ra := func(s float64) error { return &judgment.BackendHTTPError{StatusCode: 429, RetryAfterSeconds: &s} }
	assert.Equal(t, 7*time.Second, p.Delay(1, ra(7)), "Retry-After honoured")
	assert.Equal(t, 10*time.Second, p.Delay(1, ra(3600)), "Retry-After capped")
	assert.Equal(t, 2*time.Second, p.Delay(2, ra(0.5)), "a shorter Retry-After does not shorten the back-off")
	assert.False(t, retryable(&judgment.TransportError{Msg: "x", Err: context.Canceled}))
	assert.False(t, retryable(&judgment.SchemaValidationError{Msg: "bad answer"}))
	assert.False(t, retryable(errors.New("plain")))
	assert.Error(t, RetryPolicy{Retries: -1}.Check())
}

// failPort fails every judgment with err and counts the calls.
type failPort struct {
	err   error
	calls int
}

func (p *failPort) Judge(context.Context, judgment.Request) (judgment.Response, error) {
	p.calls++
	return judgment.Response{}, p.err
}

// TestRetryBudget: retries of one run draw on one back-off budget; once a
// delay would overrun it, the failure is returned as without retries.
func TestRetryBudget(t *testing.T) {
	port := &failPort{err: &judgment.BackendHTTPError{StatusCode: 503}}
	p := RetryPolicy{Retries: 10, BaseDelay: 10 * time.Millisecond, MaxDelay: 10 * time.Millisecond, Budget: 25 * time.Millisecond}
	r := Retry(port, p)
	_, err := r.Judge(context.Background(), judgment.Request{})
	require.Error(t, err)
	assert.Equal(t, 3, r.Calls(), "two 10 ms back-offs fit in 25 ms, a third does not")
	_, err = r.Judge(context.Background(), judgment.Request{})
	require.Error(t, err)
	assert.Equal(t, 4, r.Calls(), "the budget is spent: the next failure is not retried")
	assert.Equal(t, 4, port.calls)
	assert.Error(t, RetryPolicy{Budget: -1}.Check())
}

// TestRetryPortRetriesOnlyRetryable: a 400 is returned at once; a 503 is
// retried up to the policy's count.
func TestRetryPortRetriesOnlyRetryable(t *testing.T) {
	fast := RetryPolicy{Retries: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
	bad := &failPort{err: &judgment.BackendHTTPError{StatusCode: 400}}
	_, err := Retry(bad, fast).Judge(context.Background(), judgment.Request{})
	require.Error(t, err)
	assert.Equal(t, 1, bad.calls)
	busy := &failPort{err: &judgment.BackendHTTPError{StatusCode: 503}}
	_, err = Retry(busy, fast).Judge(context.Background(), judgment.Request{})
	require.Error(t, err)
	assert.Equal(t, 3, busy.calls)
}
