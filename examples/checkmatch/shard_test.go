package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestShardAndReplicaUsage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	for _, tt := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"-receipt", path, "-shard", "3/3"}, map[string]string{envBackend: "fake"}, "-shard must be i/n with 0 <= i < n"},
		{[]string{"-receipt", path, "-shard", "x"}, map[string]string{envBackend: "fake"}, "-shard must be i/n"},
		{[]string{"-receipt", path, "-metrics-urls", "http://a/metrics"}, map[string]string{envBackend: "fake"}, "-metrics-urls is for vLLM replicas"},
		{[]string{"-receipt", path}, map[string]string{envBackend: "fake", "TYPEVET_VLLM__METRICS_URLS": "http://a/"}, "TYPEVET_VLLM__METRICS_URLS item 1 must be an http(s) URL ending in /metrics"},
	} {
		r := runCmd(t, tt.args, tt.env)
		assert.Equal(t, 2, r.code, tt.args)
		assert.Contains(t, r.stderr, tt.want)
	}
}
