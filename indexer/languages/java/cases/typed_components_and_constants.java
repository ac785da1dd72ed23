record R(Name name) { String s() { return name.text(); } }
interface I { Registry REG = Registry.create(); default void d() { REG.add(); } }
enum E { ONE; void f() { ONE.g(); } void g() {} }

// expect:
// call R.s -> Name.text/0 @1
// call I -> Registry.create/0 @2
// call I.d -> Registry.add/0 @2
// call E.f -> E.g/0 @3
