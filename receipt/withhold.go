package receipt

import "github.com/typevet/typevet-go/judgment"

// WithheldMessage is what a receipt records in place of an error message
// (a stopped record's "message") that holds a configured secret or an auth
// header ([Withhold]).
const WithheldMessage = "message withheld: the error text held a key or an auth header"

// Withhold returns msg, or [WithheldMessage] when [CheckKeyFree] would
// refuse msg as written into a receipt: a run stopped by a server that
// echoes the auth header in its error then keeps every earlier outcome
// instead of being refused as a whole (as typevet refuses it).
func Withhold(msg string, secrets judgment.Secrets) string {
	b, err := Marshal(msg)
	if err != nil || CheckKeyFree(b, secrets) != nil {
		return WithheldMessage
	}
	return msg
}
