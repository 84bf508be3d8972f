package judgment_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/typevet/typevet-go/judgment"
)

// TestStopClass: the class a stopped record names, for a live context and
// for one that has ended.
func TestStopClass(t *testing.T) {
	live := context.Background()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()
	transportCtx := &judgment.TransportError{Msg: "post: context canceled", Err: context.Canceled}
	for _, tt := range []struct {
		name string
		ctx  context.Context
		err  error
		want string
	}{
		{"transport error, live run", live, &judgment.TransportError{Msg: "connection refused"}, "TransportError"},
		{"http error", live, &judgment.BackendHTTPError{StatusCode: 503, Msg: "HTTP 503"}, "BackendHttpError"},
		{"ctrl-c mid-call is not a network failure", cancelled, transportCtx, "Canceled"},
		{"stopped between calls", cancelled, cancelled.Err(), "Canceled"},
		{"deadline between calls", expired, expired.Err(), "DeadlineExceeded"},
		{"wrapped context error, live run", live, fmt.Errorf("send: %w", context.DeadlineExceeded), "DeadlineExceeded"},
		{"ended run, unrelated failure", cancelled, &judgment.TransportError{Msg: "connection refused"}, "TransportError"},
		{"foreign error", live, errors.New("boom"), "*errors.errorString"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := judgment.StopClass(tt.ctx, tt.err); got != tt.want {
				t.Errorf("StopClass = %q, want %q", got, tt.want)
			}
		})
	}
}
