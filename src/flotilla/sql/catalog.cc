#include "flotilla/sql/catalog.h"

#include "flotilla/common/ascii.h"
#include "flotilla/common/suggest.h"

namespace flotilla::sql {
namespace {

std::string Key(const std::string& name) {
  return AsciiLower(name);
}

}  // namespace

Status Catalog::Add(const std::string& name, Kind kind, exec::PlanPtr plan, bool replace) {
  if (name.empty()) return Status::Invalid("a table or view needs a name");
  const std::string key = Key(name);
  if (!replace && entries_.count(key)) {
    return Status::Invalid("a table or view named '" + name + "' already exists");
  }
  entries_[key] = Entry{kind, std::move(plan)};
  return Status::OK();
}

Status Catalog::AddView(const std::string& name, QueryPtr query,
                        std::shared_ptr<const std::string> sql,
                        std::vector<std::string> column_aliases, bool replace) {
  FLOTILLA_RETURN_NOT_OK(Add(name, Kind::kView, nullptr, replace));
  Entry& e = entries_[Key(name)];
  e.query = std::move(query);
  e.sql = std::move(sql);
  e.column_aliases = std::move(column_aliases);
  return Status::OK();
}

const Catalog::Entry* Catalog::Find(const std::string& name) const {
  auto it = entries_.find(Key(name));
  return it == entries_.end() ? nullptr : &it->second;
}

Status Catalog::Drop(const std::string& name, bool if_exists) {
  if (entries_.erase(Key(name)) == 0 && !if_exists) {
    return Status::KeyError(NotFoundMessage("table or view", name, Names()));
  }
  return Status::OK();
}

std::vector<std::string> Catalog::Names() const {
  std::vector<std::string> names;
  for (const auto& [key, entry] : entries_)
    names.push_back(key);
  return names;
}

}  // namespace flotilla::sql
