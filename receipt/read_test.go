package receipt

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// keyPaths lists every object key path of a JSON document in document
// order ("throughput.latency_seconds.p50"); array elements add "[]".
func keyPaths(t testing.TB, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	var paths []string
	var walk func(prefix string)
	walk = func(prefix string) {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					t.Fatal(err)
				}
				p := prefix + "." + k.(string)
				paths = append(paths, p)
				walk(p)
			}
			_, _ = dec.Token()
		case json.Delim('['):
			for dec.More() {
				walk(prefix + "[]")
			}
			_, _ = dec.Token()
		}
	}
	walk("")
	return paths
}

// decodeAny decodes JSON into plain Go values (numbers as float64, so 252
// and 252.0 compare equal).
func decodeAny(t testing.TB, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestReadBlocks decodes the identity and throughput blocks of typevet's
// receipts into the typed structs and encodes them again: the keys come
// back in the same order and every value is equal.
func TestReadBlocks(t *testing.T) {
	tests := []struct {
		file  string
		block string
		into  func() any
	}{
		{file: "check_match_vllm_receipt.json", block: "identity", into: func() any { return new(Identity) }},
		{file: "check_match_vllm_throughput_c4.head.json", block: "identity", into: func() any { return new(Identity) }},
		{file: "check_match_vllm_throughput_c4.head.json", block: "throughput", into: func() any { return new(Throughput) }},
		{file: "check_match_vllm_throughput_full_c16.head.json", block: "identity", into: func() any { return new(Identity) }},
		{file: "check_match_vllm_throughput_full_c16.head.json", block: "throughput", into: func() any { return new(Throughput) }},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".json")+"/"+tt.block, func(t *testing.T) {
			raw := fixtureBlock(t, tt.file, tt.block)
			v := tt.into()
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(v); err != nil {
				t.Fatal(err)
			}
			got, err := Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := keyPaths(t, got), keyPaths(t, raw); len(w) < 6 || !reflect.DeepEqual(g, w) {
				t.Errorf("key order differs:\n got %q\nwant %q", g, w)
			}
			if g, w := decodeAny(t, got), decodeAny(t, raw); !reflect.DeepEqual(g, w) {
				t.Errorf("values differ:\n got %s\nwant %s", got, raw)
			}
		})
	}
}

// TestReadThroughputValues pins the decoded numbers of one head receipt.
func TestReadThroughputValues(t *testing.T) {
	var th Throughput
	if err := json.Unmarshal(fixtureBlock(t, "check_match_vllm_throughput_c4.head.json", "throughput"), &th); err != nil {
		t.Fatal(err)
	}
	if th.Concurrency != 4 || th.WallSeconds != 22.509 || th.Judgments != 63 || th.Images != 63 || th.Discarded != 0 {
		t.Errorf("throughput = %+v", th)
	}
	if th.JudgmentsPerSecond == nil || *th.JudgmentsPerSecond != 2.798854759893043 {
		t.Errorf("judgments_per_second = %v", th.JudgmentsPerSecond)
	}
	if Round(63 / *th.JudgmentsPerSecond, 3) != th.WallSeconds {
		t.Errorf("judgments_per_second %v does not come from wall %v", *th.JudgmentsPerSecond, th.WallSeconds)
	}
	if th.LatencySeconds.N != 63 || th.LatencySeconds.P50 == nil || *th.LatencySeconds.P50 != 1.3526233648881316 {
		t.Errorf("latency_seconds = %+v", th.LatencySeconds)
	}
	if s := th.Server; s == nil || !s.E2E.Known || s.E2E.Count != 252 || !s.PrefixCacheHitRate.Known ||
		s.PrefixCacheHitRate.Number != 0.5506054110422339 {
		t.Errorf("server block = %+v", th.Server)
	}
}
