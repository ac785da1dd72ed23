const expressions = {
  MMM: [matchWord, function (input) {
    this.month = 1
  }],
  both: [function () {}, () => 2],
  plain: [1, 2],
};

// expect:
// entity function expressions.MMM 2-4 -- dayjs customParseFormat (a benchmark target, iamkun__dayjs-918)
