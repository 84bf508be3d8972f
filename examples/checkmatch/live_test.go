package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLive is typevet's opt-in live run (spec §6.7) through the same code
// path as the command: it skips unless TYPEVET_CHECK_MATCH_RECEIPT is set,
// and fails instead of skipping when TYPEVET_REQUIRE_LIVE is 1, true, yes
// or on. Every other setting comes from the environment as for the command:
//
//	TYPEVET_GIT_STATUS_PORCELAIN="$(git status --porcelain)" \
//	  TYPEVET_CHECK_MATCH_RECEIPT=/tmp/check_match.json \
//	  go test ./examples/checkmatch -run TestLive -v
func TestLive(t *testing.T) {
	path, _ := os.LookupEnv(envReceipt)
	if strings.TrimSpace(path) == "" {
		if requireLive(os.LookupEnv) {
			t.Fatalf("%s not set and TYPEVET_REQUIRE_LIVE is on", envReceipt)
		}
		t.Skip(envReceipt + " not set")
	}
	err := run(os.Stdout, os.Stderr, nil, os.LookupEnv)
	require.NoError(t, err, "the live run must judge every case")
	rec := readBack(t, strings.TrimSpace(path))
	require.Nil(t, rec.Stopped)
	require.Len(t, rec.Cases, 7*rec.Pins.RegisterRows)
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
	for v, want := range map[string]bool{"1": true, " TRUE ": true, "yes": true, "On": true, "0": false, "": false, "no": false, "y": false} {
		if got := requireLive(envOf(map[string]string{"TYPEVET_REQUIRE_LIVE": v})); got != want {
			t.Errorf("requireLive(%q) = %v, want %v", v, got, want)
		}
	}
	if requireLive(envOf(nil)) {
		t.Error("requireLive(unset) = true")
	}
}
