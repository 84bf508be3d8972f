package orderings

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/typevet/typevet-go/checkmatch/internal/receiptdoc"
)

// TestReceiptDocListsEveryKey: docs/receipt.md names, as `key`, every JSON
// key an option-order receipt can hold (checkmatch's test of the same name
// covers a check-match receipt with its throughput block).
func TestReceiptDocListsEveryKey(t *testing.T) {
	receiptdoc.Check(t, filepath.Join("..", "..", "docs", "receipt.md"), 80, reflect.TypeFor[Receipt]())
}
