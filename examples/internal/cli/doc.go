// Package cli is the command-line plumbing every command under examples/
// shares: the usage error and exit status rule, the Ctrl-C context, the
// repository root for a receipt's baseline commit, the session secrets
// known before a session opens, and the live-test skip/fail rule. It is
// internal: a user's own tool calls the library packages directly.
package cli
