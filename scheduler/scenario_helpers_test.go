package scheduler_test

import (
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
)

type corev1Taint = corev1.Taint

// gocmpEquateEmpty treats nil and empty collections alike: in expectations,
// "no list" and "an empty list" say the same thing.
func gocmpEquateEmpty() cmp.Option { return cmpopts.EquateEmpty() }
