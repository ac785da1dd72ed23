import type { Base } from "./base";
import { type Other, value } from "./mixed";
import fs = require("fs");
import Default from "./d";
export type { Base };
class Impl extends Base {}
export = Impl;

// expect:
// import ./base @1 name=Base alias=Base
// import ./mixed @2 name=Other alias=Other
// import ./mixed @2 name=value alias=value
// import fs @3 alias=fs
// import ./d @4 name=default alias=Default
// export Base local=Base
// export default local=Impl
// inherit Impl -> Base @6
