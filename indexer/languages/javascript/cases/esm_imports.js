import d from "./m";
import { a as b, c } from "./named";
import * as ns from "pkg";
import "./side-effect";
import e, { default as f } from "./both";
function later() { return import("./lazy"); }

// expect:
// import ./m @1 name=default alias=d
// import ./named @2 name=a alias=b
// import ./named @2 name=c alias=c
// import pkg @3 alias=ns
// import ./side-effect @4
// import ./both @5 name=default alias=e
// import ./both @5 name=default alias=f
// import ./lazy @6 scope=later
// no calls -- import() is no call
