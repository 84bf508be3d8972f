//go:build race

package main

// raceEnabled is true under the race detector, where reading all 140
// checks is slow; tests then run a one-row slice.
const raceEnabled = true
