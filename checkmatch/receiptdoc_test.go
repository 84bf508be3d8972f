package checkmatch

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/typevet/typevet-go/checkmatch/internal/receiptdoc"
	"github.com/typevet/typevet-go/receipt"
)

// TestReceiptDocListsEveryKey: docs/receipt.md names, as `key`, every JSON
// key a check-match receipt (with its throughput block) can hold;
// checkmatch/orderings has the same test for an option-order receipt.
func TestReceiptDocListsEveryKey(t *testing.T) {
	receiptdoc.Check(t, filepath.Join("..", "docs", "receipt.md"), 120,
		reflect.TypeFor[Receipt](), reflect.TypeFor[receipt.Throughput]())
}
