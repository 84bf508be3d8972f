package receipt

import (
	"fmt"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

// checkQuestions are the four check-match questions, written here by hand
// from checkmatch.Questions' wording so the digests below test the encoding, not a
// copy of the builder.
func checkQuestions() []judgment.NamedQuestion {
	return []judgment.NamedQuestion{
		{Name: "payee_matches", Question: judgment.Noul{
			Instructions: "Is the payee on the check the payee in the register row?",
			Criteria: judgment.NoulCriteria{
				True:  "The check names the register payee.",
				False: "The check names a different payee.",
			},
		}},
		{Name: "amounts_match", Question: judgment.Noul{
			Instructions: "Do the number amount and the words amount on the check both equal the register amount?",
			Criteria: judgment.NoulCriteria{
				True:  "Both amounts on the check equal the register amount.",
				False: "One or both amounts on the check differ from the register.",
			},
		}},
		{Name: "verdict", Question: judgment.Choice{
			Instructions: "Compare the check with the register row. Choose one:",
			Criteria: []judgment.Criterion{
				{Label: "consistent", Description: "The check agrees with the register row and is signed."},
				{Label: "payee_mismatch", Description: "The payee differs from the register row."},
				{Label: "amount_mismatch", Description: "An amount differs from the register row."},
				{Label: "date_mismatch", Description: "The date differs from the register row."},
				{Label: "unsigned", Description: "There are no handwritten signature strokes on the signature line. Printed marks such as VOID do not count."},
				{Label: "cannot_tell", Description: "The image is not clear enough to decide."},
			},
		}},
		{Name: "legibility", Question: judgment.Score{
			Instructions: "Rate how clearly you can read the check text:",
			Criteria: []string{
				"No text can be read.",
				"Only a few words can be read.",
				"Some fields can be read.",
				"Most fields can be read.",
				"All fields can be read clearly.",
			},
		}},
	}
}

func TestPromptDigestCheckMatch(t *testing.T) {
	// The check-match prompt digests, equal to the committed receipts' prompt_digests.
	want := Digests{
		{Name: "payee_matches", Value: "d8a42dca122de8824ef6bbfe792f30e9888b58da5ca01f5a5e37c9e6b8387c0b"},
		{Name: "amounts_match", Value: "fe4a0b38de231349b211a79356bf9b6c003f00a391d517a762fc5d2fdae84b34"},
		{Name: "verdict", Value: "b7ef7c4a0c25b12827252fdacba3011e1bb064231d047cac8b1626b29fcb522a"},
		{Name: "legibility", Value: "109aca8b397e0cfeabf8e461c84b8a4af614d6ef9bba30ceeade3da9bcea1ab6"},
	}
	got := PromptDigests(checkQuestions())
	if len(got) != len(want) {
		t.Fatalf("PromptDigests gave %d digests", len(got))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("digest %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestPromptDigest(t *testing.T) {
	levels := make([]string, 11)
	for i := range levels {
		levels[i] = fmt.Sprintf("level %d", i)
	}
	tests := []struct {
		name     string
		reason   string
		qname    string
		question judgment.Question
		want     string // computed with Python 3.12 json.dumps(payload, sort_keys=True)
	}{
		{
			name: "small Noul", qname: "small",
			question: judgment.Noul{Instructions: "Is the sky blue?", Criteria: judgment.NoulCriteria{True: "It is blue.", False: "It is not blue."}},
			want:     "e1b0435bffdd600b38d03894eb9a1738bb43e5e692f4c325d4717eac5af9c19b",
		},
		{
			name: "Noul without criteria", reason: "decision: label_order [] and criteria {}", qname: "n",
			question: judgment.Noul{Instructions: "Is it?"},
			want:     "40a26fe778d7568b976443e7f86806b26b8cfda19c20d85753fca63e4c51668f",
		},
		{
			name: "eleven levels", reason: `sort_keys puts "10" before "2"; label_order keeps level order`, qname: "s11",
			question: judgment.Score{Instructions: "Rate:", Criteria: levels},
			want:     "7d860b0a703d198c9f8ca0b42e521212cb1e2ef4326451cdb8fc670478399c0b",
		},
		{
			name: "empty text is null and non-ASCII escaped", reason: "decision: \"\" is Python None", qname: "c",
			question: judgment.Choice{Criteria: []judgment.Criterion{{Label: "oui", Description: "Réponse affirmative"}, {Label: "non"}}},
			want:     "12ffaa8e82e8755b1e034dc8405df01ef086741d6c82a90d6e0013341efeecc6",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PromptDigest(tt.qname, tt.question); got != tt.want {
				t.Errorf("PromptDigest = %s, want %s", got, tt.want)
			}
		})
	}
}
