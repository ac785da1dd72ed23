class A {
  void B() {}
  class B {}
}

// expect:
// entity class A 1-4
// entity method A.B 2-2 parent=A
// entity class A.B#2 3-3 parent=A
