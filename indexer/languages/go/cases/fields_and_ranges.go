package shop

type Base struct {
	store *Store
}

type Order struct {
	Base
	items  []Item
	byName map[string]*Item
	tags   []string
	owner  pay.Account
}

func (o *Order) Total(extra []Item, xs ...Item) {
	o.store.Save()
	o.items.Len()
	o.owner.Charge()
	o.missing.Run()
	for _, it := range o.items {
		it.Total()
	}
	for name, it := range o.byName {
		it.Rename(name)
	}
	for _, tag := range o.tags {
		tag.Len()
	}
	for i := range extra {
		i.Run()
	}
	for _, x := range xs {
		x.Total()
	}
	batch := []Item{}
	for _, b := range batch {
		b.Total()
	}
	s := o.store
	s.Load()
	n := new(Store)
	n.Load()
	m := make(map[string]*Item)
	for _, v := range m {
		v.Total()
	}
}
// expect:
// entity struct Base 3-5
// entity struct Order 7-13
// entity method Order.Total 15-47 parent=Order
// inherit Order -> Base @8
// call Order.Total -> Store.Save/0 @16 -- a field of an embedded struct: promoted; o.items.Len(): a slice's, dropped
// call Order.Total -> pay.Account.Charge/0 @18 -- o.missing.Run(): a field the struct does not declare, dropped
// call Order.Total -> Item.Total/0 @21 -- a slice field's element
// call Order.Total -> Item.Rename/1 @24 -- a map's value
// call Order.Total -> <expr>.Run/0 @30 -- tag.Len(): a string; i: an index
// call Order.Total -> Item.Total/0 @33 -- a variadic parameter is a slice
// call Order.Total -> Item.Total/0 @37 -- a slice literal's element (no Item is made: no call of it)
// call Order.Total -> Store.Load/0 @40 -- a variable given a field
// call Order.Total -> new/1 @41 -- the builtin: the resolver finds nothing
// call Order.Total -> Store.Load/0 @42 -- new(T) makes a *T
// call Order.Total -> make/1 @43
// call Order.Total -> Item.Total/0 @45 -- make(map[K]V): a map of V
