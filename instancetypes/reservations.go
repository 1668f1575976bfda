package instancetypes

// ReservationCapacities returns, per capacity reservation ID, how many
// instances a plan may launch on it: the smallest ReservationCapacity any
// of its offerings states (offerings of one reservation normally agree; if
// they do not, the smaller is the one that is safe). It is empty for a
// catalog without reserved offerings, and a fresh map on every call.
func (c Catalog) ReservationCapacities() map[string]int {
	out := map[string]int{}
	for _, it := range c.types {
		for _, o := range it.Offerings {
			if o.ReservationID == "" {
				continue
			}
			if n, ok := out[o.ReservationID]; !ok || o.ReservationCapacity < n {
				out[o.ReservationID] = o.ReservationCapacity
			}
		}
	}
	return out
}
