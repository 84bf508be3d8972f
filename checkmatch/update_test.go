package checkmatch

import "flag"

// update rewrites the golden files under testdata instead of comparing
// against them: go test ./checkmatch -run TestRenderGolden -update.
// It is the one -update flag of the package's tests; reuse it.
var update = flag.Bool("update", false, "rewrite golden files under testdata")
