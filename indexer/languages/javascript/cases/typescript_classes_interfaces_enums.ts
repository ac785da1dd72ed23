export abstract class Shape<T> extends ns.Base<T> implements Drawable<T>, Sized {
  abstract area(): number;
  over(a: string): void;
  over(a: any): void {}
  describe() { return this.area(); }
}
export interface Drawable<T> extends Paintable<T>, ns.Visible {
  draw(): void;
}
enum Color { Red, Green }
declare function ambient(): void;
function overloaded(a: string): void;
function overloaded(a: any) {}
type Alias = { m(): void };

// expect:
// language: typescript
// entity class Shape 1-6
// entity method Shape.over 4-4 parent=Shape
// entity method Shape.describe 5-5 parent=Shape
// entity interface Drawable 7-9
// entity enum Color 10-10
// entity function overloaded 13-13
// inherit Shape -> ns.Base @1
// inherit Shape -> Drawable @1
// inherit Shape -> Sized @1
// inherit Drawable -> Paintable @7
// inherit Drawable -> ns.Visible @7
