export declare function f(a: string): void;
export declare class C extends B {
  m(): void;
}
export interface I { x(): void }
declare namespace N { function g(): void; }

// expect:
// entity class C 2-4
// entity interface I 5-5
// export f local=f
// export C local=C
// export I local=I
// inherit C -> B @2
