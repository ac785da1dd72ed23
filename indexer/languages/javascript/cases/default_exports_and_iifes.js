(function () { a(); })();
(() => { b(); })();
!function () { c(); }();
(function () { d(); }).call(this);
(function () { e(); }());
export default function () {}

// expect:
// entity function <anonymous> 1-1
// entity function <anonymous>#2 2-2
// entity function <anonymous>#3 3-3
// entity function <anonymous>#4 4-4
// entity function <anonymous>#5 5-5
// entity function default 6-6
// call <anonymous> -> a/0 @1
// call <anonymous>#2 -> b/0 @2
// call <anonymous>#3 -> c/0 @3
// call <anonymous>#4 -> d/0 @4
// call <anonymous>#5 -> e/0 @5
