package evalrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// receiptPinPaths maps a journal pin to where a receipt holds it: the
// receipt key path ("" for a pin a receipt does not hold as such).
func receiptPinPath(pin string) []string {
	switch {
	case pin == "backend" || pin == "model":
		return []string{pin}
	case pin == "served_template":
		return []string{"identity", "runtime", "served_template"}
	case pin == "pins.server":
		return []string{"pins", "server"}
	case pin == "baseline_commit" || pin == "working_tree":
		return []string{"identity", pin}
	case pin == "identity_digest" || pin == "shard":
		return nil // over the whole slice; a receipt's counts only its cases
	}
	for _, block := range []string{"prompt_digests", "code_path_digests"} {
		if name, ok := strings.CutPrefix(pin, block+"."); ok {
			return []string{"identity", block, name}
		}
	}
	return []string{"pins", pin}
}

// ReceiptOfJournal reports whether the receipt text b (a typevet receipt:
// a check-match run's, a study's, a sweep level's) is a receipt of the
// run journaled under h, and whether that receipt stopped: every pin of h that
// a receipt holds (backend, model, the slice, renderer, server, revision,
// prompt and code digests, concurrency, a study's own pins) must be the
// receipt's, under [WhereBuilt]. A -resume replaces a stopped
// receipt only when it is the journal's run: otherwise the error names
// the first pin that differs, with both values.
func ReceiptOfJournal(b []byte, h Header) (stopped bool, err error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		return false, fmt.Errorf("not a receipt: %w", err)
	}
	lookup := func(path []string) (json.RawMessage, bool) {
		v, ok := json.RawMessage(nil), true
		m := doc
		for k, key := range path {
			if v, ok = m[key]; !ok {
				return nil, false
			}
			if k < len(path)-1 {
				var next map[string]json.RawMessage
				if json.Unmarshal(v, &next) != nil {
					return nil, false
				}
				m = next
			}
		}
		return v, true
	}
	journalPins := Header{Kind: h.Kind}
	fromReceipt := Header{Kind: h.Kind}
	for _, p := range h.Pins {
		path := receiptPinPath(p.Name)
		if path == nil {
			continue
		}
		v, ok := lookup(path)
		if !ok {
			if p.Name != "model_revision" {
				return false, fmt.Errorf("the receipt has no %s", strings.Join(path, "."))
			}
			v = json.RawMessage(`""`) // left out when blank
		}
		journalPins.Pins = append(journalPins.Pins, p)
		fromReceipt.Pins = append(fromReceipt.Pins, Pin{Name: p.Name, Value: v})
	}
	if _, err := journalPins.Compare(fromReceipt, WhereBuilt()); err != nil {
		var me *MismatchError
		if errors.As(err, &me) {
			return false, fmt.Errorf("the receipt is of another run: %s differs (%s)", me.Pin, ShowValues("journal", me.Journal, "receipt", me.Now))
		}
		return false, err
	}
	s, ok := doc["stopped"]
	return ok && string(s) != "null", nil
}
