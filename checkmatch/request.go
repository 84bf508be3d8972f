package checkmatch

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/typevet/typevet-go/judgment"
)

// The four question ids of a check-match judgment, in question order.
// They name the answers in a [judgment.Response] and the prompt
// digests of a receipt's identity.
const (
	QuestionPayeeMatches = "payee_matches" // Noul: the check names the register payee
	QuestionAmountsMatch = "amounts_match" // Noul: both check amounts equal the register amount
	QuestionVerdict      = "verdict"       // Choice: one of [VerdictLabels]
	QuestionLegibility   = "legibility"    // Score: levels 0..4
)

// imageMIMEType is the MIME type of every check image a request carries.
const imageMIMEType = "image/png"

// imagesPerJudgment is the number of images one check-match judgment sends:
// one check. The receipt's throughput block counts images with it.
const imagesPerJudgment = 1

// stateTemplate is the state text around the register row.
const (
	statePrefix = "The image shows one paper check. A check register row lists what the check must show: "
	stateSuffix = ". Compare the check in the image with the register row. The check shows the amount two times: as a number in the box and in words on the line below the payee."
)

// verdictDescriptions are the verdict option descriptions, in the order of
// [VerdictLabels].
var verdictDescriptions = [6]string{
	"The check agrees with the register row and is signed.",
	"The payee differs from the register row.",
	"An amount differs from the register row.",
	"The date differs from the register row.",
	"There are no handwritten signature strokes on the signature line. Printed marks such as VOID do not count.",
	"The image is not clear enough to decide.",
}

// Questions returns the four questions of a check-match judgment, in order,
// with typevet's exact wording: payee_matches and amounts_match
// ([judgment.Noul]), verdict ([judgment.Choice] over [VerdictLabels]) and
// legibility ([judgment.Score], levels 0..4). Each call builds a new slice,
// so no request shares mutable question values with another.
//
// The wording is pinned by the prompt digests typevet's receipts record:
// receipt.PromptDigests(Questions()) equals them.
func Questions() []judgment.NamedQuestion {
	verdict := make([]judgment.Criterion, len(VerdictLabels))
	for i, label := range VerdictLabels {
		verdict[i] = judgment.Criterion{Label: label, Description: verdictDescriptions[i]}
	}
	return []judgment.NamedQuestion{
		{Name: QuestionPayeeMatches, Question: judgment.Noul{
			Instructions: "Is the payee on the check the payee in the register row?",
			Criteria: judgment.NoulCriteria{
				True:  "The check names the register payee.",
				False: "The check names a different payee.",
			},
		}},
		{Name: QuestionAmountsMatch, Question: judgment.Noul{
			Instructions: "Do the number amount and the words amount on the check both equal the register amount?",
			Criteria: judgment.NoulCriteria{
				True:  "Both amounts on the check equal the register amount.",
				False: "One or both amounts on the check differ from the register.",
			},
		}},
		{Name: QuestionVerdict, Question: judgment.Choice{
			Instructions: "Compare the check with the register row. Choose one:",
			Criteria:     verdict,
		}},
		{Name: QuestionLegibility, Question: judgment.Score{
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

// State returns the state text of a judgment about row: the
// register row's text inside typevet's fixed sentences. The state never
// holds the printed face, so a changed payee is visible only in the image.
func State(row RegisterRow) string {
	return statePrefix + row.Text() + stateSuffix
}

// Request is one case's judgment: the case, the state text,
// the four questions and the one check image.
type Request struct {
	// Case is the judged case.
	Case Case
	// State is [State] of the case's register row.
	State string
	// Questions are [Questions], built for this request alone.
	Questions []judgment.NamedQuestion
	// Media holds exactly one image: the check render.
	Media []judgment.Image

	// sum is the SHA-256 of the render, taken once by BuildRequest for
	// slice_sha256 and render_sha256; sumOf is the Data it was taken of
	// (a Request whose Media changed since is hashed again).
	sum   [sha256.Size]byte
	sumOf []byte
}

// BuildRequest returns the judgment of case c about its rendered check
// image (PNG bytes, for example from [Render]). The bytes are not copied:
// the caller must not change them while the request is in use.
func BuildRequest(c Case, png []byte) Request {
	return Request{
		Case:      c,
		State:     State(c.Row),
		Questions: Questions(),
		Media:     []judgment.Image{{Data: png, MIMEType: imageMIMEType}},
		sum:       sha256.Sum256(png),
		sumOf:     png,
	}
}

// imageSum returns the SHA-256 of the request's image: the one
// BuildRequest took when Media still holds the bytes it was taken of, else
// a fresh one.
func (r Request) imageSum() [sha256.Size]byte {
	d := r.Media[0].Data
	if len(d) == len(r.sumOf) && (len(d) == 0 || &d[0] == &r.sumOf[0]) && r.sumOf != nil {
		return r.sum
	}
	return sha256.Sum256(d)
}

// ImageDigest returns the render_sha256 a receipt's case record holds:
// the hex SHA-256 of the request's image, "" without one. A study pairs
// its cases with a check-match receipt's by it.
func (r Request) ImageDigest() string {
	if len(r.Media) == 0 {
		return ""
	}
	sum := r.imageSum()
	return hex.EncodeToString(sum[:])
}

// CaseID returns the id of the request's case, e.g. "r00:clean".
func (r Request) CaseID() string { return r.Case.ID() }

// Judgment returns the [judgment.Request] that asks model about r:
// typevet's judge_check_match(port, request, model) is
// port.Judge(ctx, r.Judgment(model)).
func (r Request) Judgment(model string) judgment.Request {
	return judgment.Request{
		State:     r.State,
		Questions: r.Questions,
		Model:     model,
		Media:     r.Media,
	}
}
