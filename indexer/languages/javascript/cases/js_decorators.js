@register
class Widget {
  @observable
  count = () => {};
  @action
  bump() {}
}

// expect:
// entity class Widget 1-7
// entity method Widget.count 3-4 parent=Widget
// entity method Widget.bump 5-6 parent=Widget
