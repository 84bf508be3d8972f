//go:build race

package view_test

// raceEnabled is true under the race detector, where a render is about 20
// times slower: the tests then judge and show three register rows, not
// twenty, and the browser test (which tests the pages, not Go's memory
// model) is skipped.
const raceEnabled = true
