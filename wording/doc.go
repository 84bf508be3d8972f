// Package wording holds typevet's wording receipt blocks.
package wording
