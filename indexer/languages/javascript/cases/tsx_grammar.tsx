import React from "react";
export function App<T,>({ items }: Props<T>) {
  const onClick = useCallback(() => { setOpen(true); }, []);
  return <ul onClick={() => track("x")}>{items.map(i => <Item key={i} />)}</ul>;
}
export default () => <App items={[]} />;

// expect:
// language: typescript
// entity function App 2-5
// entity function App.useCallback() 3-3 parent=App -- a block-bodied callback
// entity function default 6-6
// export App local=App
// export default local=default
// call App -> useCallback/2 @3
// call App.useCallback() -> setOpen/1 @3
// call App -> track/1 @4
// call App -> items.map/1 @4
