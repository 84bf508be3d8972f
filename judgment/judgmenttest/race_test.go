//go:build race

package judgmenttest

const raceEnabled = true
