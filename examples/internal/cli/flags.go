package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// ParseFlags parses args into fset, whose own output it discards, for a
// command that takes no positional argument. -h prints usageLine, about
// and the flag defaults to stdout and reports help true. A bad flag or a
// positional argument is a [*UsageError]. set holds, by variable, the
// value of each flag given that overrides a variable (flagEnv maps a flag
// name to its variables; a flag may override several).
func ParseFlags(fset *flag.FlagSet, args []string, flagEnv map[string][]string, stdout io.Writer, usageLine, about string) (set map[string]string, help bool, err error) {
	fset.SetOutput(io.Discard)
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "%s\n\n%s\n\n", usageLine, about)
			fset.SetOutput(stdout)
			fset.PrintDefaults()
			return nil, true, nil
		}
		return nil, false, Usage(err)
	}
	if fset.NArg() > 0 {
		return nil, false, Usagef("unexpected arguments: %s", strings.Join(fset.Args(), " "))
	}
	set = map[string]string{}
	fset.Visit(func(f *flag.Flag) {
		for _, env := range flagEnv[f.Name] {
			set[env] = f.Value.String()
		}
	})
	return set, false, nil
}
