//go:build race

package checkmatch

// raceEnabled is true when the tests run under the race detector, where a
// render is about 20 times slower; slice tests then render fewer cases.
const raceEnabled = true
