const x = require("./m");
const { a, b: c, d = 1 } = require("./destructured");
const member = require("./lib").helper;
require("./bare");
function inside() {
  var y = require("y");
  y.go();
}

// expect:
// import ./m @1 alias=x
// import ./destructured @2 name=a alias=a
// import ./destructured @2 name=b alias=c
// import ./destructured @2 name=d alias=d
// import ./lib @3 name=helper alias=member
// import ./bare @4
// import y @6 alias=y scope=inside
// call inside -> y.go/0 @7
