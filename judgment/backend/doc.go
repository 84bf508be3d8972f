// Package backend is the composition root of the judgment backends: it
// builds the settings of the selected backend from the environment (one
// function, [SettingsFromEnv], with typevet's variable names) and opens a
// [Session] whose Port has every secret masked.
//
// Examples pass [os.LookupEnv]:
//
//	s, err := backend.SettingsFromEnv(os.LookupEnv)
//	...
//	sess, err := backend.Open(ctx, s, "")
//	...
//	defer sess.Close()
//	resp, err := sess.Port.Judge(ctx, req)
package backend
