#pragma once
// Errors as values at module boundaries: every fallible public function returns kf::Result<T>.
#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace kf {

// A failure a user can act on: `message` says what happened and what to do about it.
struct Error {
  std::string code;     // stable machine-readable identifier, e.g. "config.missing_field"
  std::string message;  // one or more sentences for a human
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }

 private:
  std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Ok{}; }

inline Error make_error(std::string code, std::string message) { return Error{std::move(code), std::move(message)}; }

}  // namespace kf
