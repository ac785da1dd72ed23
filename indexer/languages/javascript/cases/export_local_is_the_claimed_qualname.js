function f() {}
if (x) { function f() {} }
export { f };
export default function () {}

// expect:
// entity function f 1-1
// entity function f#2 2-2
// entity function default 4-4
// export f local=f
// export default local=default
