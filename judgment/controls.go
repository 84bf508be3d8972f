package judgment

import (
	"context"
)

// sharedControlToken binds control k through one tokenize call shared by
// every judgment that needs k while it is in flight, and caches a
// single-token result (see [Judge]). The call runs with the context of
// the judgment that started it; when that context ended while the call
// was failing, a judgment whose own context is still live tries again
// (leading a call of its own) rather than take that error as its own.
func (j *Judge) sharedControlToken(ctx context.Context, k controlKey) (int, bool, error) {
	type bound struct {
		id       int
		single   bool
		canceled bool // the call failed after its context ended
	}
	for {
		v, err, _ := j.tokens.flight.Do(k.model+"\x00"+k.control, func() (any, error) {
			if id, ok := j.tokens.get(k); ok {
				return bound{id: id, single: true}, nil
			}
			ids, err := j.scorer.Tokenize(ctx, k.model, k.control)
			if err != nil {
				return bound{canceled: ctx.Err() != nil}, err
			}
			if len(ids) != 1 {
				return bound{}, nil
			}
			j.tokens.put(k, ids[0])
			return bound{id: ids[0], single: true}, nil
		})
		b := v.(bound)
		if err != nil {
			if b.canceled && ctx.Err() == nil {
				continue
			}
			return 0, false, err
		}
		return b.id, b.single, nil
	}
}
