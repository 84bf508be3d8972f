package main

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLlamaRequestIDHeader: TYPEVET_LLAMA__REQUEST_ID_HEADER (typevet
// #411) stamps a fresh UUID4 hex on every scoring request of a llama.cpp
// run, and a name the client controls is a usage error naming the
// variable.
func TestLlamaRequestIDHeader(t *testing.T) {
	srv, env := llamaEnv(t)
	env[envReceipt] = filepath.Join(t.TempDir(), "check.json")
	env[envRows] = "1"
	env["TYPEVET_LLAMA__REQUEST_ID_HEADER"] = "X-Request-Id"
	res := runCmd(t, nil, env)
	require.Equal(t, 0, res.code, "stderr: %s", res.stderr)
	uuid4 := regexp.MustCompile(`^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$`)
	seen := map[string]bool{}
	for _, r := range srv.Requests() {
		if r.Path != "/completion" {
			continue
		}
		id := r.Header.Get("X-Request-Id")
		assert.True(t, uuid4.MatchString(id) && !seen[id], "request %d (%s): id %q", r.Index, r.Path, id)
		seen[id] = true
	}
	assert.Equal(t, srv.Count("/completion"), len(seen), "one id per scoring request")
	assert.NotEmpty(t, seen)

	env[envReceipt] = filepath.Join(t.TempDir(), "check.json")
	env["TYPEVET_LLAMA__REQUEST_ID_HEADER"] = "Authorization"
	res = runCmd(t, nil, env)
	assert.Equal(t, 2, res.code)
	assert.Contains(t, res.stderr, "TYPEVET_LLAMA__REQUEST_ID_HEADER names a header the client controls")
}
