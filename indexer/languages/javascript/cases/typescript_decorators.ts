@Component({ selector: "x" })
export class Widget {
  @Input()
  name: string;

  @HostListener("click")
  @Log
  onClick(): void {}

  @Output()
  handler = () => {};
}

// expect:
// entity class Widget 1-12
// entity method Widget.onClick 6-8 parent=Widget
// entity method Widget.handler 10-11 parent=Widget
// call Widget -> Component/1 @1
// call Widget -> Input/0 @3
// call Widget.onClick -> HostListener/1 @6
// call Widget.onClick -> Log/1 @7
// call Widget.handler -> Output/0 @10
