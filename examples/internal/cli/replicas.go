package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/serving"
)

// EnvMetricsURLs is the variable of the replica /metrics URLs: a
// comma-separated list (the -metrics-urls flag overrides it).
const EnvMetricsURLs = "TYPEVET_VLLM__METRICS_URLS"

// Replica is one replica behind the session's base URL, read directly.
type Replica struct {
	// Name is the URL without user information: the replica's name in
	// shard records.
	Name string
	// MetricsURL is the replica's /metrics URL; Base is it without the
	// trailing /metrics (for /v1/models and /version).
	MetricsURL, Base string
}

// ParseReplicas parses the comma-separated replica /metrics URLs in raw
// (from name, the flag or variable): each an http or https URL whose path
// ends in /metrics. Blank means none.
func ParseReplicas(raw, name string) ([]Replica, error) {
	var out []Replica
	for k, item := range strings.Split(raw, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		u, err := url.Parse(item)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !strings.HasSuffix(u.Path, "/metrics") {
			return nil, Usagef("%s item %d must be an http(s) URL ending in /metrics", name, k+1)
		}
		base := *u
		base.Path = strings.TrimSuffix(u.Path, "/metrics")
		base.RawQuery = ""
		named := *u
		named.User = nil
		out = append(out, Replica{Name: named.String(), MetricsURL: item, Base: base.String()})
	}
	return out, nil
}

// CheckReplicas reads every replica's server entry (GET /v1/models and
// /version through the session's client) and refuses, before the first
// scoring call, a replica whose entry is not want (the entry the front
// reported, which the receipt pins): one pins.server must be true of
// every replica. name is the flag or variable, for the message.
func CheckReplicas(ctx context.Context, sess *backend.Session, model string, want *serving.ServerEntry, replicas []Replica, name string) error {
	wb, err := json.Marshal(want)
	if err != nil {
		return err
	}
	for k, r := range replicas {
		e, err := serving.ReadServerEntry(ctx, sess.HTTPClient, r.Base, serving.Backend(sess.Backend.String()), model)
		if err != nil {
			return fmt.Errorf("%s item %d: read the replica's server entry: %w", name, k+1, sess.Secrets().Mask(err))
		}
		gb, err := json.Marshal(e)
		if err != nil {
			return err
		}
		if string(gb) != string(wb) {
			what := "its served models differ"
			if want != nil && e.BuildInfo != want.BuildInfo {
				what = "its server build differs"
			}
			return Usagef("%s item %d reports another server than the base URL (%s): every replica must serve the same model, revision and build", name, k+1, what)
		}
	}
	return nil
}

// ReplicaReadings reads every replica's /metrics: once before the run
// (read) and once after (done, with a context that outlives a cancelled
// run, bounded by [checkmatch.DefaultMetricsAfterTimeout]).
type ReplicaReadings struct {
	sess     *backend.Session
	replicas []Replica
	before   []serving.Reading
	start    time.Time
}

// ReadReplicasBefore takes the before readings.
func ReadReplicasBefore(ctx context.Context, sess *backend.Session, replicas []Replica) *ReplicaReadings {
	r := &ReplicaReadings{sess: sess, replicas: replicas, start: time.Now()}
	for _, rep := range replicas {
		text, ok := serving.Read(ctx, sess.HTTPClient, strings.TrimSuffix(rep.MetricsURL, "/metrics"))
		r.before = append(r.before, serving.Reading{Text: text, OK: ok})
	}
	return r
}

// After takes the after readings and returns one shard reading per
// replica.
func (r *ReplicaReadings) After(ctx context.Context) []checkmatch.ShardReading {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkmatch.DefaultMetricsAfterTimeout)
	defer cancel()
	out := make([]checkmatch.ShardReading, len(r.replicas))
	for k, rep := range r.replicas {
		text, ok := serving.Read(actx, r.sess.HTTPClient, strings.TrimSuffix(rep.MetricsURL, "/metrics"))
		out[k] = checkmatch.NewShardReading(rep.Name, r.start, time.Now(), r.before[k], serving.Reading{Text: text, OK: ok})
	}
	return out
}
