class Outer {
    Engine engine;
    class Inner {
        Wheel wheel;
        void f() { engine.start(); wheel.spin(); }
    }
    void m(Driver d) {
        new Runnable() {
            public void run() { d.drive(); engine.stop(); }
        };
    }
}

// expect:
// call Outer.Inner.f -> Engine.start/0 @5
// call Outer.Inner.f -> Wheel.spin/0 @5
// call Outer.m -> Runnable/0 @8
// call "Outer.m.<new Runnable>.run" -> Driver.drive/0 @9
// call "Outer.m.<new Runnable>.run" -> Engine.stop/0 @9
