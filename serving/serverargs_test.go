package serving

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cacheConfigFixture is typevet's CACHE_CONFIG test fixture.
var cacheConfigFixture = Labels{
	{"block_size", "16"}, {"cache_dtype", "auto"}, {"calculate_kv_scales", "False"}, {"cpu_offload_gb", "0"},
	{"enable_prefix_caching", "True"}, {"engine", "0"}, {"gpu_memory_utilization", "0.9"},
	{"num_gpu_blocks", "4096"}, {"sliding_window", "None"},
}

const stated = "--max-num-seqs 64 --logprobs-mode processed_logprobs"

// Every typevet cache-config vector, the extra cases, and more.
func TestCacheConfig(t *testing.T) {
	tests := []struct {
		name, reason string
		text         string
		want         Labels // nil: no configuration
	}{
		{name: "labels as strings", text: readTestdata(t, "vllm_cache_config_metrics.txt"), want: cacheConfigFixture},
		{name: "missing gauge", text: `vllm:num_requests_running{engine="0",model_name="m"} 0.0`},
		{name: "empty text", text: ""},
		{name: "timestamp", reason: "#347", text: `vllm:cache_config_info{block_size="16",engine="0"} 1.0 1700000000`,
			want: Labels{{"block_size", "16"}, {"engine", "0"}}},
		{name: "first sample wins, escapes",
			text: "vllm:cache_config_info_extra{block_size=\"99\"} 1.0\n" +
				`vllm:cache_config_info{a="x,y}z",b="say \"hi\"",c="back\\slash"} 1.0` + "\n" +
				`vllm:cache_config_info{a="second"} 1.0` + "\n",
			want: Labels{{"a", "x,y}z"}, {"b", `say "hi"`}, {"c", `back\slash`}}},
		{name: "empty braces", reason: "extra case: {} is an empty map, not none", text: "vllm:cache_config_info{} 1.0", want: Labels{}},
		{name: "no braces", reason: "extra case", text: "vllm:cache_config_info 1.0"},
		{name: "word after the value", reason: "extra case", text: `vllm:cache_config_info{a="1"} 1.0 abc`},
		{name: "repeated name keeps the last value", reason: "extra case; \\t stays two characters",
			text: `vllm:cache_config_info{a="t\tx\\n",a="dup"} 1`, want: Labels{{"a", "dup"}}},
		{name: "escapes kept and unescaped", text: `vllm:cache_config_info{a="t\tx\\n",b="l1\nl2"} 1`,
			want: Labels{{"a", `t\tx\n`}, {"b", "l1\nl2"}}},
		{name: "repeated name keeps its first position", text: `vllm:cache_config_info{a="1",b="2",a="3"} 1`,
			want: Labels{{"a", "3"}, {"b", "2"}}},
		{name: "float timestamp", reason: "the line does not match; no later line holds the gauge",
			text: `vllm:cache_config_info{a="1"} 1.0 1.5`},
		{name: "float timestamp, later line wins", text: "vllm:cache_config_info{a=\"1\"} 1.0 1.5\nvllm:cache_config_info{a=\"2\"} 1.0\n",
			want: Labels{{"a", "2"}}},
		{name: "negative timestamp and trailing space", text: "vllm:cache_config_info{a=\"1\"} 1 -5  ", want: Labels{{"a", "1"}}},
		{name: "tab before the value", reason: "\\s includes tabs here", text: "vllm:cache_config_info{a=\"1\"}\t1", want: Labels{{"a", "1"}}},
		{name: "no space before the value", text: "vllm:cache_config_info{a=\"1\"}1"},
		{name: "indented line", text: "  vllm:cache_config_info{a=\"1\"} 1"},
		{name: "CR line ends", reason: "splitlines splits on \\r", text: "x 1\rvllm:cache_config_info{a=\"1\"} 1\r", want: Labels{{"a", "1"}}},
		{name: "U+2028 splits lines", text: "vllm:cache_config_info{a=\"1\u2028\"} 1\nvllm:cache_config_info{a=\"2\"} 1",
			want: Labels{{"a", "2"}}},
		{name: "text between pairs skipped", reason: "findall skips what is not a pair",
			text: `vllm:cache_config_info{ a="1" , 9b="2", c=3, d="4"} 1`, want: Labels{{"a", "1"}, {"b", "2"}, {"d", "4"}}},
		{name: "unicode word characters in a name", text: `vllm:cache_config_info{bé1="x"} 1`, want: Labels{{"bé1", "x"}}},
		{name: "unclosed value", text: `vllm:cache_config_info{a="x\"} 1`, want: Labels{}},
		{name: "page the snapshot parser refuses", reason: "documented: the line scanner still finds the gauge",
			text: "x abc\nvllm:cache_config_info{a=\"1\"} 1\n", want: Labels{{"a", "1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := CacheConfig(tt.text)
			assert.Equal(t, tt.want != nil, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// The first cache config of a reading, and its source.
func TestFirstCacheConfig(t *testing.T) {
	fixture := present(readTestdata(t, "vllm_cache_config_metrics.txt"))
	other := present(`vllm:cache_config_info{block_size="32"} 1`)
	noGauge := present("vllm:num_requests_running 0\n")
	tests := []struct {
		name     string
		readings []Reading
		want     Labels
	}{
		{"before wins", []Reading{fixture, other}, cacheConfigFixture},
		{"after when before failed", []Reading{{}, other}, Labels{{"block_size", "32"}}},
		{"after when before lacks the gauge", []Reading{noGauge, fixture}, cacheConfigFixture},
		{"none", []Reading{{}, noGauge}, nil},
		{"no readings", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := FirstCacheConfig(tt.readings...)
			assert.Equal(t, tt.want != nil, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// typevet's server_args vectors "block" and "stated verbatim".
func TestServerArgs(t *testing.T) {
	s := stated
	tests := []struct {
		name   string
		cache  Labels
		stated *string
		want   string
	}{
		{"full", cacheConfigFixture, &s, `{"cache_config":{"block_size":"16","cache_dtype":"auto","calculate_kv_scales":"False","cpu_offload_gb":"0","enable_prefix_caching":"True","engine":"0","gpu_memory_utilization":"0.9","num_gpu_blocks":"4096","sliding_window":"None"},"cache_config_source":"metrics","caller_stated":"--max-num-seqs 64 --logprobs-mode processed_logprobs"}`},
		{"none", nil, nil, `{"cache_config":null,"cache_config_source":"metrics","caller_stated":null}`},
		{"empty map, empty statement", Labels{}, new(string), `{"cache_config":{},"cache_config_source":"metrics","caller_stated":""}`},
		{"no HTML escaping", Labels{{"a", "<&>"}}, nil, `{"cache_config":{"a":"<&>"},"cache_config_source":"metrics","caller_stated":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			block := ServerArgs(tt.cache, tt.stated)
			var buf = new(jsonBuffer)
			require.NoError(t, buf.encode(block))
			assert.Equal(t, tt.want, buf.String())
			var back ServerArgsBlock
			require.NoError(t, json.Unmarshal([]byte(tt.want), &back))
			assert.Equal(t, block, back)
		})
	}
	t.Run("copies its inputs", func(t *testing.T) {
		cache := Labels{{"a", "1"}}
		st := "x"
		block := ServerArgs(cache, &st)
		cache[0].Value, st = "changed", "changed"
		assert.Equal(t, "1", block.CacheConfig[0].Value)
		assert.Equal(t, "x", *block.CallerStated)
	})
}

func TestStatedServerArgs(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	assert.Equal(t, "TYPEVET_VLLM_SERVER_ARGS", ServerArgsEnv)
	got := StatedServerArgs(env(map[string]string{ServerArgsEnv: "  " + stated + "  "}))
	require.NotNil(t, got)
	assert.Equal(t, "  "+stated+"  ", *got, "kept verbatim, spaces included")
	assert.Nil(t, StatedServerArgs(env(map[string]string{})))
	empty := StatedServerArgs(env(map[string]string{ServerArgsEnv: ""}))
	require.NotNil(t, empty, "set but empty is \"\", not null")
	assert.Equal(t, "", *empty)
}

func TestLabelsJSON(t *testing.T) {
	tests := []struct {
		name, in, out, wantErr string
		want                   Labels
	}{
		{name: "order kept", in: `{"z":"1","a":"2"}`, out: `{"z":"1","a":"2"}`, want: Labels{{"z", "1"}, {"a", "2"}}},
		{name: "null", in: `null`, out: `null`},
		{name: "empty", in: `{}`, out: `{}`, want: Labels{}},
		{name: "repeated key", in: `{"a":"1","b":"2","a":"3"}`, wantErr: `serving: cache_config label "a" given twice`},
		{name: "null value", in: `{"a":null}`, wantErr: `serving: cache_config label "a" must be a string`},
		{name: "number value", in: `{"a":1}`, wantErr: `serving: cache_config label "a" must be a string`},
		{name: "array", in: `["a"]`, wantErr: "serving: cache_config must be an object of strings or null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l Labels
			err := json.Unmarshal([]byte(tt.in), &l)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, l)
			b, err := json.Marshal(l)
			require.NoError(t, err)
			assert.Equal(t, tt.out, string(b))
		})
	}
	v, ok := cacheConfigFixture.Get("engine")
	assert.True(t, ok)
	assert.Equal(t, "0", v)
	_, ok = cacheConfigFixture.Get("nope")
	assert.False(t, ok)
}
