function foo() {}
exports.one = function () {};
module.exports.two = () => {};
exports.three = foo;
exports.four = 4;
module.exports = { foo, bar: baz, qux() {} };

// expect:
// entity function foo 1-1
// entity function exports.one 2-2
// entity function module.exports.two 3-3
// entity method module.exports.qux 6-6
// export one local=exports.one
// export two local=module.exports.two
// export three local=foo
// export four
// export foo local=foo
// export bar local=baz
// export qux local=module.exports.qux
