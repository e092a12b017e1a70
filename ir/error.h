// Errors of the program format: a kind from docs/design.md, a line and a message.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace af::ir {

// Resize (format v1.1): an out= tensor whose shape is not the result's;
// PyTorch resizes it, which the format does not model.
// Dtype (format v1.2): an i64 or bool tensor anywhere but an index or mask
// argument (or an f32 tensor there); the format keeps them out of the data.
// Version (format v1.2): PyTorch 1.13 runs the statement and 2.x refuses it
// (index_add_ with a source that only broadcasts): outside the format, so
// that every program it accepts runs alike on both.
// Retired (format v1.3): a use of a name whose tensor object an in-place
// metadata op (transpose_, as_strided_, ...) re-shaped after the name was
// bound; PyTorch runs it with the new geometry, the format keeps one
// geometry per name.
enum class ErrorKind { Syntax, Name, Arg, Shape, View, Overlap, Undefined, Limit, Resize, Dtype, Version, Retired };

const char* kind_name(ErrorKind k);

struct Error {
  ErrorKind kind;
  int line = 0;  // 1-based source line; 0 when the program was not parsed from text
  std::string message;
  std::string to_string() const;  // "line 4: overlap: ..."
};

// A broken invariant of aliasfuzz itself (an op a switch does not know, an
// unreachable state): prints `what` and aborts, so that no backend quietly
// computes something else instead.
[[noreturn]] void internal_error(const std::string& what);

// A value or the error that prevented it.
template <class T>
class Result {
 public:
  Result(T v) : v_(std::move(v)) {}
  Result(Error e) : v_(std::move(e)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace af::ir
