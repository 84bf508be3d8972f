package reader_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/internal/checkform"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/reader"
)

func TestZeroOptionsUseDefaults(t *testing.T) {
	if got := (reader.Options{}).Pin().Constants; got != reader.DefaultConstants {
		t.Errorf("zero Options pin constants %+v, want DefaultConstants", got)
	}
	if err := reader.DefaultConstants.Validate(); err != nil {
		t.Errorf("DefaultConstants.Validate() = %v", err)
	}
}

func TestPin(t *testing.T) {
	c := reader.DefaultConstants
	c.PayeeSlope = 99
	p := reader.Options{Constants: c}.Pin()
	if p.Name != "reader" || p.Version != reader.Version || p.FontSHA256 != checkform.FontSHA256 || p.Constants.PayeeSlope != 99 {
		t.Errorf("Pin() = %+v", p)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`{"name":"reader","version":`, `"font":"Go Regular"`, `"constants":{"ink_low":0.2,`, `"payee_slope":99,`, `"weight_floor":`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("pin JSON %s lacks %s", b, key)
		}
	}
}

// TestInvalidConstants: a port with unusable constants fails every call
// with a plain error (a configuration bug, not a backend failure).
func TestInvalidConstants(t *testing.T) {
	tests := []struct {
		name string
		edit func(c *reader.Constants)
		msg  string
	}{
		{"ink range", func(c *reader.Constants) { c.InkHigh = c.InkLow }, "ink_high"},
		{"trust range", func(c *reader.Constants) { c.TrustLow = 1 }, "trust_high"},
		{"spread", func(c *reader.Constants) { c.LegibilitySpread = 0 }, "legibility_spread"},
		{"floor", func(c *reader.Constants) { c.WeightFloor = -1 }, "weight_floor"},
		{"nan", func(c *reader.Constants) { c.PayeeSlope = math.NaN() }, "finite"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := reader.DefaultConstants
			tt.edit(&c)
			_, err := reader.New(reader.Options{Constants: c}).Judge(context.Background(), judgment.Request{})
			if err == nil || judgment.IsGenerationError(err) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want a plain error about %s", err, tt.msg)
			}
		})
	}
}
