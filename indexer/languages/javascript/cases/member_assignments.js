proto.format = function (fmt) {
  return fmt;
};
X.prototype.m = function () {};
plainName = () => {};
export default (o, c) => {
  const proto = c.prototype;
  proto.tz = function (tz) {};
};

// expect:
// entity function proto.format 1-3
// entity function X.prototype.m 4-4
// entity function plainName 5-5
// entity function default 6-9
// entity function default.proto.tz 8-8 parent=default
