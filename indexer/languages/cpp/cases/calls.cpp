#include "shapes.h"
#define LOG(x) log_line(x)

class Circle : public Shape {
 public:
  double area() const override { return this->radius() * scale(2); }
  double radius() const;
  void draw(Canvas& canvas, Shape* other) {
    canvas.paint(*this);
    other->area();
    Circle twin;
    twin.radius();
    const Circle& ref = twin;
    ref.radius();
    auto made = new Circle();
    made->area();
    auto copy = Circle();
    copy.radius();
    unknown.area();
    make().area();
    geometry::unit();
    Shape::describe();
    auto square = [](double x) { return helper(x); };
    LOG(1);
    std::sort(0, 0);
    scale<int>(1);
  }
};

double apply(double (*fn)(double), double x) { return fn(x) + max(x, 1.0); }
// expect:
// entity class Circle 4-28
// entity method Circle.area 6-6 parent=Circle
// entity method Circle.draw 8-27 parent=Circle
// entity function apply 30-30
// inherit Circle -> Shape @4
// call Circle.area -> <self>.radius/0 @6
// call Circle.area -> scale/1 @6
// call Circle.draw -> Canvas.paint/1 @9
// call Circle.draw -> Shape.area/0 @10 -- virtual: the method the static type names
// call Circle.draw -> Circle.radius/0 @12
// call Circle.draw -> Circle.radius/0 @14
// call Circle.draw -> Circle/0 @15
// call Circle.draw -> Circle.area/0 @16
// call Circle.draw -> Circle/0 @17
// call Circle.draw -> Circle.radius/0 @18 inferred -- `Circle()` could be a function returning another type
// call Circle.draw -> make/0 @20
// call Circle.draw -> geometry.unit/0 @21
// call Circle.draw -> Shape.describe/0 @22
// call Circle.draw -> helper/1 @23 -- a lambda is no function: its calls are the enclosing one's
// call Circle.draw -> std.sort/2 @25
// call Circle.draw -> scale/1 @26
// call apply -> max/2 @30 -- fn is a parameter: dropped; `unknown.area()`, `make().area()` and LOG are dropped too
// import shapes.h @1 name=*
// export Circle.area local=Circle.area
// export Circle.radius
// export Circle.draw local=Circle.draw
// export apply local=apply
