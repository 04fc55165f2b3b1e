#include "flotilla/types/schema.h"

#include "flotilla/common/suggest.h"

namespace flotilla {

std::vector<std::string> Schema::field_names() const {
  std::vector<std::string> names;
  names.reserve(fields_.size());
  for (const auto& f : fields_)
    names.push_back(f.name);
  return names;
}

int Schema::GetFieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

Result<int> Schema::FindField(std::string_view name) const {
  int i = GetFieldIndex(name);
  if (i >= 0) return i;
  return Status::KeyError(NotFoundMessage("column", name, field_names()));
}

bool Schema::Equals(const Schema& other, bool check_metadata) const {
  if (fields_.size() != other.fields_.size()) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i].Equals(other.fields_[i])) return false;
  }
  return !check_metadata || metadata_ == other.metadata_;
}

std::string Schema::ToString() const {
  std::string out;
  for (const auto& f : fields_)
    out += f.ToString() + "\n";
  return out;
}

}  // namespace flotilla
