#include "flotilla/io/ipc/encoder.h"

#include <fmt/format.h>

#include <cstring>

namespace flotilla::ipc {

Status BatchEncoder::AddView(const BufferPtr& buffer, int64_t offset, int64_t size) {
  if (size == 0) {
    buffers_.push_back({});
    return Status::OK();
  }
  if (!buffer || offset < 0 || offset + size > buffer->size()) {
    return Status::Invalid(fmt::format("array buffer too small: need bytes [{}, {}), have {}",
                                       offset, offset + size, buffer ? buffer->size() : 0));
  }
  buffers_.push_back({buffer->data() + offset, size, buffer});
  return Status::OK();
}

Status BatchEncoder::AddBitmap(const BufferPtr& bitmap, int64_t bit_offset, int64_t length) {
  if (bit_offset % 8 == 0) return AddView(bitmap, bit_offset / 8, bit_util::BytesForBits(length));
  if (!bitmap || bit_util::BytesForBits(bit_offset + length) > bitmap->size()) {
    return Status::Invalid("bitmap too small for its array");
  }
  // A slice starting mid-byte: IPC bitmaps start at bit 0, so shift the bits into a new buffer.
  FLOTILLA_ASSIGN_OR_RETURN(auto copy, Buffer::AllocateZeroed(bit_util::BytesForBits(length)));
  bit_util::CopyBitmap(bitmap->data(), bit_offset, length, copy->mutable_data(), 0);
  buffers_.push_back({copy->data(), copy->size(), copy});
  return Status::OK();
}

template <typename Offset>
Result<std::pair<int64_t, int64_t>> BatchEncoder::AddOffsets(const ArrayData& d) {
  const BufferPtr& buf = d.buffers[1];
  const int64_t bytes = (d.length + 1) * static_cast<int64_t>(sizeof(Offset));
  if (!buf || buf->size() < (d.offset + d.length + 1) * static_cast<int64_t>(sizeof(Offset))) {
    if (d.length != 0) return Status::Invalid("offsets buffer too small for its array");
    // An empty array may come without offsets; the format still wants the one leading zero.
    FLOTILLA_ASSIGN_OR_RETURN(auto zero, Buffer::AllocateZeroed(bytes));
    buffers_.push_back({zero->data(), bytes, zero});
    return std::pair<int64_t, int64_t>{0, 0};
  }
  const Offset* o = buf->data_as<Offset>() + d.offset;
  const int64_t first = o[0];
  const int64_t last = o[d.length];
  if (first == 0) {
    FLOTILLA_RETURN_NOT_OK(AddView(buf, d.offset * static_cast<int64_t>(sizeof(Offset)), bytes));
  } else {
    FLOTILLA_ASSIGN_OR_RETURN(auto rebased, Buffer::Allocate(bytes));
    auto* out = reinterpret_cast<Offset*>(rebased->mutable_data());
    for (int64_t i = 0; i <= d.length; ++i)
      out[i] = static_cast<Offset>(o[i] - first);
    buffers_.push_back({rebased->data(), bytes, rebased});
  }
  return std::pair<int64_t, int64_t>{first, last};
}

Status BatchEncoder::Visit(const Array& array, int depth) {
  if (depth > kMaxNestingDepth) return Status::Invalid("array nested too deeply for IPC");
  const ArrayData& d = *array.data();
  const DataType& t = *d.type;
  nodes_.emplace_back(d.length, d.null_count);
  if (t.id() == TypeId::kNull) return Status::OK();  // no buffers at all in IPC

  const BufferPtr validity = d.buffers.empty() ? nullptr : d.buffers[0];
  if (d.null_count == 0 || !validity) {
    buffers_.push_back({});
  } else {
    FLOTILLA_RETURN_NOT_OK(AddBitmap(validity, d.offset, d.length));
  }
  auto buffer = [&](size_t i) { return i < d.buffers.size() ? d.buffers[i] : nullptr; };

  switch (t.id()) {
    case TypeId::kBool:
      return AddBitmap(buffer(1), d.offset, d.length);
    case TypeId::kString:
    case TypeId::kBinary: {
      FLOTILLA_ASSIGN_OR_RETURN(auto range, AddOffsets<int32_t>(d));
      return AddView(buffer(2), range.first, range.second - range.first);
    }
    case TypeId::kLargeString:
    case TypeId::kLargeBinary: {
      FLOTILLA_ASSIGN_OR_RETURN(auto range, AddOffsets<int64_t>(d));
      return AddView(buffer(2), range.first, range.second - range.first);
    }
    case TypeId::kList: {
      FLOTILLA_ASSIGN_OR_RETURN(auto range, AddOffsets<int32_t>(d));
      Array child(d.children[0]);
      return Visit(child.Slice(range.first, range.second - range.first), depth + 1);
    }
    case TypeId::kFixedSizeList: {
      const int64_t n = t.fixed_size();
      return Visit(Array(d.children[0]).Slice(d.offset * n, d.length * n), depth + 1);
    }
    case TypeId::kStruct:
      for (const auto& child : d.children) {
        FLOTILLA_RETURN_NOT_OK(Visit(Array(child).Slice(d.offset, d.length), depth + 1));
      }
      return Status::OK();
    case TypeId::kDictionary: {
      const int64_t w = t.index_type()->byte_width();
      return AddView(buffer(1), d.offset * w, d.length * w);
    }
    default: {
      const int64_t w = t.byte_width();
      return AddView(buffer(1), d.offset * w, d.length * w);
    }
  }
}

Status BatchEncoder::Compress() {
  for (BodyBuffer& b : buffers_) {
    if (b.size == 0) continue;  // empty buffers stay empty, without a length prefix
    b.prefixed = true;
    b.prefix = -1;
    if (b.size < min_compress_bytes_) continue;
    FLOTILLA_ASSIGN_OR_RETURN(auto out, Buffer::Allocate(0));
    FLOTILLA_ASSIGN_OR_RETURN(int64_t n, codec_->Compress(b.data, b.size, out.get(), 0));
    if (n >= b.size) continue;  // incompressible: keep the raw bytes (prefix -1)
    FLOTILLA_RETURN_NOT_OK(out->Resize(n));
    b.prefix = b.size;
    b.data = out->data();
    b.size = n;
    b.owner = std::move(out);
  }
  return Status::OK();
}

Status BatchEncoder::Encode(const std::vector<Array>& columns, int64_t length,
                            flatbuffers::FlatBufferBuilder* fbb, std::vector<BodyBuffer>* body,
                            int64_t dictionary_id, bool is_delta) {
  nodes_.clear();
  buffers_.clear();
  for (const Array& column : columns)
    FLOTILLA_RETURN_NOT_OK(Visit(column, 0));
  if (codec_ != nullptr) FLOTILLA_RETURN_NOT_OK(Compress());

  std::vector<fb::Buffer> layout;
  layout.reserve(buffers_.size());
  int64_t offset = 0;
  for (const BodyBuffer& b : buffers_) {
    layout.emplace_back(offset, b.total_size());
    offset += bit_util::RoundUp(b.total_size(), 8);
  }
  fbb->Clear();
  flatbuffers::Offset<fb::BodyCompression> compression = 0;
  if (codec_ != nullptr) {
    compression = fb::CreateBodyCompression(*fbb, compression_ == Compression::kZstd
                                                      ? fb::CompressionType::ZSTD
                                                      : fb::CompressionType::LZ4_FRAME);
  }
  auto batch = fb::CreateRecordBatch(*fbb, length, fbb->CreateVectorOfStructs(nodes_),
                                     fbb->CreateVectorOfStructs(layout), compression);
  flatbuffers::Offset<fb::Message> message;
  if (dictionary_id >= 0) {
    auto dict = fb::CreateDictionaryBatch(*fbb, dictionary_id, batch, is_delta);
    message = fb::CreateMessage(*fbb, fb::MetadataVersion::V5, fb::MessageHeader::DictionaryBatch,
                                dict.Union(), offset);
  } else {
    message = fb::CreateMessage(*fbb, fb::MetadataVersion::V5, fb::MessageHeader::RecordBatch,
                                batch.Union(), offset);
  }
  fbb->Finish(message);
  *body = std::move(buffers_);
  buffers_.clear();
  return Status::OK();
}

}  // namespace flotilla::ipc
