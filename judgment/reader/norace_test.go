//go:build !race

package reader_test

// raceEnabled is true under the race detector, where the tests render
// fewer checks.
const raceEnabled = false
