package cli

import (
	"bytes"
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFlags(t *testing.T) {
	newSet := func() *flag.FlagSet {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.String("rows", "", "overrides ROWS")
		fs.String("model", "", "overrides two")
		fs.String("levels", "1", "not a variable")
		return fs
	}
	flagEnv := map[string][]string{"rows": {"ROWS"}, "model": {"M1", "M2"}}
	var out bytes.Buffer
	set, help, err := ParseFlags(newSet(), []string{"-rows", "3", "-model", "m", "-levels", "2"}, flagEnv, &out, "usage: x", "About.")
	require.NoError(t, err)
	assert.False(t, help)
	assert.Equal(t, map[string]string{"ROWS": "3", "M1": "m", "M2": "m"}, set)
	assert.Empty(t, out.String())

	_, help, err = ParseFlags(newSet(), []string{"-h"}, flagEnv, &out, "usage: x", "About.")
	require.NoError(t, err)
	assert.True(t, help)
	assert.Contains(t, out.String(), "usage: x\n\nAbout.\n\n")
	assert.Contains(t, out.String(), "-rows")

	for args, want := range map[string][]string{
		"flag provided but not defined: -nope": {"-nope"},
		"unexpected arguments: a b":            {"a", "b"},
	} {
		_, _, err := ParseFlags(newSet(), want, flagEnv, &out, "u", "a")
		var ue *UsageError
		require.ErrorAs(t, err, &ue)
		assert.EqualError(t, err, args)
	}
}
