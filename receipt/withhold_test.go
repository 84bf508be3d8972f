package receipt

import (
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

// TestWithhold: a message that would fail the key-free check is replaced
// whole; any other is kept as it is.
func TestWithhold(t *testing.T) {
	secrets := judgment.Secrets{Keys: []string{"sk-123"}}
	for _, tt := range []struct {
		msg  string
		want string
	}{
		{"HTTP 503: busy", "HTTP 503: busy"},
		{"", ""},
		{"proxy said: key sk-123 refused", WithheldMessage},
		{`echoed "Authorization: x"`, WithheldMessage},
		{"Bearer abc", WithheldMessage},
		{`a quote " and a backslash \ stay`, `a quote " and a backslash \ stay`},
	} {
		if got := Withhold(tt.msg, secrets); got != tt.want {
			t.Errorf("Withhold(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
	if got := Withhold("sk-123", judgment.Secrets{}); got != "sk-123" {
		t.Errorf("without secrets a key-like text stays: %q", got)
	}
}
