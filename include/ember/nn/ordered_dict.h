#pragma once
/// OrderedDict: the insertion-ordered name -> value map that Module's accessors return
/// (libtorch's torch::OrderedDict: items with key() and value(), lookup by name).

#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/error.h"

namespace ember {

template <class Key, class Value>
class OrderedDict {
 public:
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    const Key& key() const { return pair_.first; }
    Value& value() { return pair_.second; }
    const Value& value() const { return pair_.second; }
    Value& operator*() { return pair_.second; }
    const Value& operator*() const { return pair_.second; }
    Value* operator->() { return &pair_.second; }
    const Value* operator->() const { return &pair_.second; }
    const std::pair<Key, Value>& pair() const { return pair_; }

   private:
    std::pair<Key, Value> pair_;
  };

  using Iterator = typename std::vector<Item>::iterator;
  using ConstIterator = typename std::vector<Item>::const_iterator;

  /// key_description names the kind of key in errors ("Parameter 'w' already defined").
  explicit OrderedDict(std::string key_description = "Key") : key_description_(std::move(key_description)) {}
  /// {{"a", 1}, {"b", 2}}; a repeated key is an error, as insert.
  OrderedDict(std::initializer_list<Item> items) {
    items_.reserve(items.size());
    for (const Item& i : items) insert(i.key(), i.value());
  }
  const std::string& key_description() const noexcept { return key_description_; }

  /// Adds a new key; InvalidArgument when it is already there.
  Value& insert(Key key, Value value) {
    if (index_.count(key)) throw InvalidArgument(key_description_ + " '" + key + "' already defined");
    index_.emplace(key, items_.size());
    items_.emplace_back(std::move(key), std::move(value));
    return items_.back().value();
  }
  Value& operator[](const Key& key) {
    if (Value* v = find(key)) return *v;
    throw InvalidArgument(key_description_ + " '" + key + "' is not defined");
  }
  const Value& operator[](const Key& key) const { return const_cast<OrderedDict&>(*this)[key]; }
  Value* find(const Key& key) {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const { return const_cast<OrderedDict&>(*this).find(key); }
  bool contains(const Key& key) const { return index_.count(key) != 0; }
  Item& operator[](size_t i) { return items_.at(i); }
  const Item& operator[](size_t i) const { return items_.at(i); }
  Item& front() { return check_not_empty("front"), items_.front(); }
  const Item& front() const { return check_not_empty("front"), items_.front(); }
  Item& back() { return check_not_empty("back"), items_.back(); }
  const Item& back() const { return check_not_empty("back"), items_.back(); }

  /// Inserts every item of other (InvalidArgument on a key already here).
  void update(const OrderedDict& other) {
    reserve(size() + other.size());
    for (const Item& i : other) insert(i.key(), i.value());
  }
  /// Removes key, keeping the order of the rest; InvalidArgument when it is not there.
  void erase(const Key& key) {
    auto it = index_.find(key);
    if (it == index_.end()) throw InvalidArgument("Key '" + key + "' doesn't exist");
    const size_t at = it->second;
    index_.erase(it);
    items_.erase(items_.begin() + std::ptrdiff_t(at));
    for (auto& entry : index_)
      if (entry.second > at) --entry.second;
  }
  void clear() {
    index_.clear();
    items_.clear();
  }
  void reserve(size_t capacity) {
    index_.reserve(capacity);
    items_.reserve(capacity);
  }

  size_t size() const { return items_.size(); }
  bool is_empty() const { return items_.empty(); }
  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  const std::vector<Item>& items() const { return items_; }
  std::vector<Key> keys() const {
    std::vector<Key> r;
    for (const Item& i : items_) r.push_back(i.key());
    return r;
  }
  std::vector<Value> values() const {
    std::vector<Value> r;
    for (const Item& i : items_) r.push_back(i.value());
    return r;
  }
  std::vector<std::pair<Key, Value>> pairs() const {
    std::vector<std::pair<Key, Value>> r;
    for (const Item& i : items_) r.push_back(i.pair());
    return r;
  }
  /// The same keys and values in the same order.
  friend bool operator==(const OrderedDict& a, const OrderedDict& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!(a.items_[i].key() == b.items_[i].key() && a.items_[i].value() == b.items_[i].value())) return false;
    return true;
  }

 private:
  void check_not_empty(const char* what) const {
    if (items_.empty()) throw InvalidArgument(std::string("Called ") + what + "() on an empty OrderedDict");
  }

  std::string key_description_ = "Key";
  std::vector<Item> items_;
  std::unordered_map<Key, size_t> index_;
};

}  // namespace ember
