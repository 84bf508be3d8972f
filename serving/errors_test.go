package serving

import "testing"

func TestEngineErrorMessage(t *testing.T) {
	tests := []struct {
		name    string
		engines []string
		want    string
		reason  string
	}{
		{"two engines", []string{"(none)", "0"}, "gauge g carries engine labels ['(none)', '0']; a sum across engines is not one reading", ""},
		{"quote in id", []string{"it's", "1"}, `gauge g carries engine labels ["it's", '1']; a sum across engines is not one reading`, "ids are quoted as Python's repr quotes them"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &EngineError{Gauge: "g", Engines: tt.engines}
			if got := e.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}
