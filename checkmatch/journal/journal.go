// Package journal is the run journal of package evalrun under the names
// it had before evalrun held it: a JSON Lines file beside a receipt whose
// first line is the run's identity and whose every further line is one
// finished item, chained to the header and synced before the run counts
// it done. Every name here is the evalrun name it stands for; code that uses
// evalrun elsewhere can use it directly.
package journal

import (
	"io"

	"github.com/typevet/typevet-go/evalrun"
)

// Schema is the schema key of every journal header. It is evalrun.JournalSchema.
const Schema = evalrun.JournalSchema

// Version is the journal format version written. It is evalrun.JournalVersion.
const Version = evalrun.JournalVersion

// Suffix is appended to a receipt path to name its journal. It is evalrun.JournalSuffix.
const Suffix = evalrun.JournalSuffix

// MaxLine bounds one journal line on read. It is evalrun.MaxJournalLine.
const MaxLine = evalrun.MaxJournalLine

type (
	// Pin is one named value of a run's identity. It is evalrun.Pin.
	Pin = evalrun.Pin
	// Header is a journal's first line. It is evalrun.Header.
	Header = evalrun.Header
	// MismatchError names the first pin in which two headers differ. It is evalrun.MismatchError.
	MismatchError = evalrun.MismatchError
	// Advisory says which header differences are warnings. It is evalrun.Advisory.
	Advisory = evalrun.Advisory
	// Torn describes a last line left incomplete by a killed process. It is evalrun.Torn.
	Torn = evalrun.Torn
	// Contents is a journal as Read found it. It is evalrun.JournalContents.
	Contents = evalrun.JournalContents
	// FormatError reports a journal that cannot be read. It is evalrun.JournalError.
	FormatError = evalrun.JournalError
	// Writer appends entries to a journal. It is evalrun.JournalWriter.
	Writer = evalrun.JournalWriter
)

// ErrTornHeader is returned for a journal whose only line is torn. It is evalrun.ErrTornHeader.
var ErrTornHeader = evalrun.ErrTornHeader

// Path returns the journal path of the receipt at receiptPath. It is evalrun.JournalPath.
func Path(receiptPath string) string { return evalrun.JournalPath(receiptPath) }

// NewPin returns the pin name with v marshalled as compact JSON. It is evalrun.NewPin.
func NewPin(name string, v any) (Pin, error) { return evalrun.NewPin(name, v) }

// ShowValues shows two values in full and where long ones first differ. It is evalrun.ShowValues.
func ShowValues(nameA, a, nameB, b string) string { return evalrun.ShowValues(nameA, a, nameB, b) }

// Read reads a journal from r. It is evalrun.ReadJournal.
func Read(r io.Reader) (Contents, error) { return evalrun.ReadJournal(r) }

// ReadFile reads the journal at path. It is evalrun.ReadJournalFile.
func ReadFile(path string) (Contents, error) { return evalrun.ReadJournalFile(path) }

// Create creates a new journal at path with header h. It is evalrun.CreateJournal.
func Create(path string, h Header) (*Writer, error) { return evalrun.CreateJournal(path, h) }

// Resume opens the journal at path, read as c, for appending. It is evalrun.ResumeJournal.
func Resume(path string, c Contents) (*Writer, error) { return evalrun.ResumeJournal(path, c) }

// Remove deletes the journal at path. It is evalrun.RemoveJournal.
func Remove(path string) error { return evalrun.RemoveJournal(path) }
