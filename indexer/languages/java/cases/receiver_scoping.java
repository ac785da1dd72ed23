class A {
    Field x;
    void m(Object o) {
        {
            Local x = null;
            x.a();
        }
        x.b();
        for (Item x : items) { x.c(); }
        for (Counter x = null; ; ) { x.d(); }
        x.e();
        list.forEach(x -> x.f());
        list.forEach((Typed x) -> x.g());
        try (Res x = open()) { x.h(); } catch (IOException | Other x) { x.i(); } catch (Boom x) { x.j(); }
        if (o instanceof Shape s) { s.k(); }
        switch (o) { case Circle c -> c.l(); default -> {} }
        x.z();
    }
}

// expect:
// call A.m -> Local.a/0 @6
// call A.m -> Field.b/0 @8
// call A.m -> Item.c/0 @9
// call A.m -> Counter.d/0 @10
// call A.m -> Field.e/0 @11
// call A.m -> list.forEach/1 @12
// call A.m -> x.f/0 @12 -- an untyped lambda parameter shadows the field: unknown receiver, as written
// call A.m -> list.forEach/1 @13
// call A.m -> Typed.g/0 @13
// call A.m -> open/0 @14
// call A.m -> Res.h/0 @14
// call A.m -> x.i/0 @14 -- a multi-catch parameter has no single type
// call A.m -> Boom.j/0 @14
// call A.m -> Shape.k/0 @15
// call A.m -> Circle.l/0 @16
// call A.m -> Field.z/0 @17
