// Command karpdiff compares nodeplan with Karpenter v1.14.1's provisioning
// scheduler: it solves scenario folders with Karpenter offline, checks any
// plan against kube-scheduler's filters, generates random scenarios and
// compares both solvers on them. See tools/karpdiff/README.md.
package main
