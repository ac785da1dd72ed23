class Outer {
    static class Nested {
        class Inner { void f() {} }
    }
    void m() {
        class Local {}
        Runnable r = new Runnable() {
            public void run() { go(); }
        };
        Object o = new java.util.ArrayList<String>(3) {};
        Object p = new Runnable() { public void run() {} };
    }
}

// expect:
// entity class Outer 1-13
// entity class Outer.Nested 2-4 parent=Outer
// entity class Outer.Nested.Inner 3-3 parent=Outer.Nested
// entity method Outer.Nested.Inner.f 3-3 parent=Outer.Nested.Inner
// entity method Outer.m 5-12 parent=Outer
// entity class Outer.m.Local 6-6 parent=Outer.m
// entity class "Outer.m.<new Runnable>" 7-9 parent=Outer.m
// entity method "Outer.m.<new Runnable>.run" 8-8 parent="Outer.m.<new Runnable>"
// entity class "Outer.m.<new ArrayList>" 10-10 parent=Outer.m
// entity class "Outer.m.<new Runnable>#2" 11-11 parent=Outer.m
// entity method "Outer.m.<new Runnable>#2.run" 11-11 parent="Outer.m.<new Runnable>#2"
// inherit "Outer.m.<new Runnable>" -> Runnable @7
// inherit "Outer.m.<new ArrayList>" -> java.util.ArrayList @10
// inherit "Outer.m.<new Runnable>#2" -> Runnable @11
// call Outer.m -> Runnable/0 @7
// call "Outer.m.<new Runnable>.run" -> go/0 @8
// call Outer.m -> java.util.ArrayList/1 @10
// call Outer.m -> Runnable/0 @11
