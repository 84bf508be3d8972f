package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/examples/internal/cli"
)

// TestLive is typevet's opt-in live run through the same code
// path as the command: it skips unless TYPEVET_CHECK_MATCH_RECEIPT is set,
// and fails instead of skipping when TYPEVET_REQUIRE_LIVE is 1, true, yes
// or on. Every other setting comes from the environment as for the command:
//
//	TYPEVET_GIT_STATUS_PORCELAIN="$(git status --porcelain)" \
//	  TYPEVET_CHECK_MATCH_RECEIPT=/tmp/check_match.json \
//	  go test ./examples/checkmatch -run TestLive -v
func TestLive(t *testing.T) {
	path := cli.LiveReceipt(t, envReceipt, os.LookupEnv)
	err := run(os.Stdout, os.Stderr, nil, os.LookupEnv)
	require.NoError(t, err, "the live run must judge every case")
	rec := readBack(t, path)
	require.Nil(t, rec.Stopped)
	require.Len(t, rec.Cases, 7*rec.Pins.RegisterRows)
}
