top(1);
function caller(p) {
  f(x);
  a.b.c(1, 2, ...rest);
  a?.b(c);
  new X(a);
  new ns.Y;
  g()(h);
  make().then(z);
  arr[0].go();
  (cond ? one : two)();
  const made = new Foo();
  made.bar();
  made.baz.qux();
  fresh.bar();
}
function other() { made.bar(); }

// expect:
// call <file> -> top/1 @1
// call caller -> f/1 @3
// call caller -> a.b.c/3 @4
// call caller -> a.b/1 @5
// call caller -> X/1 @6
// call caller -> ns.Y/0 @7
// call caller -> g/0 @8
// call caller -> <expr>.then/1 @9
// call caller -> make/0 @9
// call caller -> <expr>.go/0 @10
// call caller -> Foo/0 @12
// call caller -> Foo.bar/0 @13 inferred
// call caller -> Foo.baz.qux/0 @14 inferred
// call caller -> fresh.bar/0 @15
// call other -> made.bar/0 @17
