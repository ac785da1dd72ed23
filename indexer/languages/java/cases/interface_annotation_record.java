public interface Shape<T> extends Comparable<Shape<T>>, java.io.Serializable {
    double area();
    default String name() { return describe(this); }
    static Shape<?> unit() { return null; }
}
@Retention(RUNTIME)
@interface Marker {
    int value() default 1;
    String[] tags();
}
record Point(int x, int y) implements Shape<Point> {
    Point {
        check(x);
    }
    Point(int v) { this(v, v); }
    public double area() { return 0; }
}

// expect:
// entity interface Shape 1-5
// entity method Shape.area 2-2 parent=Shape
// entity method Shape.name 3-3 parent=Shape
// entity method Shape.unit 4-4 parent=Shape
// entity annotation Marker 6-10
// entity method Marker.value 8-8 parent=Marker
// entity method Marker.tags 9-9 parent=Marker
// entity record Point 11-17
// entity constructor Point.Point 12-14 parent=Point
// entity constructor Point.Point#2 15-15 parent=Point
// entity method Point.area 16-16 parent=Point
// inherit Shape -> Comparable @1
// inherit Shape -> java.io.Serializable @1
// inherit Point -> Shape @11
// call Shape.name -> describe/1 @3
// call Point.Point -> check/1 @13
// call Point.Point#2 -> <self>.Point/2 @15
