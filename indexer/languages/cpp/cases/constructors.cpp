#include "item.h"

int main() {
  shop::Item apple(3);
  shop::Item pear{4};
  shop::Item plain;
  auto* boxed = new shop::Item(5);
  boxed->total(2);
  return apple.total(1);
}

struct Defaulted {
  Defaulted() = default;
  ~Defaulted() = delete;
  virtual void run() = 0;
};
// expect:
// entity function main 3-10
// entity struct Defaulted 12-16 -- `= default`, `= delete` and `= 0` have no body: no Functions
// call main -> shop.Item/1 @4 -- a declaration with arguments calls a constructor of the class
// call main -> shop.Item/1 @5
// call main -> shop.Item/1 @7 -- `shop::Item plain;` on line 6 is no call: its constructor is not known to be written
// call main -> shop.Item.total/1 @8 -- `auto* boxed = new …` types boxed
// call main -> shop.Item.total/1 @9
// import item.h @1 name=*
// export main local=main
// export Defaulted.run
