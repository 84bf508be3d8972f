package cli

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/typevet/typevet-go/judgment"
)

func TestProgressLine(t *testing.T) {
	tests := []struct {
		name                string
		done, failed, total int
		elapsed             time.Duration
		want                string
	}{
		{name: "nothing yet", total: 140, elapsed: time.Second, want: "0/140 cases, 0 failures   "},
		{name: "running", done: 35, total: 140, elapsed: 10 * time.Second,
			want: "35/140 cases, 0 failures, 3.5 cases/s, about 30s left   "},
		{name: "failure", done: 3, failed: 1, total: 7, elapsed: 3 * time.Second,
			want: "3/7 cases, 1 failures, 1.0 cases/s, about 3s left   "},
		{name: "finished", done: 7, total: 7, elapsed: 2 * time.Second,
			want: "7/7 cases, 0 failures, 3.5 cases/s, about 0s left   "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, progressLine(tt.done, tt.failed, tt.total, "cases", tt.elapsed))
		})
	}
}

// TestProgressQuiet: a writer that is not a terminal gets nothing, while
// the wrapped port still counts and passes answers and errors through.
func TestProgressQuiet(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, "judging", 3, "cases")
	assert.False(t, p.tty)
	boom := &judgment.TransportError{Msg: "refused"}
	port := p.Wrap(judgment.PortFunc(func(_ context.Context, req judgment.Request) (judgment.Response, error) {
		if req.State == "bad" {
			return judgment.Response{}, boom
		}
		return judgment.Response{Model: req.Model}, nil
	}))
	p.Start()
	resp, err := port.Judge(context.Background(), judgment.Request{Model: "m"})
	assert.NoError(t, err)
	assert.Equal(t, "m", resp.Model)
	_, err = port.Judge(context.Background(), judgment.Request{State: "bad"})
	assert.True(t, errors.Is(err, boom))
	p.Stop()
	assert.Empty(t, buf.String())
	assert.Equal(t, "judging: 1/3 cases, 1 failures   ", p.line(0))
}
