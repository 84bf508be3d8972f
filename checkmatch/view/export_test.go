package view

import "github.com/typevet/typevet-go/checkmatch"

// SetRender makes Build re-render each case with f (checkmatch.Render
// unless a test sets it) and returns what restores the one before.
func SetRender(f func(checkmatch.Case) ([]byte, error)) (restore func()) {
	old := renderCase
	renderCase = f
	return func() { renderCase = old }
}

// SetHalfScale makes Build take each case's half-scale view from f (the
// render drawn again and halved unless a test sets it) and returns what
// restores the one before.
func SetHalfScale(f func(checkmatch.Case) ([]byte, error)) (restore func()) {
	old := halfScaleCase
	halfScaleCase = f
	return func() { halfScaleCase = old }
}

// HalfScaleOf is the half-scale view Build makes of case c by default.
var HalfScaleOf = halfScaleOf
