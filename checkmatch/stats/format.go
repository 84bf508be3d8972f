package stats

import (
	"fmt"
	"strconv"
)

// FormatHeadline formats a headline share with its interval, as a table
// cell or a summary line shows it:
//
//	FormatHeadline("accuracy", p) == "accuracy 0.9286 [0.8735, 0.9607] (130/140)"
//
// Four decimals; a share over no cases is "accuracy n/a (0/0)". name may
// be "" for the number alone ("0.9286 [0.8735, 0.9607] (130/140)").
func FormatHeadline(name string, p Proportion) string {
	prefix := ""
	if name != "" {
		prefix = name + " "
	}
	if p.Estimate == nil || p.Low == nil || p.High == nil {
		return fmt.Sprintf("%sn/a (%d/%d)", prefix, p.K, p.N)
	}
	return fmt.Sprintf("%s%s [%s, %s] (%d/%d)", prefix, fixed4(*p.Estimate), fixed4(*p.Low), fixed4(*p.High), p.K, p.N)
}

// FormatRates formats the three headline shares of r on one line, naming
// the interval and level:
//
//	95% Wilson: accuracy 0.9286 [0.8735, 0.9607] (130/140); false_clear_rate 0.0000 [0.0000, 0.0370] (0/100); cannot_tell_rate 0.0000 [0.0000, 0.0267] (0/140)
func FormatRates(r Rates, level float64) string {
	if level == 0 {
		level = DefaultLevel
	}
	return fmt.Sprintf("%s%% Wilson: %s; %s; %s", strconv.FormatFloat(level*100, 'g', -1, 64),
		FormatHeadline("accuracy", r.Accuracy),
		FormatHeadline("false_clear_rate", r.FalseClearRate),
		FormatHeadline("cannot_tell_rate", r.CannotTellRate))
}

// FormatEstimate formats a bootstrap estimate: "0.9950 [0.9861, 1.0000]",
// "n/a" when undefined, the value alone when no resample defines it.
func FormatEstimate(e Estimate) string {
	if e.Estimate == nil {
		return "n/a"
	}
	if e.Low == nil || e.High == nil {
		return fixed4(*e.Estimate)
	}
	return fmt.Sprintf("%s [%s, %s]", fixed4(*e.Estimate), fixed4(*e.Low), fixed4(*e.High))
}

// FormatDifference formats a paired difference: "+0.0214 [-0.0071, 0.0500]",
// "n/a" when undefined.
func FormatDifference(d Difference) string {
	if d.Difference == nil {
		return "n/a"
	}
	s := strconv.FormatFloat(*d.Difference, 'f', 4, 64)
	if *d.Difference >= 0 {
		s = "+" + s
	}
	if d.Low == nil || d.High == nil {
		return s
	}
	return fmt.Sprintf("%s [%s, %s]", s, fixed4(*d.Low), fixed4(*d.High))
}

func fixed4(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
