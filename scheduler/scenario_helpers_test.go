package scheduler_test

import (
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

type corev1Taint = corev1.Taint

// gocmpEquateEmpty treats nil and empty collections alike: in expectations,
// "no list" and "an empty list" say the same thing.
func gocmpEquateEmpty() cmp.Option { return cmpopts.EquateEmpty() }

// verify is the independent plan checker, run on every plan tests make.
var verify func(pods []*corev1.Pod, pools []nodepool.NodePool, catalog instancetypes.Catalog, res scheduler.Result, opts ...scheduler.Option) error = scheduler.Verify
