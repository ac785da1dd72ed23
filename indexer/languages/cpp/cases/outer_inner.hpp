namespace simdjson {
class ParsedJson {
  class BasicIterator;
};

template <size_t max_depth> class ParsedJson::BasicIterator {
 public:
  inline uint8_t get_type() const { return current_type; }
};
}  // namespace simdjson
// expect:
// entity class simdjson.ParsedJson 2-4
// entity class simdjson.BasicIterator 6-9 -- `Outer::Inner` defined outside Outer is `Inner`, as the benchmark names it
// entity method simdjson.BasicIterator.get_type 8-8 parent=simdjson.BasicIterator
// export simdjson.BasicIterator.get_type local=simdjson.BasicIterator.get_type
