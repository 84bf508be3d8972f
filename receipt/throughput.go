package receipt

import (
	"math"
	"slices"

	"github.com/typevet/typevet-go/internal/serverblock"
)

// Quantiles are the client-latency quantiles a throughput block reports.
var Quantiles = [3]float64{0.5, 0.95, 0.99}

// Throughput is a run's throughput block: how many judgments the run kept, how fast, and how long each
// took on the client. Rates and percentiles count only kept judgments.
type Throughput struct {
	// Concurrency is the most judgments the run kept in flight.
	Concurrency int `json:"concurrency"`
	// WallSeconds is the run wall time rounded to 3 decimals (the same value
	// as the receipt's top-level wall_seconds).
	WallSeconds float64 `json:"wall_seconds"`
	// Judgments is the number of kept judgments (the number of latencies).
	Judgments int `json:"judgments"`
	// Images is Judgments × images per judgment (check 1, face and
	// signature 2).
	Images int `json:"images"`
	// JudgmentsPerSecond is Judgments over the unrounded wall time; nil
	// (null) when the wall time is not positive.
	JudgmentsPerSecond *float64 `json:"judgments_per_second"`
	// ImagesPerSecond is Images over the unrounded wall time; nil (null)
	// when the wall time is not positive.
	ImagesPerSecond *float64 `json:"images_per_second"`
	// LatencySeconds summarizes the per-judgment client latencies.
	LatencySeconds LatencySummary `json:"latency_seconds"`
	// Discarded counts judgments that reached the server after the first
	// failure and were dropped by design; the same
	// number as stopped.discarded.
	Discarded int `json:"discarded"`
	// Server is the vLLM /metrics delta block, a
	// [github.com/typevet/typevet-go/serving.RunDelta] (built by
	// serving.RunServerDelta or serving.MergeRunDelta), or nil (written as
	// null) when no reading was requested, as on llama.cpp. Its type lives
	// below both packages so that receipt does not import serving.
	Server *serverblock.RunDelta `json:"server"`
}

// LatencySummary is the latency_seconds block: nearest-rank percentiles of
// the unrounded per-judgment latencies in seconds.
type LatencySummary struct {
	// N is the number of latencies.
	N int `json:"n"`
	// P50 is the nearest-rank median; nil (null) when N is 0.
	P50 *float64 `json:"p50"`
	// P95 is the nearest-rank 95th percentile; nil (null) when N is 0.
	P95 *float64 `json:"p95"`
	// P99 is the nearest-rank 99th percentile; nil (null) when N is 0.
	P99 *float64 `json:"p99"`
}

// NewThroughput builds the throughput block of a run from its kept
// per-judgment latencies (seconds, unrounded, any order), the images each
// judgment carried, the unrounded wall time in seconds, the concurrency,
// the discarded count and the server delta block (nil when /metrics was not
// read).
func NewThroughput(latencies []float64, imagesPerJudgment int, wall float64, concurrency, discarded int, server *serverblock.RunDelta) Throughput {
	judgments := len(latencies)
	images := judgments * imagesPerJudgment
	t := Throughput{
		Concurrency:    concurrency,
		WallSeconds:    Round(wall, 3),
		Judgments:      judgments,
		Images:         images,
		LatencySeconds: NewLatencySummary(latencies),
		Discarded:      discarded,
		Server:         server,
	}
	if wall > 0 {
		jps := float64(judgments) / wall
		ips := float64(images) / wall
		t.JudgmentsPerSecond, t.ImagesPerSecond = &jps, &ips
	}
	return t
}

// NewLatencySummary returns the nearest-rank summary of latencies (any
// order; the slice is not modified).
func NewLatencySummary(latencies []float64) LatencySummary {
	sorted := slices.Clone(latencies)
	slices.Sort(sorted)
	s := LatencySummary{N: len(sorted)}
	for i, p := range []**float64{&s.P50, &s.P95, &s.P99} {
		if v, ok := nearestRankSorted(sorted, Quantiles[i]); ok {
			*p = &v
		}
	}
	return s
}

// NearestRank returns the q-quantile of values by the nearest-rank method
// typevet uses for client latencies: sort ascending and take the element
// at 1-based rank ceil(q·n) (0-based index max(ceil(q·n)−1, 0)), with no
// interpolation. values need not be sorted and is not modified.
//
// ok is false when values is empty or q is NaN. Decision: q above 1 is
// treated as 1 (Python would fail with an IndexError); q at or below 0
// gives the smallest value, as the formula does.
func NearestRank(values []float64, q float64) (v float64, ok bool) {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return nearestRankSorted(sorted, q)
}

func nearestRankSorted(sorted []float64, q float64) (float64, bool) {
	n := len(sorted)
	if n == 0 || math.IsNaN(q) {
		return 0, false
	}
	rank := math.Ceil(min(max(q, 0), 1) * float64(n))
	return sorted[max(int(rank)-1, 0)], true
}
