package evalrun

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzRead: Read never panics; what it accepts has a valid header, every
// entry is one JSON value without a newline, and the complete lines'
// size is within the input (so Resume's truncation is safe).
func FuzzRead(f *testing.F) {
	h, _ := json.Marshal(Header{Schema: JournalSchema, Version: JournalVersion, Kind: "check_match"})
	f.Add(append(h, '\n'))
	f.Add(append(append(h, '\n'), `{"index":0}`+"\n"+`{"index":1,"p":0.`...))
	f.Add([]byte(`{"schema":"typevet-go.journal","version":1,"pins":[{"name":"a","value":1}]}` + "\n[]\n"))
	f.Add([]byte("\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ReadJournal(bytes.NewReader(data))
		if err != nil {
			return
		}
		if c.Header.Schema != JournalSchema || (c.Header.Version != 1 && c.Header.Version != JournalVersion) {
			t.Fatalf("accepted header %+v", c.Header)
		}
		if c.Size > int64(len(data)) || c.Size <= 0 {
			t.Fatalf("size %d of %d bytes", c.Size, len(data))
		}
		for _, e := range c.Entries {
			if !json.Valid(e) || bytes.Contains(e, []byte("\n")) {
				t.Fatalf("entry %q", e)
			}
		}
		if c.Torn != nil && int64(c.Torn.Bytes)+c.Size != int64(len(data)) {
			t.Fatalf("torn %d + size %d != %d", c.Torn.Bytes, c.Size, len(data))
		}
	})
}
