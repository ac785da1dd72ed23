export function f() {}
export class K {}
export const g = () => {}, n = 1;
export { a as b, c };
export { x as y } from "./m";
export * from "./all";
export * as ns from "./ns";
export default f;

// expect:
// export f local=f
// export K local=K
// export g local=g
// export n local=n
// export b local=a
// export c local=c
// export y module=./m imported=x
// export * module=./all imported=*
// export ns module=./ns
// export default local=f
