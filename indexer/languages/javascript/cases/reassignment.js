function f() {
  let x = new A();
  x.one();
  x = build();
  x.two();
  x = new B();
  x.three();
}

// expect:
// call f -> A/0 @2
// call f -> A.one/0 @3 inferred
// call f -> build/0 @4
// call f -> x.two/0 @5
// call f -> B/0 @6
// call f -> B.three/0 @7 inferred
