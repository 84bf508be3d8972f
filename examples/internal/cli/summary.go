package cli

import (
	"fmt"
	"io"

	"github.com/typevet/typevet-go/internal/pyjson"
)

// SummaryLine writes "key value\n" to w, value as one line of JSON with
// its numbers written the way the receipt writes them: Python's float
// text (1.0, 0.0, 1e-07), not encoding/json's 1, 0, 1e-7. So a summary
// value can be compared with the receipt's text by eye. A NaN or infinite
// float is an error, as it is in a receipt.
func SummaryLine(w io.Writer, key string, value any) error {
	b, err := pyjson.Marshal(value, pyjson.Options{EnsureASCII: true, RejectNonFinite: true})
	if err != nil {
		return fmt.Errorf("summary %s: %w", key, err)
	}
	_, err = fmt.Fprintf(w, "%s %s\n", key, b)
	return err
}
