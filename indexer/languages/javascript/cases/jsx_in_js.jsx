export const View = () => { return <div onClick={go}>{render()}</div>; };

// expect:
// entity function View 1-1
// call View -> render/0 @1
