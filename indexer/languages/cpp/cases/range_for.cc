int sum(const Cart& cart) {
  int total = 0;
  for (const Item& item : cart.items()) total += item.price();
  for (auto& line : cart.lines()) total += line.count();
  return total;
}
// expect:
// entity function sum 1-6
// call sum -> Cart.items/0 @3
// call sum -> Item.price/0 @3 -- a range-for variable's declared type
// call sum -> Cart.lines/0 @4 -- `auto& line`: its type is not known, line.count() is dropped
// export sum local=sum
