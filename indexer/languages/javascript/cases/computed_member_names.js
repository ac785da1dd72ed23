class A {
  [Symbol.iterator]() { step(); }
}
const table = { [key()]: function () {} };

// expect:
// entity class A 1-3
// entity method A.[Symbol.iterator] 2-2 parent=A name=[Symbol.iterator]
// entity function table.[key()] 4-4
// call A.[Symbol.iterator] -> step/0 @2
// call <file> -> key/0 @4
