package evalrun

import (
	"encoding/json"
	"fmt"
)

// AttemptsSchema is the schema key of an [Attempts] document.
const AttemptsSchema = "typevet-go.attempts"

// AttemptsSuffix is appended to a receipt path to name its [Attempts]
// document.
const AttemptsSuffix = ".attempts.json"

// Attempts is the sidecar document a finished run with retries writes
// beside its receipt (the receipt path plus [AttemptsSuffix]): typevet's
// receipt has no key for it, and the journal, the only other record of
// the attempts, is removed once the receipt is written. It says how many
// judgment calls the run made for its cases, under which retry policy,
// and which cases took more than one.
type Attempts struct {
	// Schema is [AttemptsSchema]; Version is 1.
	Schema  string `json:"schema"`
	Version int    `json:"version"`
	// Retry is the run's retry policy.
	Retry AttemptsPolicy `json:"retry"`
	// Cases counts the finished cases; Calls the judgment calls they
	// took, retries included (equal to Cases when none was retried).
	Cases int `json:"cases"`
	Calls int `json:"calls"`
	// Retried lists the cases that took more than one call, in journal
	// order.
	Retried []CaseAttempts `json:"retried"`
}

// AttemptsPolicy is a [RetryPolicy] as an [Attempts] document records it,
// in seconds (0: the default delay; a budget of 0: none).
type AttemptsPolicy struct {
	Retries          int     `json:"retries"`
	BaseDelaySeconds float64 `json:"base_delay_seconds"`
	MaxDelaySeconds  float64 `json:"max_delay_seconds"`
	BudgetSeconds    float64 `json:"budget_seconds"`
}

// CaseAttempts is one retried case: its id and the calls it took.
type CaseAttempts struct {
	CaseID   string `json:"case_id"`
	Attempts int    `json:"attempts"`
}

// AttemptsOf returns the [Attempts] document of the run journaled at
// journalPath (a run whose every line holds its case_id and attempts, as
// check-match and option-order journals do) under policy p. A case journaled twice counts
// once, by its first line, as a resume keeps it.
func AttemptsOf(journalPath string, p RetryPolicy) (Attempts, error) {
	c, err := ReadJournalFile(journalPath)
	if err != nil {
		return Attempts{}, err
	}
	a := Attempts{Schema: AttemptsSchema, Version: 1, Retried: []CaseAttempts{}, Retry: AttemptsPolicy{
		Retries: p.Retries, BaseDelaySeconds: p.BaseDelay.Seconds(), MaxDelaySeconds: p.MaxDelay.Seconds(), BudgetSeconds: p.Budget.Seconds()}}
	seen := map[string]bool{}
	for n, e := range c.Entries {
		var l CaseAttempts
		if err := json.Unmarshal(e, &l); err != nil || l.CaseID == "" || l.Attempts < 1 {
			return Attempts{}, fmt.Errorf("journal %s line %d: no case_id and attempts", journalPath, n+2)
		}
		if seen[l.CaseID] {
			continue
		}
		seen[l.CaseID] = true
		a.Cases++
		a.Calls += l.Attempts
		if l.Attempts > 1 {
			a.Retried = append(a.Retried, l)
		}
	}
	return a, nil
}
