utils.forEach(list, function (item) {
  item.run();
});
describe("suite", () => {
  it("one", () => { check(1); });
  it("two", async () => {});
  list.map(x => helper(x));
});
$(document).ready(function () {});
fetch(url).then(function (r) { return r.json(); }).then(function (d) { show(d); });
new Promise(function (resolve) { resolve(); });

// expect:
// entity function utils.forEach() 1-3 name=utils.forEach()
// entity function describe() 4-8
// entity function describe().it() 5-5 parent=describe()
// entity function describe().it()#2 6-6 parent=describe()
// entity function $(document).ready() 9-9 name=$(document).ready()
// entity function fetch(url).then() 10-10 name=fetch(url).then()
// entity function fetch().then().then() 10-10 name=fetch().then().then()
// entity function Promise() 11-11
// call <file> -> utils.forEach/2 @1
// call utils.forEach() -> item.run/0 @2
// call <file> -> describe/2 @4
// call describe() -> it/2 @5
// call describe().it() -> check/1 @5
// call describe() -> it/2 @6
// call describe() -> list.map/1 @7
// call describe() -> helper/1 @7 -- an expression-bodied arrow is no entity: its call belongs to the enclosing callback
// call <file> -> <expr>.ready/1 @9
// call <file> -> $/1 @9
// call <file> -> <expr>.then/1 @10
// call <file> -> <expr>.then/1 @10
// call <file> -> fetch/1 @10
// call fetch(url).then() -> r.json/0 @10
// call fetch().then().then() -> show/1 @10
// call <file> -> Promise/1 @11
// call Promise() -> resolve/0 @11
