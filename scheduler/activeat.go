package scheduler

import "github.com/nodeplan/nodeplan/topology"

// activeAt returns which of the class's topology terms are enforced at a
// relaxation level (activeTerm), as one function per level, made once:
// every attempt at that level shares it (the moves make millions).
func (c *class) activeAt(level int) topology.Active {
	for len(c.actives) <= level {
		l := len(c.actives)
		c.actives = append(c.actives, func(i int) bool { return c.activeTerm(i, l) })
	}
	return c.actives[level]
}
