#include "classes.hpp"

namespace shop {
template <typename T>
void Cart<T>::add(const T& item) {
  reserve(size() + 1);
  detail::clamp(1);
}

void Cart<int>::reserve(int n) {}
}  // namespace shop

int shop::detail::clamp(int v) { return v; }

struct Local {
  void run();
  void run(int times);
};

void Local::run() { run(1); }
void Local::run(int times) {}

static int helper() { return 0; }

namespace {
int hidden() { return helper(); }
}
// expect:
// entity method shop.Cart.add 4-8 -- its class is in a header: the file holds it, a member reference names the class
// entity method shop.Cart.reserve 10-10
// entity method shop.detail.clamp 13-13
// entity struct Local 15-18
// entity method Local.run 20-20 parent=Local -- its class is in this file: the class holds it
// entity method Local.run#2 21-21 parent=Local
// entity function helper 23-23
// entity function hidden 26-26 -- an anonymous namespace prefixes nothing; internal: no export
// member shop.Cart.add -> shop.Cart @5
// member shop.Cart.reserve -> shop.Cart @10
// member shop.detail.clamp -> shop.detail @13 -- a namespace: the resolver finds no class, no edge
// call shop.Cart.add -> reserve/1 @6 -- looked up in shop.Cart first, then shop, then the file
// call shop.Cart.add -> size/0 @6
// call shop.Cart.add -> detail.clamp/1 @7
// call Local.run -> run/1 @20
// call hidden -> helper/0 @26
// import classes.hpp @1 name=*
// export shop.Cart.add local=shop.Cart.add
// export shop.Cart.reserve local=shop.Cart.reserve
// export shop.detail.clamp local=shop.detail.clamp
// export Local.run
// export Local.run
// export Local.run local=Local.run
// export Local.run local=Local.run#2
