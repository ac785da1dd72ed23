package shop

func route(msg any) {
	switch m := msg.(type) {
	case *Order:
		m.Add()
		switch n := m.Next().(type) {
		case Cart:
			n.Check()
		}
		m.Close()
	case Item, *Cart:
		m.Total()
	case nil:
		m.Reset()
	default:
		m.Done()
	}
	switch msg.(type) {
	case *Order:
		msg.Add()
	}
}
// expect:
// entity function route 3-23
// call route -> Order.Add/0 @6
// call route -> Order.Next/0 @7
// call route -> Cart.Check/0 @9 -- a type switch inside a case
// call route -> Order.Close/0 @11 -- the outer switch's case again
// call route -> <expr>.Total/0 @13 -- several types: the interface's
// call route -> <expr>.Reset/0 @15
// call route -> <expr>.Done/0 @17
// -- msg.Add() at 21: no variable bound, msg stays an `any`: a predeclared type, dropped
