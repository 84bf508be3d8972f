package stats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/typevet/typevet-go/receipt"
)

// Marshal writes a document ([Intervals] or [Comparison]) as receipts are
// written: indent-2 JSON in Python's layout ([receipt.Marshal]), a final
// newline, NaN and infinities refused. The same document gives the same
// bytes.
func Marshal(doc any) ([]byte, error) { return receipt.Marshal(doc) }

// SchemaError is the error of a reader given a document of another schema
// or a newer version.
type SchemaError struct {
	// Want is the schema the reader reads.
	Want string
	// Got and Version are the document's schema and version.
	Got     string
	Version int
	// MaxVersion is the newest version the reader knows.
	MaxVersion int
}

// Error says what was found and what is read.
func (e *SchemaError) Error() string {
	if e.Got != e.Want {
		return fmt.Sprintf("document schema is %q, want %q", e.Got, e.Want)
	}
	return fmt.Sprintf("document %s version %d is newer than this reader's %d; update typevet-go", e.Got, e.Version, e.MaxVersion)
}

// ReadIntervals reads one [Intervals] document from r. Its schema must be
// [IntervalsSchema] and its version from 1 to [IntervalsVersion]
// (*[SchemaError]); unknown keys are ignored, and the value must be one
// JSON object with nothing after it.
func ReadIntervals(r io.Reader) (Intervals, error) {
	var doc Intervals
	err := readDocument(r, IntervalsSchema, IntervalsVersion, &doc)
	return doc, err
}

// ReadComparison reads one [Comparison] document from r, checked as
// [ReadIntervals] checks its own ([ComparisonSchema],
// [ComparisonVersion]).
func ReadComparison(r io.Reader) (Comparison, error) {
	var doc Comparison
	err := readDocument(r, ComparisonSchema, ComparisonVersion, &doc)
	return doc, err
}

// readDocument checks the schema and version first (so a document of
// another kind is named as such, not as a type error), then decodes.
func readDocument(r io.Reader, schema string, version int, into any) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("read %s: %w", schema, err)
	}
	var head struct {
		Schema  *string `json:"schema"`
		Version *int    `json:"version"`
	}
	if err := decodeOne(raw, &head); err != nil {
		return fmt.Errorf("read %s: %w", schema, err)
	}
	if head.Schema == nil || head.Version == nil {
		return fmt.Errorf("read %s: the document has no schema and version keys", schema)
	}
	if *head.Schema != schema || *head.Version < 1 || *head.Version > version {
		return &SchemaError{Want: schema, Got: *head.Schema, Version: *head.Version, MaxVersion: version}
	}
	if err := decodeOne(raw, into); err != nil {
		return fmt.Errorf("read %s: %w", schema, err)
	}
	return nil
}

func decodeOne(raw []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(into); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the document object")
	}
	return nil
}
