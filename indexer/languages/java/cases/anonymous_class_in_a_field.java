class A {
  Runnable r = new Runnable() { public void run() {} };
}

// expect:
// entity class A 1-3
// entity class "A.<new Runnable>" 2-2 parent=A
// entity method "A.<new Runnable>.run" 2-2 parent="A.<new Runnable>"
// call A -> Runnable/0 @2
