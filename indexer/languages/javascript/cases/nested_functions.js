function outer() {
  function inner() {
    const deepest = () => {};
  }
  const cb = function () {};
}

// expect:
// entity function outer 1-6
// entity function outer.inner 2-4 parent=outer
// entity function outer.inner.deepest 3-3 parent=outer.inner
// entity function outer.cb 5-5 parent=outer
