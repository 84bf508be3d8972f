package checkmatch

import "testing"

// The assertions of the Examples of names that are not exported: the
// routing number of the first default case fails the ABA check, the words
// line of an amount, and a contact-sheet caption.
func TestExampleValuesOfUnexportedNames(t *testing.T) {
	cases, err := Cases(0, RowCount)
	if err != nil {
		t.Fatal(err)
	}
	if r := cases[0].Face.RoutingNumber; r != "069490182" || abaValid(r) {
		t.Errorf("first case routing number %s, ABA valid %v; want 069490182, false", r, abaValid(r))
	}
	words, err := AmountInWords(118815)
	if err != nil || words != "One thousand one hundred eighty-eight and 15/100" {
		t.Errorf("AmountInWords(118815) = %q, %v", words, err)
	}
	if _, err := AmountInWords(0); err == nil || err.Error() != "cents must be from 1 to 99999999999, got 0" {
		t.Errorf("AmountInWords(0) error = %v", err)
	}
	sheet, err := Cases(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	const want = "r00:low_legibility  expect cannot_tell/consistent  payee=True amounts=True  blur=3.98\n" +
		"register: check number 1001; date 2025-08-15; payee Marigold Street Deli;\n" +
		"amount $4,380.87"
	if got := caption(sheet[6]); got != want {
		t.Errorf("Caption =\n%s\nwant\n%s", got, want)
	}
}
