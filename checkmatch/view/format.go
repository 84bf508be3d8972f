package view

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
)

// funcs are the template functions.
var funcs = template.FuncMap{
	"pct": pct,
	"num": func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) },
}

// short shortens a long hex digest to its first 12 digits and an ellipsis.
func short(s string) string {
	if len(s) > 16 {
		return s[:12] + "…"
	}
	if s == "" {
		return "none"
	}
	return s
}

// pct writes a rate in [0, 1] as a percentage with one decimal.
func pct(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

func pctOrNone(x *float64) string {
	if x == nil {
		return "none"
	}
	return pct(*x)
}

func numOrNone(x *float64, prec int) string {
	if x == nil {
		return "none"
	}
	return strconv.FormatFloat(*x, 'f', prec, 64)
}

// seconds writes a duration in seconds: milliseconds below one second.
func seconds(s float64) string {
	if s < 1 {
		return strconv.FormatFloat(1000*s, 'f', 1, 64) + " ms"
	}
	return strconv.FormatFloat(s, 'f', 2, 64) + " s"
}

func secondsOrNone(s *float64) string {
	if s == nil {
		return "none"
	}
	return seconds(*s)
}

// duration writes a wall time: seconds, with minutes and hours past a
// minute ("18 min 19.5 s").
func duration(s float64) string {
	if s < 60 {
		return seconds(s)
	}
	m := math.Floor(s / 60)
	rest := s - 60*m
	if m < 60 {
		return fmt.Sprintf("%.0f min %.1f s (%.3f s)", m, rest, s)
	}
	h := math.Floor(m / 60)
	return fmt.Sprintf("%.0f h %.0f min (%.3f s)", h, m-60*h, s)
}

// round2 rounds SVG coordinates to two decimals, keeping the pages small
// and their bytes stable.
func round2(x float64) float64 { return math.Round(x*100) / 100 }
