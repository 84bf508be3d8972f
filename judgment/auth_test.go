package judgment_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

func TestAuthNeverPrintsSecrets(t *testing.T) {
	a := judgment.Auth{APIKey: "sk-live-SECRET", Headers: []judgment.Header{{Name: "X-Team", Value: "team-TOKEN"}}}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		out := fmt.Sprintf(verb, a)
		if strings.Contains(out, "SECRET") || strings.Contains(out, "TOKEN") || strings.Contains(out, "534543524554") {
			t.Errorf("%s printed a secret: %s", verb, out)
		}
	}
	if s := a.String() + a.GoString(); strings.Contains(s, "SECRET") || !strings.Contains(s, "X-Team") {
		t.Errorf("String/GoString = %s", s)
	}
}
