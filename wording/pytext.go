package wording

import "github.com/typevet/typevet-go/internal/pytext"

// pyRepr is [pytext.Repr] under the name mapping.go still uses.
func pyRepr(s string) string { return pytext.Repr(s) }
