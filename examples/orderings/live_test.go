package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLive is typevet's opt-in live option-order study (spec §8.10) through
// the command's code path: it skips unless TYPEVET_CHECK_ORDERINGS_RECEIPT
// is set, and fails instead of skipping when TYPEVET_REQUIRE_LIVE is 1,
// true, yes or on. Every other setting comes from the environment, as for
// the command, including the single-order receipt:
//
//	TYPEVET_GIT_STATUS_PORCELAIN="$(git status --porcelain)" \
//	  TYPEVET_CHECK_ORDERINGS_SINGLE=receipts/check_match_seed1.json \
//	  TYPEVET_CHECK_ORDERINGS_RECEIPT=/tmp/orderings.json \
//	  go test ./examples/orderings -run TestLive -v
func TestLive(t *testing.T) {
	path, _ := os.LookupEnv(envReceipt)
	if strings.TrimSpace(path) == "" {
		if requireLive(os.LookupEnv) {
			t.Fatalf("%s not set and TYPEVET_REQUIRE_LIVE is on", envReceipt)
		}
		t.Skip(envReceipt + " not set")
	}
	err := run(os.Stdout, os.Stderr, nil, os.LookupEnv)
	require.NoError(t, err, "the live study must score every case")
	rec := readBack(t, strings.TrimSpace(path))
	require.Nil(t, rec.Stopped)
	require.Len(t, rec.Cases, 7*rec.Pins.RegisterRows)
	require.Equal(t, 6*len(rec.Cases), rec.Requests)
}

// requireLive reports whether TYPEVET_REQUIRE_LIVE (stripped, lower-cased)
// is 1, true, yes or on.
func requireLive(lookup func(string) (string, bool)) bool {
	v, _ := lookup("TYPEVET_REQUIRE_LIVE")
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

func TestRequireLive(t *testing.T) {
	for v, want := range map[string]bool{"1": true, " TRUE ": true, "yes": true, "On": true, "0": false, "": false, "no": false} {
		if got := requireLive(envOf(map[string]string{"TYPEVET_REQUIRE_LIVE": v})); got != want {
			t.Errorf("requireLive(%q) = %v, want %v", v, got, want)
		}
	}
}
