package pool_test

import (
	"context"
	"fmt"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/pool"
)

func ExampleJudgeInOrder() {
	items := []string{"a", "b", "c", "d", "e"}
	call := func(_ context.Context, i int, item string) (string, error) {
		if item == "d" {
			return "", &judgment.TransportError{Msg: "connection refused"}
		}
		return item + item, nil
	}
	res, err := pool.JudgeInOrder(context.Background(), items, 2, call, pool.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Values)
	fmt.Println(res.Failure.Index, judgment.ErrorClass(res.Failure.Err), res.Failure.Err)
	// Output:
	// [aa bb cc]
	// 3 TransportError connection refused
}
