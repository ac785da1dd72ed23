package shop

import "github.com/acme/shop/pay"

var defaultOrder = &Order{}

type Order struct{}

func NewOrder() *Order {
	return &Order{}
}

func (o *Order) Add(it Item, more ...Item) {
	o.check()
	it.Total()
	more.Total()
	defaultOrder.Reset()
}

func checkout(p Priced, card *pay.Card, name string, err error) {
	var a Order
	b := Order{}
	c, d := &Order{}, NewOrder()
	e, err := NewCart()
	g := pay.NewGateway()
	h := Order(a)
	a.Add(); b.Add(); c.Add(); d.Add(); e.Add(); g.Charge(); h.String()
	p.Total()
	card.Charge()
	err.Error()
	name.Len()
	x := compute()
	x.Run()
	x.y.Run()
	f := func() { helper() }
	f()
	go d.Add()
	defer func() { a.Add() }()
	if b := compute(); b != nil {
		b.Add()
	}
	b.Add()
	for _, it := range items {
		it.Total()
	}
	switch v := p.(type) {
	case *Order:
		v.Add()
	}
	compute().Run()
}
// expect:
// entity struct Order 7-7
// entity function NewOrder 9-11
// entity method Order.Add 13-18 parent=Order
// entity function checkout 20-51
// call NewOrder -> Order/? @10 -- a composite literal makes the type
// call Order.Add -> Order.check/0 @14 -- the receiver
// call Order.Add -> Item.Total/0 @15 -- a parameter
// call Order.Add -> <expr>.Total/0 @16 -- variadic: a slice
// call Order.Add -> Order.Reset/0 @17 -- a package-level variable of this file
// call checkout -> Order/? @22
// call checkout -> Order/? @23
// call checkout -> NewOrder/0 @23
// call checkout -> NewCart/0 @24
// call checkout -> pay.NewGateway/0 @25
// call checkout -> Order/1 @26 -- a conversion
// call checkout -> Order.Add/0 @27 -- var a Order
// call checkout -> Order.Add/0 @27 -- b := Order{}
// call checkout -> Order.Add/0 @27 -- c := &Order{}
// call checkout -> Order.Add/0 @27 -- NewOrder is this file's: its declared result
// call checkout -> Cart.Add/0 @27 inferred -- NewCart is elsewhere: typed by its name
// call checkout -> pay.Gateway.Charge/0 @27 inferred
// call checkout -> Order.String/0 @27 -- typed by the conversion
// call checkout -> Priced.Total/0 @28 -- an interface: the resolver drops it
// call checkout -> pay.Card.Charge/0 @29
// call checkout -> compute/0 @32 -- err.Error() and name.Len(): predeclared types, no call
// call checkout -> <expr>.Run/0 @33 -- a value of unknown type; x.y.Run() is dropped
// call checkout -> helper/0 @35 -- a closure's calls are its function's; f() calls a local
// call checkout -> Order.Add/0 @37
// call checkout -> Order.Add/0 @38
// call checkout -> compute/0 @39
// call checkout -> <expr>.Add/0 @40 -- the if statement's b
// call checkout -> Order.Add/0 @42 -- the function's b again
// call checkout -> <expr>.Total/0 @44
// call checkout -> Order.Add/0 @48 -- a type switch's variable has its case's type
// call checkout -> compute/0 @50 -- the call's result called: no name
