namespace NS {
  export function f() {}
  export namespace Inner.Deep {
    export class K { m() {} }
  }
}
declare module "augmented" {
  interface Request { user: string }
}
module Legacy { function g() {} }

// expect:
// entity function NS.f 2-2
// entity class NS.Inner.Deep.K 4-4
// entity method NS.Inner.Deep.K.m 4-4 parent=NS.Inner.Deep.K
// entity interface Request 8-8
// entity function Legacy.g 10-10
// no exports -- exports inside a namespace are not the module's
