package cli

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSummaryLine(t *testing.T) {
	one, zero := 1.0, 0.0
	tests := []struct {
		name   string
		value  any
		want   string
		reason string
	}{
		{name: "whole float", value: &one, want: "k 1.0\n", reason: "the receipt writes 1.0; encoding/json would write 1"},
		{name: "zero float", value: zero, want: "k 0.0\n"},
		{name: "small float", value: 1e-7, want: "k 1e-07\n", reason: "Python's exponent has two digits"},
		{name: "int", value: 140, want: "k 140\n"},
		{name: "nil", value: (*float64)(nil), want: "k null\n"},
		{name: "map", value: map[string]float64{"b": 0.5, "a": 1}, want: `k {"a": 1.0, "b": 0.5}` + "\n", reason: "Python's one-line separators"},
		{name: "struct", value: struct {
			X float64 `json:"x"`
			S string  `json:"s"`
		}{2, "é"}, want: `k {"x": 2.0, "s": "\u00e9"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			require.NoError(t, SummaryLine(&b, "k", tt.value))
			assert.Equal(t, tt.want, b.String(), tt.reason)
		})
	}
}

func TestSummaryLineNonFinite(t *testing.T) {
	var b strings.Builder
	err := SummaryLine(&b, "accuracy", math.NaN())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "summary accuracy")
	assert.Empty(t, b.String())
}
