package scheduler

var isolateFirst = true
