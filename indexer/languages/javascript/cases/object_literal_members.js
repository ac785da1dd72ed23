const expressions = {
  MMM: function (a) {},
  short() {},
  get size() { return 1; },
  arrow: () => 1,
  "quoted key": function () {},
  nested: { deep: { fn() {} } },
  value: 42,
};
register({ handler() {} });
Foo.prototype = { bar: function () {} };

// expect:
// entity function expressions.MMM 2-2
// entity method expressions.short 3-3
// entity method expressions.size 4-4
// entity function expressions.arrow 5-5
// entity function "expressions.quoted key" 6-6
// entity method expressions.nested.deep.fn 7-7
// entity method handler 10-10
// entity function Foo.prototype.bar 11-11
