//go:build !race

package judgmenttest

// raceEnabled is true under the race detector, where the full-size
// answer's shape is not checked again (it is single-goroutine code).
const raceEnabled = false
