package view

import "github.com/typevet/typevet-go/checkmatch"

// SetRender makes Build re-render each case with f (checkmatch.Render
// unless a test sets it) and returns what restores the one before.
func SetRender(f func(checkmatch.Case) ([]byte, error)) (restore func()) {
	old := renderCase
	renderCase = f
	return func() { renderCase = old }
}
