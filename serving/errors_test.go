package serving

import "testing"

func TestPyRepr(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"0", "'0'"}, {"(none)", "'(none)'"}, {"it's", `"it's"`}, {`a'b"c`, `'a\'b"c'`}, {`back\slash`, `'back\\slash'`},
		{"tab\tnl\n", `'tab\tnl\n'`}, {"\x00\x7f", `'\x00\x7f'`}, {"é", "'é'"}, {"\u2028", `'\u2028'`}, {"\U000e0001", `'\U000e0001'`},
	} {
		if got := pyRepr(tt.in); got != tt.want {
			t.Errorf("pyRepr(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	e := &EngineError{Gauge: "g", Engines: []string{"(none)", "0"}}
	if got, want := e.Error(), "gauge g carries engine labels ['(none)', '0']; a sum across engines is not one reading"; got != want {
		t.Errorf("got %q", got)
	}
}
