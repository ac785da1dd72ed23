package shop

import "github.com/acme/shop/pay"

type Order struct {
	Base
	*pay.Card
	items []Item
	a, b  int
}

type (
	Priced interface {
		fmt.Stringer
		Total() int
	}
	Number interface {
		~int | ~float64
	}
	Level int
	Alias = Order
)

type Pair[K comparable, V any] struct {
	Entry[K]
	key K
}

func (o *Order) Total() int {
	return 0
}

func (p Pair[K, V]) Key() K {
	return p.key
}

func (Level) String() string {
	return "level"
}

func (c *Cart) Checkout() {
}

func Map[T any](xs []T) []T {
	return xs
}

func init() {
}

func init() {
}

func fastHash(b []byte) uint64
// expect:
// package: shop
// entity struct Order 5-10
// entity interface Priced 13-16
// entity interface Number 17-19
// entity type Level 20-20
// entity struct Pair 24-27
// entity method Order.Total 29-31 parent=Order
// entity method Pair.Key 33-35 parent=Pair
// entity method Level.String 37-39 parent=Level
// entity method Cart.Checkout 41-42 -- Cart is declared in another file of the package
// entity function Map 44-46
// entity function init 48-49
// entity function init#2 51-52 name=init
// inherit Order -> Base @6
// inherit Order -> pay.Card @7 -- a pointer embedded
// inherit Priced -> fmt.Stringer @14
// inherit Pair -> Entry @25 -- type arguments dropped
// no calls
