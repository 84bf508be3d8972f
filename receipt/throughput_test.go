package receipt

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/typevet/typevet-go/serving"
)

func f64(v float64) *float64 { return &v }

func TestNearestRank(t *testing.T) {
	perm20 := make([]float64, 20)
	for i := range perm20 {
		perm20[i] = float64(7*i%20 + 1)
	}
	tests := []struct {
		name   string
		reason string
		values []float64
		q      float64
		want   float64
		ok     bool
	}{
		{name: "p50 of 1..20", values: perm20, q: 0.5, want: 10, ok: true},
		{name: "p95 of 1..20", reason: "0.95·20 is exactly 19.0 in binary", values: perm20, q: 0.95, want: 19, ok: true},
		{name: "p99 of 1..20", values: perm20, q: 0.99, want: 20, ok: true},
		{name: "p50 of five", reason: "rank ceil(2.5) = 3", values: []float64{5, 1, 4, 2, 3}, q: 0.5, want: 3, ok: true},
		{name: "p95 of five", values: []float64{5, 1, 4, 2, 3}, q: 0.95, want: 5, ok: true},
		{name: "p99 of five", values: []float64{5, 1, 4, 2, 3}, q: 0.99, want: 5, ok: true},
		{name: "one value", values: []float64{0.25}, q: 0.5, want: 0.25, ok: true},
		{name: "q 0", reason: "index max(ceil(0)-1, 0) = 0", values: []float64{3, 1, 2}, q: 0, want: 1, ok: true},
		{name: "q above 1", reason: "decision: clamped to 1", values: []float64{3, 1, 2}, q: 1.5, want: 3, ok: true},
		{name: "empty", values: nil, q: 0.5, ok: false},
		{name: "NaN q", values: []float64{1}, q: math.NaN(), ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]float64(nil), tt.values...)
			got, ok := NearestRank(in, tt.q)
			if ok != tt.ok || got != tt.want {
				t.Errorf("NearestRank(%v, %v) = %v, %v; want %v, %v", tt.values, tt.q, got, ok, tt.want, tt.ok)
			}
			if !reflect.DeepEqual(in, tt.values) && len(in) > 0 {
				t.Errorf("NearestRank modified its input: %v", in)
			}
		})
	}
}

func TestNewThroughput(t *testing.T) {
	perm20 := make([]float64, 20)
	for i := range perm20 {
		perm20[i] = float64(7*i%20 + 1)
	}
	server := &serving.RunDelta{} // every value unknown
	tests := []struct {
		name        string
		latencies   []float64
		images      int
		wall        float64
		concurrency int
		discarded   int
		server      *serving.RunDelta
		want        Throughput
	}{
		{
			name: "twenty one at a time", latencies: perm20, images: 1, wall: 210, concurrency: 1,
			want: Throughput{Concurrency: 1, WallSeconds: 210, Judgments: 20, Images: 20,
				JudgmentsPerSecond: f64(20.0 / 210), ImagesPerSecond: f64(20.0 / 210),
				LatencySeconds: LatencySummary{N: 20, P50: f64(10), P95: f64(19), P99: f64(20)}},
		},
		{
			name: "two images each", latencies: []float64{4, 1, 3, 2}, images: 2, wall: 2, concurrency: 4, discarded: 3,
			want: Throughput{Concurrency: 4, WallSeconds: 2, Judgments: 4, Images: 8,
				JudgmentsPerSecond: f64(2), ImagesPerSecond: f64(4),
				LatencySeconds: LatencySummary{N: 4, P50: f64(2), P95: f64(4), P99: f64(4)}, Discarded: 3},
		},
		{
			name: "three of one second", latencies: []float64{1, 1, 1}, images: 1, wall: 3, concurrency: 1,
			want: Throughput{Concurrency: 1, WallSeconds: 3, Judgments: 3, Images: 3,
				JudgmentsPerSecond: f64(1), ImagesPerSecond: f64(1),
				LatencySeconds: LatencySummary{N: 3, P50: f64(1), P95: f64(1), P99: f64(1)}},
		},
		{
			name: "empty", images: 1, wall: 0, concurrency: 1,
			want: Throughput{Concurrency: 1, LatencySeconds: LatencySummary{}},
		},
		{
			name: "rates use the unrounded wall", latencies: []float64{1}, images: 1, wall: 0.0004, concurrency: 1, server: server,
			want: Throughput{Concurrency: 1, WallSeconds: 0, Judgments: 1, Images: 1,
				JudgmentsPerSecond: f64(1 / 0.0004), ImagesPerSecond: f64(1 / 0.0004),
				LatencySeconds: LatencySummary{N: 1, P50: f64(1), P95: f64(1), P99: f64(1)}, Server: server},
		},
		{
			name: "negative wall", latencies: []float64{1}, images: 1, wall: -1, concurrency: 1,
			want: Throughput{Concurrency: 1, WallSeconds: -1, Judgments: 1, Images: 1,
				LatencySeconds: LatencySummary{N: 1, P50: f64(1), P95: f64(1), P99: f64(1)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewThroughput(tt.latencies, tt.images, tt.wall, tt.concurrency, tt.discarded, tt.server)
			if !reflect.DeepEqual(got, tt.want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(tt.want)
				t.Errorf("NewThroughput =\n%s\nwant\n%s", g, w)
			}
		})
	}
}

func TestThroughputJSONNulls(t *testing.T) {
	got, err := json.Marshal(NewThroughput(nil, 1, 0, 1, 0, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"concurrency":1,"wall_seconds":0,"judgments":0,"images":0,"judgments_per_second":null,` +
		`"images_per_second":null,"latency_seconds":{"n":0,"p50":null,"p95":null,"p99":null},"discarded":0,"server":null}`
	if string(got) != want {
		t.Errorf("empty throughput JSON =\n%s\nwant\n%s", got, want)
	}
}
