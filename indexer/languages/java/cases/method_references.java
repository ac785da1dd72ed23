class A {
    Runnable f;
    void m(Helper h) {
        use(Foo::bar);
        use(this::bar);
        use(super::bar);
        use(java.util.List::of);
        use(Foo::new);
        use(List<String>::size);
        use(int[]::new);
        use(h::help);
        use(getX()::y);
    }
}

// expect:
// no inherits
// call A.m -> use/1 @4
// call A.m -> Foo.bar/? @4
// call A.m -> use/1 @5
// call A.m -> <self>.bar/? @5
// call A.m -> use/1 @6
// call A.m -> <super>.bar/? @6
// call A.m -> use/1 @7
// call A.m -> java.util.List.of/? @7
// call A.m -> use/1 @8
// call A.m -> Foo/? @8
// call A.m -> use/1 @9
// call A.m -> List.size/? @9
// call A.m -> use/1 @10
// call A.m -> use/1 @11
// call A.m -> Helper.help/? @11
// call A.m -> use/1 @12
// call A.m -> getX/0 @12
