package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/examples/internal/cli"
)

// TestLive is typevet's opt-in live option-order study through
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
	path := cli.LiveReceipt(t, envReceipt, os.LookupEnv)
	err := run(os.Stdout, os.Stderr, nil, os.LookupEnv)
	require.NoError(t, err, "the live study must score every case")
	rec := readBack(t, path)
	require.Nil(t, rec.Stopped)
	require.Len(t, rec.Cases, 7*rec.Pins.RegisterRows)
	require.Equal(t, 6*len(rec.Cases), rec.Requests)
}
