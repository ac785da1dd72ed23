#pragma once
#include "base.h"
#include <vector>

namespace shop {
namespace detail { int clamp(int v); }

/// Doc comments are not part of the span.
template <typename T>
class Cart : public Base<T>, private detail::Counted {
 public:
  Cart() : items_(0) {}
  explicit Cart(int n) { reserve(n); }
  ~Cart() { clear(); }
  void add(const T& item);
  int size() const { return items_; }
  bool operator==(const Cart& other) const { return items_ == other.items_; }
  Cart& operator+=(const T& item) { add(item); return *this; }
  operator bool() const { return items_ != 0; }
  static Cart empty() { return Cart(); }
  struct Line {
    int total() const { return 1; }
  };

 private:
  void reserve(int n);
  void clear() {}
  int items_;
};

template <>
struct Cart<void> {
  int size() const { return 0; }
};

union Value { int i; float f; };
struct Forward;
}  // namespace shop
// expect:
// entity class shop.Cart 9-29 -- from the template<> line, not the doc comment
// entity constructor shop.Cart.Cart 12-12 parent=shop.Cart
// entity constructor shop.Cart.Cart#2 13-13 parent=shop.Cart
// entity method shop.Cart.~Cart 14-14 parent=shop.Cart
// entity method shop.Cart.size 16-16 parent=shop.Cart
// entity method shop.Cart.operator== 17-17 parent=shop.Cart
// entity method shop.Cart.operator+= 18-18 parent=shop.Cart
// entity method 'shop.Cart.operator bool' 19-19 parent=shop.Cart
// entity method shop.Cart.empty 20-20 parent=shop.Cart
// entity struct shop.Cart.Line 21-23 parent=shop.Cart
// entity method shop.Cart.Line.total 22-22 parent=shop.Cart.Line
// entity method shop.Cart.clear 27-27 parent=shop.Cart
// entity struct shop.Cart#2 31-34 -- a specialization: template arguments dropped, the name repeats
// entity method shop.Cart#2.size 33-33 parent=shop.Cart#2
// entity union shop.Value 36-36
// inherit shop.Cart -> Base @10
// inherit shop.Cart -> detail.Counted @10
// call shop.Cart.Cart#2 -> reserve/1 @13
// call shop.Cart.~Cart -> clear/0 @14
// call shop.Cart.operator+= -> add/1 @18
// call shop.Cart.empty -> Cart/0 @20 -- the injected class name: its constructors, by argument count
// import base.h @2 name=*
// import <vector> @3 name=*
// export shop.detail.clamp -- a prototype: declared, defined elsewhere
// export shop.Cart.Cart local=shop.Cart.Cart
// export shop.Cart.Cart local=shop.Cart.Cart#2
// export shop.Cart.~Cart local=shop.Cart.~Cart
// export shop.Cart.add -- declared in its class, defined outside it
// export shop.Cart.size local=shop.Cart.size
// export shop.Cart.operator== local=shop.Cart.operator==
// export shop.Cart.operator+= local=shop.Cart.operator+=
// export 'shop.Cart.operator bool' local='shop.Cart.operator bool'
// export shop.Cart.empty local=shop.Cart.empty
// export shop.Cart.Line.total local=shop.Cart.Line.total
// export shop.Cart.reserve
// export shop.Cart.clear local=shop.Cart.clear
// export shop.Cart.size local=shop.Cart#2.size
