package judgment

import "context"

// Port judges one [Request]. Every run talks to a backend through a Port:
// a [Judge] over an HTTP [Scorer], or the offline fake.
//
// Every implementation must:
//
//   - be safe for concurrent use by many goroutines;
//   - honour ctx: once ctx is done it returns promptly with an error for
//     which [IsGenerationError] is true ([TransportError] wrapping
//     ctx.Err() when it stopped on its own);
//   - return answers in question order, one per question, or an error and
//     no answers;
//   - report a backend failure (transport, HTTP status, malformed or
//     contract-breaking response, degenerate distribution, refused request
//     shape) with an error for which IsGenerationError is true. A runner
//     stops the run on such an error and keeps the outcomes it has. Any
//     other error is a bug and crashes the run.
type Port interface {
	Judge(ctx context.Context, req Request) (Response, error)
}

// PortFunc adapts a function to a [Port].
type PortFunc func(ctx context.Context, req Request) (Response, error)

// Judge calls f(ctx, req).
func (f PortFunc) Judge(ctx context.Context, req Request) (Response, error) { return f(ctx, req) }
