package receiptdoc_test

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/typevet/typevet-go/checkmatch/internal/receiptdoc"
	"github.com/typevet/typevet-go/receipt"
)

// The keys a receipt's runtime block can write, each with the Go field it
// comes from.
func ExampleKeys() {
	keys, err := receiptdoc.Keys(reflect.TypeFor[receipt.Runtime]())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		fmt.Println(k, keys[k])
	}
	// Output:
	// config_identity receipt.Runtime.ConfigIdentity
	// model receipt.Runtime.Model
	// projector_identity receipt.Runtime.ProjectorIdentity
	// served_template receipt.Runtime.ServedTemplate
	// server_build receipt.Runtime.ServerBuild
	// template_identity receipt.Runtime.TemplateIdentity
}
