class A {
  A() { super(); }
  A(int x) { this(); }
}

// expect:
// call A.A#2 -> <self>.A/0 @3 -- `super()` without `extends` (line 2) is not emitted
