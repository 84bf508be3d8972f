package view

import (
	"fmt"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/internal/checkform"
	"github.com/typevet/typevet-go/judgment"
)

// registerView is the register row a case was judged against.
type registerView struct {
	CheckNumber, Date, Payee, Amount string
}

// newRegisterView returns the view of row.
func newRegisterView(row checkmatch.RegisterRow) *registerView {
	return &registerView{
		CheckNumber: fmt.Sprint(row.CheckNumber),
		Date:        row.Date.String(),
		Payee:       row.Payee,
		Amount:      "$" + checkform.Dollars(row.AmountCents),
	}
}

// questionView is one of the four questions as the request builder words
// it: its id, its instructions and its options in prompt order.
type questionView struct {
	Name, Instructions string
	Options            []string // e.g. "false: The check names a different payee."
}

// questionViews returns the four questions of a check-match judgment
// ([checkmatch.Questions]) in question order, each option as
// "label: description" in the order the prompt lists them (a Noul's false
// before true, levels from 0).
func questionViews() []questionView {
	var out []questionView
	option := func(label, desc string) string {
		if desc == "" {
			return label
		}
		return label + ": " + desc
	}
	for _, nq := range checkmatch.Questions() {
		qv := questionView{Name: nq.Name}
		switch q := nq.Question.(type) {
		case judgment.Noul:
			qv.Instructions = q.Instructions
			qv.Options = []string{option("false", q.Criteria.False), option("true", q.Criteria.True)}
		case judgment.Choice:
			qv.Instructions = q.Instructions
			for _, c := range q.Criteria {
				qv.Options = append(qv.Options, option(c.Label, c.Description))
			}
		case judgment.Score:
			qv.Instructions = q.Instructions
			for i, d := range q.Criteria {
				qv.Options = append(qv.Options, option(fmt.Sprint(i), d))
			}
		}
		out = append(out, qv)
	}
	return out
}
