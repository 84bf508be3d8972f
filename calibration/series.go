package calibration

// Series is one binary probability column: row ids, the probability of the
// positive label and the label, in row order.
type Series struct {
	// Name names the series, e.g. "payee_matches".
	Name string
	// IDs are the row ids the split hashes.
	IDs []string
	// P is the probability of the positive label of each row.
	P []float64
	// Truth is the label of each row.
	Truth []bool
}

func (s Series) halves() (cp []float64, cy []bool, ep []float64, ey []bool) {
	cal, ev := Split(s.IDs)
	for _, i := range cal {
		cp, cy = append(cp, s.P[i]), append(cy, s.Truth[i])
	}
	for _, i := range ev {
		ep, ey = append(ep, s.P[i]), append(ey, s.Truth[i])
	}
	return cp, cy, ep, ey
}
