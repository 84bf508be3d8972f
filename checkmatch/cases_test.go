package checkmatch

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// fixtureCase is one line of testdata/seed{0,1}.jsonl.
type fixtureCase struct {
	AccountNumber string  `json:"account_number"`
	BlurRadius    float64 `json:"blur_radius"`
	CaseID        string  `json:"case_id"`
	CheckNumber   int     `json:"check_number"`
	Date          string  `json:"date"`
	NumericCents  int64   `json:"numeric_cents"`
	Payee         string  `json:"payee"`
	RoutingNumber string  `json:"routing_number"`
	RowText       string  `json:"row_text"`
	SignatureSeed uint64  `json:"signature_seed"`
	Signed        bool    `json:"signed"`
	WrittenCents  int64   `json:"written_cents"`
}

func readFixture(t testing.TB, name string) []fixtureCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fixtureCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var c fixtureCase
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("%s line %d: %v", name, len(out)+1, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCasesMatchFixtures(t *testing.T) {
	for _, tt := range []struct {
		name string
		seed uint64
	}{{"seed0.jsonl", 0}, {"seed1.jsonl", 1}} {
		t.Run(tt.name, func(t *testing.T) {
			want := readFixture(t, tt.name)
			if len(want) != 140 {
				t.Fatalf("fixture has %d cases, want 140", len(want))
			}
			got, err := Cases(tt.seed, RowCount)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("Cases(%d, 20) gave %d cases, want %d", tt.seed, len(got), len(want))
			}
			for i, c := range got {
				f := c.Face
				gotRec := fixtureCase{
					AccountNumber: f.AccountNumber, BlurRadius: f.BlurRadius, CaseID: c.ID(),
					CheckNumber: f.CheckNumber, Date: f.Date.String(), NumericCents: f.NumericCents,
					Payee: f.Payee, RoutingNumber: f.RoutingNumber, RowText: c.Row.Text(),
					SignatureSeed: f.SignatureSeed, Signed: f.Signed, WrittenCents: f.WrittenCents,
				}
				if gotRec != want[i] {
					t.Errorf("case %d:\n got %+v\nwant %+v", i, gotRec, want[i])
				}
			}
		})
	}
}

func TestSeed0Vectors(t *testing.T) {
	cases, err := Cases(0, RowCount)
	if err != nil {
		t.Fatal(err)
	}
	r00 := cases[0]
	if got, want := r00.Row.Text(), "check number 1001; date 2025-04-21; payee Lanternfield Electric; amount $1,188.15"; got != want {
		t.Errorf("r00 text = %q, want %q", got, want)
	}
	if r00.Face.RoutingNumber != "069490182" || r00.Face.SignatureSeed != 2045550346 {
		t.Errorf("r00 routing/signature = %s/%d, want 069490182/2045550346", r00.Face.RoutingNumber, r00.Face.SignatureSeed)
	}
	wrong := cases[4]
	if wrong.Variant != variantWrongDate || wrong.Face.Date != (Date{2025, time.April, 11}) {
		t.Errorf("r00:wrong_date face date = %v (%s), want 2025-04-11", wrong.Face.Date, wrong.Variant)
	}
	if low := cases[6]; low.Face.BlurRadius != 4.04 {
		t.Errorf("r00:low_legibility blur = %v, want 4.04", low.Face.BlurRadius)
	}
	// r10:wrong_date leaves 2025 (2026-01-20, +40 days).
	if got := cases[10*7+4].Face.Date.String(); got != "2026-01-20" {
		t.Errorf("r10:wrong_date = %s, want 2026-01-20", got)
	}
}

func TestPayeeSortKeys(t *testing.T) {
	rows, err := RegisterRows(0, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Lanternfield Electric", "Seabright Window Washers", "Juniper Lane Florist"}
	for i, r := range rows {
		if r.Payee != want[i] {
			t.Errorf("row %d payee = %q, want %q", i, r.Payee, want[i])
		}
	}
}

func TestExpectedLabels(t *testing.T) {
	tests := []struct {
		v    Variant
		want Expected
	}{
		{VariantClean, Expected{[]string{"consistent"}, true, true, true}},
		{variantPayeeChanged, Expected{[]string{"payee_mismatch"}, false, true, true}},
		{variantWrittenAmountChanged, Expected{[]string{"amount_mismatch"}, true, false, true}},
		{variantBothAmountsChanged, Expected{[]string{"amount_mismatch"}, true, false, true}},
		{variantWrongDate, Expected{[]string{"date_mismatch"}, true, true, true}},
		{variantUnsigned, Expected{[]string{"unsigned"}, true, true, true}},
		{VariantLowLegibility, Expected{[]string{"cannot_tell", "consistent"}, true, true, false}},
	}
	var order []Variant
	for _, tt := range tests {
		order = append(order, tt.v)
		t.Run(tt.v.String(), func(t *testing.T) {
			got := ExpectedLabels(tt.v)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ExpectedLabels(%s) = %+v, want %+v", tt.v, got, tt.want)
			}
			if !slices.IsSorted(got.Verdicts) {
				t.Errorf("verdicts %v not sorted", got.Verdicts)
			}
			for _, v := range got.Verdicts {
				if !slices.Contains(VerdictLabels[:], v) {
					t.Errorf("verdict %q is not a verdict label", v)
				}
			}
		})
	}
	if !slices.Equal(order, Variants()) {
		t.Errorf("Variants() = %v, want the table order %v", Variants(), order)
	}
	if got := ExpectedLabels("nope"); got.Verdicts != nil {
		t.Errorf("unknown variant got %+v", got)
	}
	// Fresh slices: a caller's edit must not leak into the next call.
	e := ExpectedLabels(VariantClean)
	e.Verdicts[0] = "edited"
	if ExpectedLabels(VariantClean).Verdicts[0] != "consistent" {
		t.Error("ExpectedLabels shares its Verdicts slice")
	}
}

func TestParseVariant(t *testing.T) {
	for _, v := range Variants() {
		got, err := ParseVariant(v.String())
		if err != nil || got != v {
			t.Errorf("ParseVariant(%q) = %q, %v", v, got, err)
		}
	}
	if _, err := ParseVariant("Clean"); err == nil || !strings.Contains(err.Error(), `"Clean"`) {
		t.Errorf("ParseVariant(Clean) error = %v", err)
	}
}

func TestCasesInvariants(t *testing.T) {
	for _, seed := range []uint64{0, 1, 2, 7, 123456789, 1<<64 - 1} {
		cases, err := Cases(seed, RowCount)
		if err != nil {
			t.Fatal(err)
		}
		if len(cases) != 140 {
			t.Fatalf("seed %d: %d cases", seed, len(cases))
		}
		ids := map[string]bool{}
		radii := 0
		for i, c := range cases {
			id := c.ID()
			if ids[id] {
				t.Errorf("seed %d: duplicate id %s", seed, id)
			}
			ids[id] = true
			if c.Row.Index != i/7 || c.Variant != Variants()[i%7] {
				t.Errorf("seed %d: case %d is %s, out of order", seed, i, id)
			}
			if !reflect.DeepEqual(c.Expected, ExpectedLabels(c.Variant)) {
				t.Errorf("%s: expected labels %+v", id, c.Expected)
			}
			f, r := c.Face, c.Row
			if (f.Payee != r.Payee) != (c.Variant == variantPayeeChanged) {
				t.Errorf("seed %d %s: payee %q vs row %q", seed, id, f.Payee, r.Payee)
			}
			if !slices.Contains(payees[:], f.Payee) || !slices.Contains(payees[:], r.Payee) {
				t.Errorf("%s: payee not in list", id)
			}
			if (f.NumericCents != r.AmountCents) != (c.Variant == variantBothAmountsChanged) {
				t.Errorf("seed %d %s: numeric %d vs row %d", seed, id, f.NumericCents, r.AmountCents)
			}
			amountVariant := c.Variant == variantWrittenAmountChanged || c.Variant == variantBothAmountsChanged
			if (f.WrittenCents != r.AmountCents) != amountVariant {
				t.Errorf("seed %d %s: written %d vs row %d", seed, id, f.WrittenCents, r.AmountCents)
			}
			if c.Variant == variantBothAmountsChanged && f.WrittenCents != f.NumericCents {
				t.Errorf("%s: written %d != numeric %d", id, f.WrittenCents, f.NumericCents)
			}
			if (f.Date != r.Date) != (c.Variant == variantWrongDate) {
				t.Errorf("%s: date %v vs row %v", id, f.Date, r.Date)
			}
			if r.Date.Year != 2025 || r.CheckNumber != 1001+r.Index {
				t.Errorf("%s: row %+v", id, r)
			}
			if (f.BlurRadius > 0) != (c.Variant == VariantLowLegibility) {
				t.Errorf("%s: blur %v", id, f.BlurRadius)
			}
			if f.BlurRadius > 0 {
				radii++
				if f.BlurRadius < blurMin || f.BlurRadius > blurMax {
					t.Errorf("%s: blur %v out of range", id, f.BlurRadius)
				}
			}
			if f.Signed != (c.Variant != variantUnsigned) {
				t.Errorf("%s: signed %v", id, f.Signed)
			}
			if f.NumericCents <= 0 || f.WrittenCents <= 0 {
				t.Errorf("%s: non-positive amount", id)
			}
			if len(f.RoutingNumber) != 9 || abaValid(f.RoutingNumber) {
				t.Errorf("%s: routing %q passes ABA or has the wrong length", id, f.RoutingNumber)
			}
			if f.AccountNumber != strings.Repeat("0", 12) || f.CheckNumber != r.CheckNumber {
				t.Errorf("%s: account %q check %d", id, f.AccountNumber, f.CheckNumber)
			}
			row0 := cases[i/7*7].Face
			if f.RoutingNumber != row0.RoutingNumber || f.SignatureSeed != row0.SignatureSeed || f.SignatureSeed >= 1<<31 {
				t.Errorf("%s: routing/signature differ within the row", id)
			}
		}
		if radii != 20 {
			t.Errorf("seed %d: %d blur radii, want 20", seed, radii)
		}
	}
}

func TestCasesDeterministicAndSeeded(t *testing.T) {
	a, _ := Cases(0, RowCount)
	b, _ := Cases(0, RowCount)
	if !reflect.DeepEqual(a, b) {
		t.Error("Cases(0) differs between calls")
	}
	r0, _ := RegisterRows(0, RowCount)
	r1, _ := RegisterRows(1, RowCount)
	if reflect.DeepEqual(r0, r1) {
		t.Error("register rows of seeds 0 and 1 are equal")
	}
	// A shorter slice is a prefix of the full one.
	short, err := Cases(0, 3)
	if err != nil || !reflect.DeepEqual(short, a[:21]) {
		t.Errorf("Cases(0, 3) is not the first 21 cases (err %v)", err)
	}
}

func TestCasesRowsBounds(t *testing.T) {
	tests := []struct {
		name string
		rows int
		want string
	}{
		{"zero", 0, "rows must be 1 to 20: 0"},
		{"above", 21, "rows must be 1 to 20: 21"},
		{"negative", -1, "rows must be 1 to 20: -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Cases(0, tt.rows); err == nil || err.Error() != tt.want {
				t.Errorf("Cases(0, %d) error = %v, want %q", tt.rows, err, tt.want)
			}
		})
	}
	for _, rows := range []int{1, 20} {
		if c, err := Cases(0, rows); err != nil || len(c) != rows*7 {
			t.Errorf("Cases(0, %d) = %d cases, %v", rows, len(c), err)
		}
	}
}

func TestABAValid(t *testing.T) {
	tests := []struct {
		in     string
		want   bool
		reason string
	}{
		{"011000015", true, ""},
		{"021000021", true, ""},
		{"111000025", true, ""},
		{"011000016", false, "check digit off by one"},
		{"021000020", false, ""},
		{"12345678", false, "8 characters"},
		{"12345678a", false, "letter"},
		{"0110000150", false, "10 characters"},
		{"01100001５", false, "fullwidth digit is refused (ASCII only)"},
		{"", false, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := abaValid(tt.in); got != tt.want {
				t.Errorf("ABAValid(%q) = %v, want %v (%s)", tt.in, got, tt.want, tt.reason)
			}
		})
	}
}

func TestRegisterText(t *testing.T) {
	tests := []struct {
		name  string
		cents int64
		want  string
	}{
		{"below a dollar", 5, "0.05"},
		{"three digits", 38945, "389.45"},
		{"thousands", 118815, "1,188.15"},
		{"millions", 123456789, "1,234,567.89"},
		{"exact thousand", 100000, "1,000.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := RegisterRow{CheckNumber: 1001, Date: Date{2025, time.March, 7}, Payee: "P", AmountCents: tt.cents}
			want := "check number 1001; date 2025-03-07; payee P; amount $" + tt.want
			if got := r.Text(); got != want {
				t.Errorf("Text() = %q, want %q", got, want)
			}
		})
	}
}

func TestDate(t *testing.T) {
	d := Date{2025, time.December, 22}
	if got := d.AddDays(41).String(); got != "2026-02-01" {
		t.Errorf("AddDays(41) = %s", got)
	}
	if got := (Date{2025, time.January, 16}).AddDays(-19).String(); got != "2024-12-28" {
		t.Errorf("AddDays(-19) = %s", got)
	}
	if got := (Date{2025, time.January, 1}).AddDays(364).String(); got != "2025-12-31" {
		t.Errorf("AddDays(364) = %s", got)
	}
}

func BenchmarkCases(b *testing.B) {
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := Cases(0, RowCount); err != nil {
			b.Fatal(err)
		}
	}
}
