function plain(a) {}
function* gen() {}
async function later() {}
export const arrow = async (x) => {
  return x;
};
var expr = function named() {}, other = x => x * 2;
let notAFunction = 1;
const { a, b } = obj;

// expect:
// language: javascript
// entity function plain 1-1
// entity function gen 2-2
// entity function later 3-3
// entity function arrow 4-6
// entity function expr 7-7
// entity function other 7-7
