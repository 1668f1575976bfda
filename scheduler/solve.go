package scheduler

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// Solve plans NodeClaims for pods.
//
// TODO(#5): the solver lands with issue 5; until then every pod is reported
// unplaced so callers can be built against the API.
func Solve(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, opts ...Option) (Result, error) {
	if _, err := resolve(opts); err != nil {
		return Result{}, err
	}
	res := Result{NodeClaims: []NodeClaim{}, ExistingNodes: []NodePlacement{}, PodErrors: []PodError{}}
	for _, p := range pods {
		res.PodErrors = append(res.PodErrors, PodError{Pod: p.Namespace + "/" + p.Name, Reason: "solver not implemented yet"})
	}
	res.Summary.Pods = len(pods)
	_ = catalog
	_ = nodePools
	return res, fmt.Errorf("solver not implemented yet")
}
