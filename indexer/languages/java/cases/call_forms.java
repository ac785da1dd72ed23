class A extends B {
    void m(int x) {
        foo(x);
        this.foo();
        super.foo(1, 2);
        Foo.bar();
        a.b.C.bar();
        Collections.<String>emptyList();
        getX().bar();
        arr[0].bar();
        new Foo(a, b);
        new a.b.Foo<T>();
        Outer.this.foo();
        Iface.super.foo();
        undeclared.bar(x);
        System.out.println("hi");
        foo(
            bar(),
            baz(qux()));
        items.forEach(item -> handle(item));
    }
}

// expect:
// entity class A 1-22
// entity method A.m 2-21 parent=A
// call A.m -> foo/1 @3
// call A.m -> <self>.foo/0 @4
// call A.m -> <super>.foo/2 @5
// call A.m -> Foo.bar/0 @6
// call A.m -> a.b.C.bar/0 @7
// call A.m -> Collections.emptyList/0 @8
// call A.m -> getX/0 @9 -- `.bar()` on a call's result: skipped
// call A.m -> Foo/2 @11 -- `arr[0].bar()` on line 10: skipped
// call A.m -> a.b.Foo/0 @12
// call A.m -> Outer.foo/0 @13
// call A.m -> Iface.foo/0 @14
// call A.m -> undeclared.bar/1 @15
// call A.m -> System.out.println/1 @16
// call A.m -> foo/2 @17
// call A.m -> bar/0 @18
// call A.m -> baz/1 @19
// call A.m -> qux/0 @19
// call A.m -> items.forEach/1 @20
// call A.m -> handle/1 @20 -- lambdas are not entities: their calls belong to the method
