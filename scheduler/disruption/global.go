package disruption

// globalRound is one round of SearchGlobal.
func (m *model) globalRound(whys map[*node]*why) (*proposal, error) {
	if p, err := m.expiration(whys); p != nil || err != nil {
		return p, err
	}
	if p := m.emptiness(); p != nil {
		return p, nil
	}
	if p, err := m.staticDrift(); p != nil || err != nil {
		return p, err
	}
	if p, err := m.drift(); p != nil || err != nil {
		return p, err
	}
	return nil, nil
}
