#include "flotilla/io/text/range_task.h"

#include "flotilla/expr/serialize.h"
#include "flotilla/io/fs/paths.h"
#include "flotilla/io/text/packed.h"

namespace flotilla::io::text {

Result<std::vector<RecordBatch>> TextRangeTask::Read(const io::ScanPushdowns& pushdowns) const {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<int> fields,
                            pushdowns.ColumnIndices(*range_.schema, ToString()));
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch, ReadRange(fields, pushdowns.StoppingLimit()));
  std::vector<RecordBatch> out;
  out.push_back(std::move(batch));
  return out;
}

std::string TextRangeTask::ToString() const {
  return kind() + " '" + range_.file->name() + "' bytes [" + std::to_string(range_.begin) + ", " +
         std::to_string(range_.end) + ")";
}

Result<std::string> TextRangeTask::Serialize() const {
  FLOTILLA_ASSIGN_OR_RETURN(std::string schema, expr::SerializeSchema(range_.schema));
  return Pack({std::to_string(range_.begin), std::to_string(range_.end), range_.file->name(),
               schema, SerializeOptions()});
}

Result<TextRange> DeserializeTextRange(std::string_view bytes, std::string* options) {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<std::string> parts, Unpack(bytes, 5));
  TextRange range;
  try {
    range.begin = std::stoll(parts[0]);
    range.end = std::stoll(parts[1]);
  } catch (...) {
    return Status::Invalid("malformed text scan task range");
  }
  FLOTILLA_ASSIGN_OR_RETURN(range.file, io::OpenFile(parts[2]));
  FLOTILLA_ASSIGN_OR_RETURN(range.schema, expr::DeserializeSchema(parts[3]));
  if (range.begin < 0 || range.end < range.begin || range.end > range.file->size())
    return Status::Invalid("scan task bytes [" + parts[0] + ", " + parts[1] + ") outside '" +
                           parts[2] + "'");
  *options = std::move(parts[4]);
  return range;
}

Result<std::vector<std::shared_ptr<io::RandomAccessFile>>> OpenFiles(
    const std::vector<std::string>& patterns) {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<io::FileEntry> entries, io::ExpandPaths(patterns));
  std::vector<std::shared_ptr<io::RandomAccessFile>> files;
  for (const io::FileEntry& e : entries) {
    FLOTILLA_ASSIGN_OR_RETURN(auto file, io::OpenFile(e.path));
    files.push_back(std::move(file));
  }
  return files;
}

}  // namespace flotilla::io::text
